import type {z} from 'zod';
import type {CallRecord, ChatMessage, ModelRole, RoleSettings} from '../domain/session.js';
import type {Capabilities} from './capabilities.js';
import type {Refusal} from './retry.js';

/** A prompt file rendered with its named values. */
export type RenderedPrompt = {
	/** Prompt id: the folder under prompts/, e.g. "blueprint" or "judge/honesty". */
	readonly id: string;
	readonly messages: readonly ChatMessage[];
	/** sha256 prefix of the rendered messages. */
	readonly hash: string;
};

export type StructuredSpec<T> = {
	/** Name sent as json_schema.name; also how fakes and the mock provider recognise the call. */
	readonly name: string;
	readonly schema: z.ZodType<T>;
};

/**
 * One model call. Everything code reads back is structured (`schema` set); only assistant replies
 * are free text. `mock` carries the structured inputs the offline mock provider builds its reply
 * from; real providers ignore it.
 */
export type ModelRequest<T> = {
	readonly role: ModelRole;
	/**
	 * How to reach the model for this call instead of the role's own settings: a model no role flag
	 * names, such as the reward model of `crisp eval --reward-model`. The role still picks the API key.
	 */
	readonly settings?: RoleSettings;
	/** Stage label for records, events and mock dispatch: "blueprint", "shards", "simulator", "assistant", "judge:honesty", ... */
	readonly stage: string;
	readonly prompt: RenderedPrompt;
	readonly schema?: StructuredSpec<T>;
	/**
	 * Stream text tokens through `onToken` (free-text calls only). When a call_retried event follows
	 * some tokens (a stream that stalled or came back truncated), the next attempt streams from the
	 * start: consumers drop the partial text they showed.
	 */
	readonly onToken?: (delta: string) => void;
	/**
	 * Extra checks on a parsed value (beyond the schema). Returned problems are sent back to the model
	 * as feedback, exactly like schema errors, within the validation budget.
	 */
	readonly validate?: (value: T) => readonly string[];
	readonly mock: unknown;
	/**
	 * Choices wanted from one request (best-of-N). The gateway asks the server for `n` at once when the
	 * role's `supportsN` says it can, and makes up any shortfall with single requests.
	 */
	readonly n?: number;
	/** Engine step number, recorded on the call. */
	readonly step: number;
	/**
	 * Which of several samples of the same request this is (best-of-N). Part of the cache key, so each
	 * sample is cached on its own and a rerun reproduces every one of them.
	 */
	readonly sample?: number;
	/** Trial number of the episode (batch --trials): trials after the first are cached apart, so repeats are real repeats. */
	readonly trial?: number;
	/** Repeat number of a re-judging (rejudge --repeat): repeats after the first are cached apart, so the judge really answers again. */
	readonly repeat?: number;
	readonly signal?: AbortSignal;
	/** Events of this call only (started, retried, done, failed), for per-episode listeners. */
	readonly onEvent?: (event: CallEvent) => void;
};

export type ModelResponse<T> = {
	/** The parsed, validated value (structured) or the reply text (free text). */
	readonly value: T;
	readonly text: string;
	/** Every choice (free text with `n` > 1); `[text]` otherwise. */
	readonly texts?: readonly string[];
	readonly call: CallRecord;
	/**
	 * Set when the reply is not whole but was kept (free text only): cut by a token cap or the server's
	 * context ("length"), or by a provider's content filter. The engine marks the turn (`Turn.cut`).
	 */
	readonly cut?: 'length' | 'content_filter';
};

