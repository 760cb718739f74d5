import {AsyncLocalStorage} from 'node:async_hooks';
import type {ModelRole, RoleSettings} from '../domain/session.js';

/*
 * A bounded reply: a server that answers 50 MB (a model that never stops, a proxy gone wrong) once
 * took `run` to 3 GB of memory and a 315 MB session, and a batch to a V8 out-of-memory abort. Every
 * reply is read up to its role's limit, where its bytes arrive (httpFetch), and no further: reading
 * stops, the connection is dropped, nothing past the limit is ever buffered, and the reply is kept as
 * cut, with its size, on the call record (and on the assistant's turn).
 *
 * The limit travels with the request through an AsyncLocalStorage (`withReplyLimit`), so the
 * transport needs no new parameter: httpFetch asks `replyBudget()` for the request it is reading.
 */

/** Structured roles answer a JSON object of a few KB; 64 KB leaves room and stops a runaway reply. */
export const STRUCTURED_REPLY_KB = 64;
/** The assistant writes free text: a long answer is a few KB, 256 KB is far past any real one. */
export const ASSISTANT_REPLY_KB = 256;

/** The limit in bytes of a role's replies: the role's `maxReplyKB` (config or --max-reply-kb), else its default. */
export function replyLimitBytes(role: ModelRole, settings: Pick<RoleSettings, 'maxReplyKB'>): number {
	return Math.round((settings.maxReplyKB ?? (role === 'assistant' ? ASSISTANT_REPLY_KB : STRUCTURED_REPLY_KB)) * 1024);
}

/** What a cut reply records: the limit, the bytes read when reading stopped, and the size the server announced (content-length), if any. */
export type ReplyCut = {readonly limitBytes: number; readonly readBytes: number; readonly totalBytes: number | null};

/** One request's allowance: bytes read so far, and whether reading stopped at the limit. */
export class ReplyBudget {
	private read = 0;
	cut: ReplyCut | null = null;

	constructor(readonly limitBytes: number) {}

	/**
	 * Counts `bytes` more; true when they take the reply past the limit (the caller stops reading).
	 * Framing (SSE lines, the JSON around the content) counts too: the limit is on what is read.
	 */
	take(bytes: number, announced: number | null): boolean {
		this.read += bytes;
		if (this.read <= this.limitBytes) return false;
		this.cut ??= {limitBytes: this.limitBytes, readBytes: this.read, totalBytes: announced};
		return true;
	}
}

const current = new AsyncLocalStorage<ReplyBudget>();

/** Runs `work` (one provider attempt) with `budget` as the allowance of every response it reads. */
export function withReplyLimit<T>(budget: ReplyBudget, work: () => Promise<T>): Promise<T> {
	return current.run(budget, work);
}

/** The allowance of the request being read now, if its caller set one. */
export function replyBudget(): ReplyBudget | undefined {
	return current.getStore();
}

/**
 * The body of a whole (not streamed) JSON reply that was cut at the limit, as a completion the SDK
 * can read: the first choice's content as far as it arrived (decoded from the partial JSON), and
 * finish_reason "length". The budget says it was cut; the caller records that.
 */
export function cutCompletion(partial: Buffer): Uint8Array<ArrayBuffer> {
	const content = partialContent(partial.toString('utf8'));
	return new TextEncoder().encode(JSON.stringify({id: 'cut', object: 'chat.completion', created: 0, model: '', choices: [{index: 0, message: {role: 'assistant', content}, finish_reason: 'length'}]}));
}

/**
 * The value of the first `"content": "...` string in a JSON text that stops anywhere, decoded as
 * far as it goes (an escape cut in half is dropped). Empty when no content string began.
 */
export function partialContent(text: string): string {
	const match = /"content"\s*:\s*"/.exec(text);
	if (!match) return '';
	let out = '';
	for (let i = match.index + match[0].length; i < text.length; i++) {
		const char = text[i]!;
		if (char === '"') break;
		if (char !== '\\') {
			out += char;
			continue;
		}
		const next = text[i + 1];
		if (next === undefined) break;
		if (next === 'u') {
			const hex = text.slice(i + 2, i + 6);
			if (!/^[0-9a-fA-F]{4}$/.test(hex)) break;
			out += String.fromCharCode(Number.parseInt(hex, 16));
			i += 5;
			continue;
		}
		out += ({n: '\n', t: '\t', r: '\r', b: '\b', f: '\f', '"': '"', '\\': '\\', '/': '/'} as Record<string, string>)[next] ?? next;
		i++;
	}
	return out;
}

/**
 * A streamed (SSE) body counted against `budget`: once past the limit the stream ends there (the
 * SDK sees a stream without a finish_reason; the provider sees the budget's cut) and `drop` closes
 * the connection, so nothing more is read.
 */
export function limitStream(body: ReadableStream<Uint8Array>, budget: ReplyBudget, announced: number | null, drop: () => void): ReadableStream<Uint8Array> {
	const reader = body.getReader();
	return new ReadableStream<Uint8Array>({
		async pull(controller) {
			const {done, value} = await reader.read();
			if (done) {
				controller.close();
				return;
			}
			if (budget.take(value.byteLength, announced)) {
				controller.close();
				void reader.cancel().catch(() => undefined);
				drop();
				return;
			}
			controller.enqueue(value);
		},
		cancel(reason) {
			return reader.cancel(reason);
		},
	});
}

/** The words a cut reply's failure or notice uses. */
export function describeCut(role: ModelRole, cut: ReplyCut): string {
	const total = cut.totalBytes !== null ? ` of ${kb(cut.totalBytes)} announced` : '';
	return `the reply passed the ${role} role's limit of ${kb(cut.limitBytes)}${total}; reading stopped there (raise maxReplyKB for the role, or --max-reply-kb, if replies this long are wanted)`;
}

const kb = (bytes: number) => (bytes >= 1024 * 1024 ? `${(bytes / 1024 / 1024).toFixed(1)} MB` : `${Math.round(bytes / 1024)} KB`);
