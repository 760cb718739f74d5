import {type RateHeaders, type RateWindow, announcesQuota} from './rateHeaders.js';

/*
 * Pacing by what the server says is left (rateHeaders.ts), as pure functions over a small state, so
 * the in-process limiter (limiter.ts) and the thread-shared one (sharedLimiter.ts, the state in a
 * SharedArrayBuffer) run the same rule; the Redis limiter (queue/redisLimiter.ts) runs it in Lua
 * with Redis's clock and says so there.
 *
 * The rule: spend what is left evenly until the window resets. Each start goes at least
 * (time to reset) / (requests left) after the one before, for requests and for tokens (at the
 * recent tokens per request), so a fixed window of R requests per W is used at R/W without a burst
 * and a 429; against a token bucket (OpenAI's, where "reset" is the time until it is full again)
 * the spacing settles where the bucket holds half, at the rate it refills. A window with nothing left
 * holds every start until its reset. A 429 that says the quota is spent pauses every start until the
 * server's retry-after (then one start goes to read the new figures) or else the reset; a 429 while the headers show quota left (an overloaded server,
 * a random refusal) changes nothing: only that call waits and tries again. A 429 without any quota
 * header is the case the old width adaptation (AIMD) is for: `narrow` says so.
 */

export type PaceWindow = {readonly remaining: number; readonly limit: number | null; readonly resetAt: number | null};

export type PaceState = {
	readonly requests: PaceWindow | null;
	readonly tokens: PaceWindow | null;
	/** Recent tokens per call (0 until a call said its usage): what one start spends of the token window. */
	readonly tokensPerRequest: number;
	/** The earliest time of the next start. */
	readonly nextAt: number;
	/** No start before this (a 429 that said the quota is spent). */
	readonly pausedUntil: number;
	/** Ticket of the request whose headers the windows come from: an older reply's figures are stale. */
	readonly ticket: number;
};

export const EMPTY_PACE: PaceState = {requests: null, tokens: null, tokensPerRequest: 0, nextAt: 0, pausedUntil: 0, ticket: 0};

/** How long to hold starts when a window is spent and the server gave no reset time. */
export const PROBE_MS = 1000;
/** The longest a limiter holds starts on one server's word (a broken header must not hang a batch). */
export const MAX_HOLD_MS = 120_000;

export type PaceObservation = {
	/** Ticket of the request the reply answered, when known. */
	readonly ticket?: number;
	/** True for a 429 that is a rate limit (not OpenAI's `insufficient_quota`). */
	readonly rateLimited: boolean;
	readonly rate: RateHeaders;
	/** Tokens the call used, when the reply said. */
	readonly tokens?: number;
};

/**
 * A reset is placed this much later than said: a reply's figures are read after the server wrote
 * them, but a start that reaches the server just before its window turns would be refused.
 */
export const RESET_MARGIN_MS = 20;

const place = (window: RateHeaders['requests'], now: number): PaceWindow | null =>
	window === null ? null : {remaining: window.remaining, limit: window.limit, resetAt: window.resetInMs === null ? null : now + Math.min(window.resetInMs, MAX_HOLD_MS) + RESET_MARGIN_MS};

/** Takes in what one reply said. `narrow`: a 429 with no quota headers, for the width adaptation. */
export function observePace(state: PaceState, observation: PaceObservation, now: number): {readonly state: PaceState; readonly narrow: boolean} {
	const {rate} = observation;
	let next = state;
	if (observation.tokens !== undefined && observation.tokens > 0) next = {...next, tokensPerRequest: next.tokensPerRequest === 0 ? observation.tokens : 0.8 * next.tokensPerRequest + 0.2 * observation.tokens};
	if (!announcesQuota(rate)) return {state: next, narrow: observation.rateLimited};
	const ticket = observation.ticket ?? next.ticket;
	if (ticket >= next.ticket) next = {...next, ticket, requests: place(rate.requests, now) ?? next.requests, tokens: place(rate.tokens, now) ?? next.tokens};
	if (observation.rateLimited) {
		const spent = [rate.requests && rate.requests.remaining < 1 ? rate.requests : null, rate.tokens && rate.tokens.remaining < Math.max(1, next.tokensPerRequest) ? rate.tokens : null].filter((window): window is RateWindow => window !== null);
		if (spent.length > 0 && rate.retryAfterMs !== null) {
			// The server said when to try again: then one start goes and reads the new figures (a token
			// bucket's "reset" is when it is full again, long after it has room for the next call).
			const one = (window: PaceWindow | null, cost: number): PaceWindow | null => (window && window.remaining < cost ? {remaining: cost, limit: null, resetAt: null} : window);
			next = {...next, pausedUntil: Math.max(next.pausedUntil, now + Math.min(rate.retryAfterMs, MAX_HOLD_MS)), requests: one(next.requests, 1), tokens: one(next.tokens, Math.max(1, next.tokensPerRequest))};
		} else if (spent.length > 0) {
			const wait = Math.max(...spent.map((window) => window.resetInMs ?? PROBE_MS));
			next = {...next, pausedUntil: Math.max(next.pausedUntil, now + Math.min(wait, MAX_HOLD_MS))};
		}
	}
	return {state: next, narrow: false};
}