export type FailureKind =
	| 'rate_limited'
	| 'server'
	| 'network'
	| 'timeout'
	/** The server's TLS certificate was not accepted (never retried; NODE_EXTRA_CA_CERTS is the usual fix). */
	| 'tls'
	/** A proxy refused the request (407 credentials, 403 policy) or its variable is unreadable. */
	| 'proxy'
	| 'auth'
	| 'quota'
	| 'not_found'
	| 'context_length'
	| 'stream_refused'
	| 'bad_request'
	/** A provider's content filter blocked the prompt or cut the reply (Azure's content_filter, OpenRouter's moderation 403): the item fails, the set-up is fine. */
	| 'content_filter'
	| 'empty'
	| 'truncated'
	| 'invalid_output'
	| 'replay_exhausted'
	| 'aborted'
	/** The reply passed the role's size limit (llm/replyLimit.ts); a structured reply that long is no answer. */
	| 'too_large';

/**
 * Failures no retry or later item can fix: the set-up is wrong (key, quota, model name, a parameter
 * the server rejects, a prompt over its context window). A batch stops after K items in a row fail
 * the same way with one of these.
 */
export const SETUP_FAILURES: ReadonlySet<FailureKind> = new Set(['auth', 'quota', 'not_found', 'context_length', 'stream_refused', 'bad_request', 'tls', 'proxy']);

/** A call that failed for good (retries and validation budget spent); carries its record. */
export class ModelCallError extends Error {
	constructor(
		message: string,
		readonly kind: FailureKind,
		readonly call: CallRecord,
		/** What the server refused, when asking without it could work (`n`: best-of then asks N times). */
		readonly refused?: Refusal,
	) {
		super(message);
		this.name = 'ModelCallError';
	}
}

export type CallEvent =
	| {
			readonly type: 'call_started';
			readonly callId: string;
			readonly role: ModelRole;
			readonly stage: string;
			readonly model: string;
			readonly provider: RoleSettings['provider'];
			/** Engine step the call belongs to. */
			readonly step?: number;
			/** HTTP attempts the retry policy allows, and the per-attempt timeout: what a person watching a slow call needs. */
			readonly maxAttempts?: number;
			readonly timeoutMs?: number;
			/** The messages sent (the inspector shows a call in flight with its prompt). */
			readonly request?: readonly ChatMessage[];
	  }
	| {readonly type: 'call_retried'; readonly callId: string; readonly role: ModelRole; readonly stage: string; readonly attempt: number; readonly reason: string; readonly delayMs: number}
	| {readonly type: 'call_done'; readonly call: CallRecord}
	| {readonly type: 'call_failed'; readonly call: CallRecord; readonly kind: FailureKind}
	/** Something the model layer changed or noticed for a role (streaming switched off, a prompt cut by the server); sent once per role and message. */
	| {readonly type: 'notice'; readonly role: ModelRole; readonly message: string};

/** The one door to every model, shared by all roles of a run (one limiter, one cache, one recorder). */
export interface ModelGateway {
	settings(role: ModelRole): RoleSettings;
	call<T>(request: ModelRequest<T>): Promise<ModelResponse<T>>;
	/**
	 * `count` samples of one free-text request (best-of-N): one request with `n` when the role's server
	 * supports it (topped up with single requests if it returned fewer), else `count` requests keyed
	 * apart by their sample number. Each sample comes with the record of the call that produced it.
	 */
	sample?(request: ModelRequest<string>, count: number): Promise<ReadonlyArray<{readonly text: string; readonly call: CallRecord}>>;
	/** Subscribe to call events; returns an unsubscribe function. */
	onEvent(listener: (event: CallEvent) => void): () => void;
	/** Requests allowed in flight now and the configured cap (lower than the cap after rate limits). */
	concurrency(): {readonly limit: number; readonly max: number};
	/**
	 * What a role's endpoint and model were found to accept (capabilities.ts): the structured mode calls
	 * use and whether the server enforces it by grammar (so schema fidelity can follow it), `n`,
	 * streaming, usage in streams, reasoning effort. Null for mock and replay roles.
	 */
	capabilities?(role: ModelRole, settings?: RoleSettings): Capabilities | null;
}

/**
 * Builds the offline mock provider's reply for one stage from `request.mock`. Must return a value that
 * satisfies the request's schema (structured stages) or a string (free text).
 */
export type MockGenerator = (input: unknown, request: ModelRequest<unknown>) => unknown;
