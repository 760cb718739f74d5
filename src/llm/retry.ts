import {APIConnectionError, APIError, APIUserAbortError} from 'openai';
import {connectionProblem, connectionText} from './connection.js';
import {normaliseErrorBody} from './errorShapes.js';
import {ProviderFailure} from './provider.js';
import type {FailureKind} from './types.js';
import type {RetryPolicy} from './settings.js';

/** What a failed attempt means for the retry loop. */
export type Classified = {
	readonly kind: FailureKind;
	readonly retryable: boolean;
	/** Short reason for call_retried events and the call record, e.g. "HTTP 429". */
	readonly reason: string;
	/** Delay the server asked for (retry-after-ms / retry-after), if any. */
	readonly retryAfterMs: number | null;
	/** HTTP status, when there was one. */
	readonly status?: number;
	/** The server's own message (from the error body), when it sent one. */
	readonly serverMessage?: string;
	/** What went wrong and what to change, when no server said anything (a connection failure; no final full stop). */
	readonly detail?: string;
	/**
	 * The request asked for something this server does not do, so asking differently can work: a
	 * structured mode (`response_format`), `n`, `stream_options`, `reasoning_effort`, or (OpenRouter)
	 * parameters no provider of the model accepts (`routing`). The call steps down (capabilities.ts).
	 */
	readonly refused?: Refusal;
	/** What the model wrote when the server's own schema check failed it (Groq's json_validate_failed): re-asked like any invalid reply. */
	readonly failedGeneration?: string;
};

export type Refusal = 'response_format' | 'n' | 'stream_options' | 'reasoning_effort' | 'routing';

/** What an error body says, in OpenAI's shape (`{"error": {message, type, code, param}}`; see normaliseErrorBody). */
export type ErrorBody = {
	readonly message?: string;
	readonly type?: string | null;
	readonly code?: string | number | null;
	readonly param?: string | null;
	/** Groq: what the model generated before its schema check failed. */
	readonly failed_generation?: string;
	/** Azure: the content filter's details (`code: "ResponsibleAIPolicyViolation"`). */
	readonly innererror?: {readonly code?: string} | null;
	/** OpenRouter: moderation details (`reasons`, `flagged_input`) or the upstream provider's raw error. */
	readonly metadata?: Record<string, unknown> | null;
};

/**
 * Maps an error thrown by one attempt to a failure kind. Returns null for errors that are not about
 * the model endpoint at all (bugs, a throwing onToken callback): those propagate unchanged.
 */
export function classifyError(error: unknown, now: number): Classified | null {
	if (error instanceof ProviderFailure) return {kind: error.kind, retryable: false, reason: error.kind, retryAfterMs: null};
	if (error instanceof APIUserAbortError || isAbortError(error)) return {kind: 'aborted', retryable: false, reason: 'aborted', retryAfterMs: null};
	if (isStreamErrorEvent(error)) return classifyStreamEvent(error, now);
	// The connection failed (refused, DNS, TLS, a proxy, a timeout): connection.ts says which, and
	// whether trying again can help (a certificate that is not trusted never becomes trusted).
	const connection = connectionProblem(error);
	if (connection) return {kind: connection.kind, retryable: connection.retryable, reason: connection.reason, retryAfterMs: null, detail: connectionText(connection)};
	if (error instanceof APIError && typeof error.status === 'number') {
		const body = (error.error ?? {}) as ErrorBody;
		const serverMessage = typeof body.message === 'string' ? body.message : error.message.replace(/^\d{3}\s+/, '');
		return {...classifyStatus(error.status, error.headers, now, body, serverMessage), status: error.status, serverMessage};
	}
	return null;
}

