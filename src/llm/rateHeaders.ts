import {retryAfterMs} from './retry.js';

/*
 * What a server says about its own rate limits, read from response headers in the families providers
 * document, into one shape the limiters pace by (pacer.ts):
 *
 * - OpenAI ("Rate limits" guide: x-ratelimit-limit-requests, -remaining-requests, -reset-requests and
 *   the same for -tokens; resets as durations such as "1s", "6m0s", "20ms"), and the servers that copy
 *   it (Groq: the same names, retry-after only on 429s; Azure OpenAI, which sends -1 when it has no
 *   figure).
 * - Anthropic (anthropic-ratelimit-requests-limit / -remaining / -reset, the same for -tokens and
 *   -input-tokens; resets as RFC 3339 times).
 * - OpenRouter and generic APIs (x-ratelimit-limit, x-ratelimit-remaining, x-ratelimit-reset; resets as
 *   epoch milliseconds or seconds, or seconds from now).
 * - retry-after-ms (OpenAI) and retry-after (seconds or an HTTP date), read as retry.ts reads them.
 *
 * Resets are kept relative (milliseconds from when the headers were read), so a limiter whose clock
 * is elsewhere (Redis's) can place them on its own.
 */

export type RateWindow = {
	/** Requests (or tokens) left in the window. */
	readonly remaining: number;
	readonly limit: number | null;
	/** Milliseconds until the window is full again, when the server said. */
	readonly resetInMs: number | null;
};

export type RateHeaders = {
	readonly requests: RateWindow | null;
	readonly tokens: RateWindow | null;
	/** The delay the server asked for (429s and 503s carry it). */
	readonly retryAfterMs: number | null;
};

export const NO_RATE_HEADERS: RateHeaders = {requests: null, tokens: null, retryAfterMs: null};

/** Whether the server announced a quota (not only a retry-after). */
export function announcesQuota(rate: RateHeaders): boolean {
	return rate.requests !== null || rate.tokens !== null;
}

const FAMILIES = {
	requests: [
		['x-ratelimit-remaining-requests', 'x-ratelimit-limit-requests', 'x-ratelimit-reset-requests'],
		['anthropic-ratelimit-requests-remaining', 'anthropic-ratelimit-requests-limit', 'anthropic-ratelimit-requests-reset'],
		['x-ratelimit-remaining', 'x-ratelimit-limit', 'x-ratelimit-reset'],
	],
	tokens: [
		['x-ratelimit-remaining-tokens', 'x-ratelimit-limit-tokens', 'x-ratelimit-reset-tokens'],
		['anthropic-ratelimit-tokens-remaining', 'anthropic-ratelimit-tokens-limit', 'anthropic-ratelimit-tokens-reset'],
		['anthropic-ratelimit-input-tokens-remaining', 'anthropic-ratelimit-input-tokens-limit', 'anthropic-ratelimit-input-tokens-reset'],
	],
} as const;

export function readRateHeaders(headers: Headers | undefined, now: number): RateHeaders {
	if (!headers) return NO_RATE_HEADERS;
	const window = (families: ReadonlyArray<readonly [string, string, string]>): RateWindow | null => {
		for (const [remainingName, limitName, resetName] of families) {
			const remaining = count(headers.get(remainingName));
			if (remaining === null) continue;
			const reset = headers.get(resetName);
			return {remaining, limit: count(headers.get(limitName)), resetInMs: reset === null ? null : resetMs(reset, now)};
		}
		return null;
	};
	return {requests: window(FAMILIES.requests), tokens: window(FAMILIES.tokens), retryAfterMs: retryAfterMs(headers, now)};
}

/** A non-negative count; null when absent or a placeholder (Azure sends -1 when it has no figure). */
function count(value: string | null): number | null {
	if (value === null || value.trim() === '') return null;
	const number = Number(value);
	return Number.isFinite(number) && number >= 0 ? number : null;
}

const DURATION = /^(?:\d+(?:\.\d+)?(?:ms|us|µs|ns|h|m|s))+$/;
const UNIT_MS: Record<string, number> = {h: 3_600_000, m: 60_000, s: 1000, ms: 1, us: 0.001, µs: 0.001, ns: 0.000001};

/** A Go-style duration as OpenAI and Groq send it ("6m0s", "1.5s", "20ms", "2m59.56s"), in ms. */
export function parseDuration(text: string): number | null {
	const value = text.trim();
	if (!DURATION.test(value)) return null;
	let total = 0;
	for (const [, amount, unit] of value.matchAll(/(\d+(?:\.\d+)?)(ms|us|µs|ns|h|m|s)/g)) total += Number(amount) * UNIT_MS[unit!]!;
	return total;
}

/**
 * A reset in any of the documented forms, as milliseconds from `now` (never negative): a duration,
 * an RFC 3339 or HTTP date, epoch milliseconds or seconds, or seconds from now.
 */
export function resetMs(value: string, now: number): number | null {
	const duration = parseDuration(value);
	if (duration !== null) return duration;
	const text = value.trim();
	if (/^\d+(\.\d+)?$/.test(text)) {
		const number = Number(text);
		if (number > 1e12) return Math.max(0, number - now);
		if (number > 1e9) return Math.max(0, number * 1000 - now);
		return number * 1000;
	}
	const date = Date.parse(text);
	return Number.isNaN(date) ? null : Math.max(0, date - now);
}
