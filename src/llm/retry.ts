import {APIConnectionError, APIConnectionTimeoutError, APIError, APIUserAbortError} from 'openai';
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
};

/** Socket-level failures worth another attempt (the connection, not the request, went wrong). */
const NETWORK_CODES = new Set(['ECONNREFUSED', 'ECONNRESET', 'EPIPE', 'ETIMEDOUT', 'EAI_AGAIN', 'ENOTFOUND', 'EHOSTUNREACH', 'ENETUNREACH', 'UND_ERR_SOCKET', 'UND_ERR_CLOSED']);

/**
 * Maps an error thrown by one attempt to a failure kind. Returns null for errors that are not about
 * the model endpoint at all (bugs, a throwing onToken callback): those propagate unchanged.
 */
export function classifyError(error: unknown, now: number): Classified | null {
	if (error instanceof ProviderFailure) return {kind: error.kind, retryable: false, reason: error.kind, retryAfterMs: null};
	if (error instanceof APIUserAbortError || isAbortError(error)) return {kind: 'aborted', retryable: false, reason: 'aborted', retryAfterMs: null};
	if (error instanceof APIConnectionTimeoutError) return {kind: 'timeout', retryable: true, reason: 'timeout', retryAfterMs: null};
	if (error instanceof APIConnectionError) return {kind: 'network', retryable: true, reason: `network: ${causeCode(error) ?? error.message}`, retryAfterMs: null};
	if (error instanceof APIError && typeof error.status === 'number') return classifyStatus(error.status, error.headers, now);
	const code = causeCode(error);
	if (code !== undefined && NETWORK_CODES.has(code)) return {kind: 'network', retryable: true, reason: `network: ${code}`, retryAfterMs: null};
	// undici reports a connection dropped mid-body (e.g. during a stream) as TypeError('terminated').
	if (error instanceof TypeError && error.message === 'terminated') return {kind: 'network', retryable: true, reason: 'network: connection closed', retryAfterMs: null};
	return null;
}

/** 408/409/429/5xx are transient; 401/403 are credentials; any other 4xx is our request's fault. */
export function classifyStatus(status: number, headers: Headers | undefined, now: number): Classified {
	const reason = `HTTP ${status}`;
	const retryAfter = headers ? retryAfterMs(headers, now) : null;
	if (status === 429) return {kind: 'rate_limited', retryable: true, reason, retryAfterMs: retryAfter};
	if (status === 408) return {kind: 'timeout', retryable: true, reason, retryAfterMs: retryAfter};
	if (status === 409 || status >= 500) return {kind: 'server', retryable: true, reason, retryAfterMs: retryAfter};
	if (status === 401 || status === 403) return {kind: 'auth', retryable: false, reason, retryAfterMs: null};
	return {kind: 'bad_request', retryable: false, reason, retryAfterMs: null};
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

function causeCode(error: unknown): string | undefined {
	for (let current: unknown = error, depth = 0; current && depth < 4; depth++) {
		const code = (current as {code?: unknown}).code;
		if (typeof code === 'string') return code;
		current = (current as {cause?: unknown}).cause;
	}
	return undefined;
}
