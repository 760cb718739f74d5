import {APIError, APIUserAbortError} from 'openai';
import {connectionProblem, connectionText} from './connection.js';
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
};

/** What an error body says, in OpenAI's shape (`{"error": {message, type, code, param}}`; see normaliseErrorBody). */
export type ErrorBody = {readonly message?: string; readonly type?: string | null; readonly code?: string | number | null; readonly param?: string | null};

/**
 * Maps an error thrown by one attempt to a failure kind. Returns null for errors that are not about
 * the model endpoint at all (bugs, a throwing onToken callback): those propagate unchanged.
 */
export function classifyError(error: unknown, now: number): Classified | null {
	if (error instanceof ProviderFailure) return {kind: error.kind, retryable: false, reason: error.kind, retryAfterMs: null};
	if (error instanceof APIUserAbortError || isAbortError(error)) return {kind: 'aborted', retryable: false, reason: 'aborted', retryAfterMs: null};
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

const CONTEXT_LENGTH = /context[ _-]?(length|window)|maximum context|too many tokens|prompt is too long|exceeds? the (model'?s )?(maximum|max)|input (is )?too long|reduce the length/i;
const STREAM_REFUSED = /stream/i;

/**
 * What an HTTP failure means. 408/409/429/5xx are transient (retried); everything else is final,
 * because asking again cannot change it: 400 (a bad or unsupported parameter, a prompt over the
 * context window, streaming refused), 401/403 (credentials), 402 and `insufficient_quota` 429s (no
 * credit: OpenAI sends the quota error as a 429, OpenRouter as a 402), 404 (no such model or route).
 */
export function classifyStatus(status: number, headers: Headers | undefined, now: number, body: ErrorBody = {}, message = ''): Classified {
	const code = body.code === null || body.code === undefined ? '' : String(body.code);
	const label = code && !/^\d+$/.test(code) ? `HTTP ${status} ${code}` : `HTTP ${status}`;
	const final = (kind: FailureKind): Classified => ({kind, retryable: false, reason: label, retryAfterMs: null});
	if (status === 429 && (code === 'insufficient_quota' || body.type === 'insufficient_quota')) return final('quota');
	if (status === 402) return final('quota');
	const retryAfter = headers ? retryAfterMs(headers, now) : null;
	if (status === 429) return {kind: 'rate_limited', retryable: true, reason: label, retryAfterMs: retryAfter};
	if (status === 408) return {kind: 'timeout', retryable: true, reason: label, retryAfterMs: retryAfter};
	if (status === 409 || status >= 500) return {kind: 'server', retryable: true, reason: label, retryAfterMs: retryAfter};
	if (status === 401 || status === 403) return final('auth');
	if (status === 404) return final('not_found');
	if (code === 'context_length_exceeded' || CONTEXT_LENGTH.test(message)) return final('context_length');
	if (status === 400 && (body.param === 'stream' || (STREAM_REFUSED.test(message) && /verif|not (be )?supported|unsupported|not allowed/i.test(message)))) return final('stream_refused');
	return final('bad_request');
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
