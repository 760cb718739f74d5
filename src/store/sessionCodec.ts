import type {CallRecord, ChatMessage, Session} from '../domain/session.js';

/*
 * The on-disk form of a session (format version 2), and the journal a running session is saved to.
 *
 * A model call's raw request repeats most of the transcript, the system prompt and the evidence:
 * stored as is, call records were 85% of a session file and the raw requests 75% (157 KB a session,
 * 2% of it dialogue). On disk each request is therefore a list of line numbers into the session's
 * own pool of unique lines (`lines`): every line a session's prompts share is stored once, and
 * `decodeSession` rebuilds every request byte for byte (lines keep their "\n"). In memory a session
 * always holds full requests.
 *
 * While an episode runs, each save appends one journal line with what changed since the previous
 * save (new turns, calls, steps; replaced fields) instead of rewriting the whole file, so writing an
 * episode costs about its final size once, plus the snapshot written when it ends.
 */

/** A call record on disk: the request as line numbers into the session's pool. */
export type DiskCall = Omit<CallRecord, 'request'> & {readonly request: ReadonlyArray<{readonly role: ChatMessage['role']; readonly lines: readonly number[]}>};

/** A session on disk (version 2). */
export type DiskSession = Omit<Session, 'calls' | 'version'> & {readonly version: 2; readonly calls: readonly DiskCall[]; readonly lines: readonly string[]};

/** Splits text into lines that keep their line break, so joining them gives the text back exactly. */
export function splitLines(text: string): string[] {
	if (text === '') return [''];
	return text.split(/(?<=\n)/);
}

/** A pool of unique lines, grown as calls are encoded; indexes never change. */
export class LinePool {
	readonly lines: string[];
	private readonly index = new Map<string, number>();

	constructor(lines: readonly string[] = []) {
		this.lines = [...lines];
		this.lines.forEach((line, i) => {
			if (!this.index.has(line)) this.index.set(line, i);
		});
	}

	idOf(line: string): number {
		let id = this.index.get(line);
		if (id === undefined) {
			id = this.lines.length;
			this.lines.push(line);
			this.index.set(line, id);
		}
		return id;
	}

	encodeCall(call: CallRecord): DiskCall {
		return {...call, request: call.request.map((message) => ({role: message.role, lines: splitLines(message.content).map((line) => this.idOf(line))}))};
	}
}

export function decodeCall(call: DiskCall, lines: readonly string[]): CallRecord {
	return {
		...call,
		request: call.request.map((message) => {
			// A request written whole (a session saved by hand or by another tool) is read as it is.
			if (typeof (message as {content?: unknown}).content === 'string') return message as unknown as ChatMessage;
			let content = '';
			for (const id of message.lines) {
				const line = lines[id];
				if (line === undefined) throw new Error(`call ${call.id}: line ${id} is not in the session's line pool`);
				content += line;
			}
			return {role: message.role, content};
		}),
	};
}

export function encodeSession(session: Session, pool = new LinePool()): DiskSession {
	const calls = session.calls.map((call) => pool.encodeCall(call));
	return {...session, version: 2, calls, lines: pool.lines};
}

/** A v2 disk session (or its raw JSON) back to the in-memory shape; the result is validated by the caller. */
export function decodeSession(disk: DiskSession): Omit<Session, 'version'> & {version: 2} {
	const {lines, ...rest} = disk;
	return {...rest, calls: (disk.calls ?? []).map((call) => decodeCall(call, lines ?? []))};
}

/** One journal line after the first: fields replaced whole, arrays grown at the end, new pool lines. */
export type JournalPatch = {
	readonly t: 'patch';
	readonly set?: Readonly<Record<string, unknown>>;
	readonly append?: Readonly<Record<string, readonly unknown[]>>;
	readonly lines?: readonly string[];
};

/** The journal's first line: the whole session, or "start from the snapshot file" for a resumed one. */
export type JournalStart = {readonly t: 'start'; readonly format: 'cultureconverse.session-journal'; readonly version: 2; readonly session: DiskSession} | {readonly t: 'continue'; readonly format: 'cultureconverse.session-journal'; readonly version: 2; readonly from: 'snapshot'};

/**
 * What changed from `before` to `after`: a field whose value is a new object is set whole, except
 * arrays that only grew (turns, calls, steps, notices), which append their new elements. The engine
 * never edits a saved value in place (each update spreads a new session), so an unchanged field is
 * the same object and costs nothing.
 */
export function diffSession(before: Session, after: Session, pool: LinePool): JournalPatch | null {
	const set: Record<string, unknown> = {};
	const append: Record<string, unknown[]> = {};
	const linesBefore = pool.lines.length;
	for (const key of Object.keys(after) as Array<keyof Session>) {
		const was = before[key] as unknown;
		const now = after[key] as unknown;
		if (was === now) continue;
		if (Array.isArray(was) && Array.isArray(now) && now.length >= was.length && was.every((item, i) => item === now[i])) {
			if (now.length === was.length) continue;
			const added = now.slice(was.length);
			append[key] = key === 'calls' ? (added as CallRecord[]).map((call) => pool.encodeCall(call)) : added;
			continue;
		}
		set[key] = key === 'calls' ? (now as CallRecord[]).map((call) => pool.encodeCall(call)) : now;
	}
	for (const key of Object.keys(before)) if (!(key in after)) set[key] = undefined;
	const lines = pool.lines.slice(linesBefore);
	if (Object.keys(set).length === 0 && Object.keys(append).length === 0) return null;
	return {t: 'patch', ...(Object.keys(set).length > 0 ? {set} : {}), ...(Object.keys(append).length > 0 ? {append} : {}), ...(lines.length > 0 ? {lines} : {})};
}

/** Applies journal patches to a disk session (pure). */
export function applyPatch(disk: DiskSession, patch: JournalPatch): DiskSession {
	const next: Record<string, unknown> = {...disk};
	for (const [key, value] of Object.entries(patch.set ?? {})) {
		if (value === undefined) delete next[key];
		else next[key] = value;
	}
	for (const [key, items] of Object.entries(patch.append ?? {})) next[key] = [...((next[key] as unknown[] | undefined) ?? []), ...items];
	if (patch.lines && patch.lines.length > 0) next['lines'] = [...disk.lines, ...patch.lines];
	return next as DiskSession;
}