/** A window at time `at`: full again (when its size is known) or unknown once its reset has passed. */
function current(window: PaceWindow | null, at: number): PaceWindow | null {
	if (!window || window.resetAt === null || at < window.resetAt) return window;
	return window.limit === null ? null : {remaining: window.limit, limit: window.limit, resetAt: null};
}

/** The gap before the next start that spends `window` evenly until its reset. */
function spacing(window: PaceWindow | null, cost: number, at: number): number {
	if (!window || window.resetAt === null || cost <= 0) return 0;
	return (window.resetAt - at) / Math.max(1, window.remaining / cost);
}

/**
 * Asks for a start now. `waitMs` 0: it may go, and the state has spent its share; more: ask again
 * after that long (nothing is promised ahead, so a reading that arrives meanwhile is not spent twice).
 * Callers let one waiter at a time ask (limiter.ts `turnTaker`).
 */
export function claimStart(state: PaceState, now: number): {readonly state: PaceState; readonly waitMs: number} {
	const tokenCost = state.tokensPerRequest;
	const short = (window: PaceWindow | null, cost: number): window is PaceWindow => window !== null && cost > 0 && window.remaining < cost;
	// A server that named no reset: wait a probe's time, then let one start through to learn the new figures.
	const probe = (window: PaceWindow): PaceWindow => (window.resetAt === null ? {...window, resetAt: now + PROBE_MS} : window);
	let requests = current(state.requests, now);
	let tokens = current(state.tokens, now);
	if (short(requests, 1) || short(tokens, tokenCost)) {
		if (short(requests, 1)) requests = probe(requests);
		if (short(tokens, tokenCost)) tokens = probe(tokens);
		const until = Math.max(short(requests, 1) ? requests.resetAt! : now, short(tokens, tokenCost) ? tokens.resetAt! : now);
		return {state: {...state, requests, tokens}, waitMs: until - now};
	}
	const due = Math.max(state.nextAt, state.pausedUntil);
	if (due > now) return {state: {...state, requests, tokens}, waitMs: due - now};
	const gap = Math.min(Math.max(spacing(requests, 1, now), spacing(tokens, tokenCost, now)), MAX_HOLD_MS);
	const spend = (window: PaceWindow | null, cost: number) => (window ? {...window, remaining: Math.max(0, window.remaining - cost)} : null);
	// The next start is placed from this one's slot, not from when its timer fired: on a loaded machine
	// timers fire late, and counting from "now" would lose that lateness at every start (one gap may be
	// caught up; the count of what is left still bounds every start).
	const slot = state.nextAt > 0 ? Math.max(state.nextAt, now - gap) : now;
	return {state: {...state, requests: spend(requests, 1), tokens: spend(tokens, tokenCost), nextAt: slot + gap}, waitMs: 0};
}

/*
 * The state as numbers, for a SharedArrayBuffer (NaN for "unknown"): requests (remaining, limit,
 * resetAt), tokens (the same), tokensPerRequest, nextAt, pausedUntil, ticket.
 */
export const PACE_FIELDS = 10;

export function writePace(state: PaceState, into: Float64Array, at: number): void {
	const window = (value: PaceWindow | null, offset: number) => {
		into[at + offset] = value ? value.remaining : NaN;
		into[at + offset + 1] = value?.limit ?? NaN;
		into[at + offset + 2] = value?.resetAt ?? NaN;
	};
	window(state.requests, 0);
	window(state.tokens, 3);
	into[at + 6] = state.tokensPerRequest;
	into[at + 7] = state.nextAt;
	into[at + 8] = state.pausedUntil;
	into[at + 9] = state.ticket;
}

export function readPace(from: Float64Array, at: number): PaceState {
	const orNull = (value: number) => (Number.isNaN(value) ? null : value);
	const window = (offset: number): PaceWindow | null => (Number.isNaN(from[at + offset]!) ? null : {remaining: from[at + offset]!, limit: orNull(from[at + offset + 1]!), resetAt: orNull(from[at + offset + 2]!)});
	return {requests: window(0), tokens: window(3), tokensPerRequest: from[at + 6]!, nextAt: from[at + 7]!, pausedUntil: from[at + 8]!, ticket: from[at + 9]!};
}
