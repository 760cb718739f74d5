import type {ChatMessage, ModelRole, ProviderKind, RoleSettings, TokenUsage} from '../domain/session.js';
import type {Capabilities} from './capabilities.js';
import type {FailureKind, ModelRequest, StructuredSpec} from './types.js';
import type {ReplyCut} from './replyLimit.js';

/**
 * What goes on the wire for one exchange. `json_object` and `prompt` carry the schema too: it is
 * described in an extra system message (already part of `messages`) and checked on our side.
 */
export type WireFormat =
	| {readonly type: 'text'}
	/** `strict: false` only for best-effort json_schema (Groq, Gemini, Together, Fireworks); absent = strict, so cache keys of strict calls stay as they were. */
	| {readonly type: 'json_schema' | 'json_object' | 'prompt'; readonly name: string; readonly jsonSchema: Readonly<Record<string, unknown>>; readonly strict?: false};

/** One request/response round trip with a provider (a call has one per attempt and re-ask). */
export type Exchange = {
	readonly role: ModelRole;
	readonly stage: string;
	readonly settings: RoleSettings;
	readonly messages: readonly ChatMessage[];
	readonly format: WireFormat;
	readonly schema: StructuredSpec<unknown> | undefined;
	/** Set for free-text calls that stream: content deltas only (thinking text is routed apart). */
	readonly onToken: ((delta: string) => void) | undefined;
	/** Ask the server to stream (free text only; decided by the role's `stream` setting and what the server allowed so far). */
	readonly stream: boolean;
	/** Choices to ask for in one request (`n`); 1 unless best-of-N runs on a server that supports it. */
	readonly n: number;
	readonly signal: AbortSignal | undefined;
	/** The originating request, with `prompt.messages` replaced by the current conversation (mock generators read it). */
	readonly request: ModelRequest<unknown>;
	/** What the endpoint was found to accept (capabilities.ts): whether to send stream_options, n. Absent for mock and replay. */
	readonly capabilities?: Capabilities;
};

/** Why a reply ended: "content_filter" (a provider's filter cut it) and "error" (OpenRouter's mid-stream failure) are not whole replies. */
export type FinishReason = 'stop' | 'length' | 'content_filter' | 'error' | 'other';

export type RawReply = {
	/** The (first) choice's content, as the server sent it (thinking blocks are removed later, in one place). */
	readonly text: string;
	/** Every choice's content when `n` > 1. */
	readonly choices?: readonly string[];
	/** Reasoning the server sent in its own field (vLLM/llama.cpp `reasoning_content`, vLLM/Ollama/OpenRouter `reasoning`). */
	readonly reasoning?: string | null;
	/** False when a free-text reply was asked for whole (streaming off for the role). */
	readonly streamed?: boolean;
	readonly finishReason: FinishReason;
	/** Null when the endpoint reported none (the gateway then estimates). */
	readonly usage: TokenUsage | null;
	/** The model that answered, when the provider knows better than the settings (replay). */
	readonly model?: string;
	/** A refusal message (OpenAI structured outputs), kept for the error text. */
	readonly refusal?: string;
	/** The response headers (the limiter paces by their rate-limit figures). */
	readonly headers?: Headers;
	/** The reply passed the role's size limit and was read only up to it (llm/replyLimit.ts). */
	readonly cut?: ReplyCut;
};

/** A model backend. Providers make exactly one attempt; retries, parsing and records live in the gateway. */
export interface Provider {
	readonly kind: ProviderKind;
	/** Whether attempts take a slot of the shared concurrency limiter and may be cached. */
	readonly remote: boolean;
	complete(exchange: Exchange): Promise<RawReply>;
}

/** Calls `onToken` word by word (with the following whitespace), for providers that do not stream. */
export function emitWords(text: string, onToken: ((delta: string) => void) | undefined): void {
	if (!onToken) return;
	for (const word of text.match(/\s*\S+\s*/g) ?? []) onToken(word);
}

/** A provider-side failure that is final for the call (no retry), e.g. a recording that ran out. */
export class ProviderFailure extends Error {
	constructor(
		message: string,
		readonly kind: FailureKind,
	) {
		super(message);
		this.name = 'ProviderFailure';
	}
}