const CONTEXT_LENGTH = /context[ _-]?(length|window|size)|maximum context|too many tokens|prompt is too long|exceeds? the (model'?s )?(maximum|max)|input (is )?too long|reduce the length/i;
const STREAM_REFUSED = /stream/i;
const FORMAT_REFUSED = /response_format|json_schema|json_object|structured output|json mode|'strict'|\bstrict\b.*(support|allow)/i;
const N_REFUSED = /('n'|"n"|`n`|\bn\b)\s*(:|must|only|should|is|cannot|can't|may)[^.]*\b1\b|\bn\s*>\s*1|number of (choices|completions)|multiple (choices|completions)/i;
const KEY_REFUSED = /api[ _-]?key (is )?(not valid|invalid|expired)|invalid (x-)?api[ _-]?key|incorrect api key|invalid subscription key/i;

/**
 * What an HTTP failure means, read from the status and the provider's own body (see
 * errorShapes.ts). 408/409/429/5xx are transient (retried); everything else is final, because asking
 * the same again cannot change it: 400 (a bad or unsupported parameter, a prompt over the context
 * window, streaming refused), 401/403 (credentials; Gemini says a bad key with a 400
 * API_KEY_INVALID), 402 and `insufficient_quota` 429s (no credit: OpenAI sends the quota error as a
 * 429, OpenRouter as a 402), 404 (no such model or deployment). Two kinds are not set-up failures: a
 * content filter (Azure `content_filter`, OpenRouter's moderation 403) fails one item, and Groq's
 * `json_validate_failed` is a reply that broke the schema, re-asked like any other. A refusal of a
 * structured mode, `n`, `stream_options` or `reasoning_effort` is marked (`refused`) so the call can
 * ask without it.
 */
export function classifyStatus(status: number, headers: Headers | undefined, now: number, body: ErrorBody = {}, message = ''): Classified {
	const code = body.code === null || body.code === undefined ? '' : String(body.code);
	const type = typeof body.type === 'string' ? body.type : '';
	const label = code && !/^\d+$/.test(code) ? `HTTP ${status} ${code}` : `HTTP ${status}`;
	const final = (kind: FailureKind, refused?: Refusal): Classified => ({kind, retryable: false, reason: label, retryAfterMs: null, ...(refused ? {refused} : {})});
	if (status === 429 && (code === 'insufficient_quota' || type === 'insufficient_quota')) return final('quota');
	if (status === 402) return final('quota');
	const retryAfter = headers ? retryAfterMs(headers, now) : null;
	if (status === 429) return {kind: 'rate_limited', retryable: true, reason: label, retryAfterMs: retryAfter};
	if (status === 408) return {kind: 'timeout', retryable: true, reason: label, retryAfterMs: retryAfter};
	if (status === 409 || status >= 500) return {kind: 'server', retryable: true, reason: label, retryAfterMs: retryAfter};
	if (code === 'content_filter' || body.innererror?.code === 'ResponsibleAIPolicyViolation' || (status === 403 && (Array.isArray(body.metadata?.['reasons']) || /flagged|moderation/i.test(message)))) return final('content_filter');
	if (status === 401 || status === 403) return final('auth');
	if (code === 'API_KEY_INVALID' || /^(authentication_error|permission_error)$/.test(type) || KEY_REFUSED.test(message)) return final('auth');
	if (code === 'json_validate_failed') return {...final('invalid_output'), ...(typeof body.failed_generation === 'string' ? {failedGeneration: body.failed_generation} : {})};
	if (status === 404 && /no endpoints found that can handle the requested parameters/i.test(message)) return final('bad_request', 'routing');
	if (status === 404) return final('not_found');
	if (code === 'context_length_exceeded' || type === 'exceed_context_size_error' || CONTEXT_LENGTH.test(message)) return final('context_length');
	if (body.param === 'stream' || (STREAM_REFUSED.test(message) && !/stream_options|include_usage/i.test(message) && /verif|not (be )?supported|unsupported|not allowed/i.test(message))) return final('stream_refused');
	if (body.param === 'stream_options' || /stream_options|include_usage/i.test(message)) return final('bad_request', 'stream_options');
	if (body.param === 'response_format' || FORMAT_REFUSED.test(message)) return final('bad_request', 'response_format');
	if (body.param === 'n' || N_REFUSED.test(message)) return final('bad_request', 'n');
	if (body.param === 'reasoning_effort' || /reasoning_effort|reasoning\.effort/i.test(message)) return final('bad_request', 'reasoning_effort');
	return final('bad_request');
}

/**
 * An error event inside a stream: the SDK throws an APIError with no status for a `data:` event
 * carrying `error` (OpenRouter: HTTP 200, then `{"error": {code, message}, "choices": [{"finish_reason":
 * "error"}]}`; llama.cpp: `data: {"error": {"code": 500, ...}}`).
 */
function isStreamErrorEvent(error: unknown): error is APIError {
	return error instanceof APIError && error.status === undefined && !(error instanceof APIConnectionError) && !(error instanceof APIUserAbortError) && error.error !== undefined;
}

/**
 * A stream error event is a failed attempt like an HTTP error of the status its code names (a number
 * from 400 to 599), else a server failure: retryable unless the event says otherwise, never an
 * internal error.
 */
function classifyStreamEvent(error: APIError, now: number): Classified {
	const body = normaliseErrorBody({error: error.error}) as {error: ErrorBody};
	const inner = body.error ?? {};
	const code = inner.code;
	const status = typeof code === 'number' && code >= 400 && code <= 599 ? code : 502;
	const serverMessage = typeof inner.message === 'string' ? inner.message : 'the server ended the stream with an error';
	const classified = classifyStatus(status, undefined, now, inner, serverMessage);
	return {...classified, reason: `stream error event${typeof code === 'string' && code ? ` ${code}` : ` (${status})`}`, serverMessage};
}

/**
 * The delay a server asked for: `retry-after-ms` (milliseconds, OpenAI's own header) wins over
 * `retry-after` (seconds, or an HTTP date). Null when absent or unparsable.
 */
export function retryAfterMs(headers: Headers, now: number): number | null {
	const ms = headers.get('retry-after-ms');
	if (ms !== null && ms.trim() !== '') {
		const value = Number(ms);
		if (Number.isFinite(value) && value >= 0) return value;
	}
	const header = headers.get('retry-after');
	if (header === null || header.trim() === '') return null;
	const seconds = Number(header);
	if (Number.isFinite(seconds)) return seconds >= 0 ? seconds * 1000 : null;
	const date = Date.parse(header);
	return Number.isNaN(date) ? null : Math.max(0, date - now);
}

/** A server may ask for a long pause, but never more than this (a broken header must not hang a batch). */
export const MAX_RETRY_AFTER_MS = 120_000;

/**
 * Delay before retrying after failed attempt number `attempt` (1-based): the server's request when
 * given (capped at MAX_RETRY_AFTER_MS), else exponential backoff with full jitter, i.e. uniform in
 * [0, min(maxDelayMs, baseDelayMs * 2^(attempt-1))]. Full jitter spreads the retries of many
 * concurrent calls that failed together, instead of having them hit the endpoint in lockstep.
 */
export function retryDelay(options: {attempt: number; policy: RetryPolicy; retryAfterMs: number | null; random: () => number}): number {
	const {attempt, policy, retryAfterMs: asked, random} = options;
	if (asked !== null) return Math.min(asked, MAX_RETRY_AFTER_MS);
	const ceiling = Math.min(policy.maxDelayMs, policy.baseDelayMs * 2 ** (attempt - 1));
	return Math.round(random() * ceiling);
}

function isAbortError(error: unknown): boolean {
	return error instanceof Error && error.name === 'AbortError';
}
