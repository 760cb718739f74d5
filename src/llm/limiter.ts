import {EMPTY_PACE, type PaceObservation, type PaceState, claimStart, observePace} from './pacer.js';
import {readRateHeaders} from './rateHeaders.js';

/** A slot held by one request: its ticket says when it was sent relative to the limiter's changes. */
export type Slot = {readonly ticket: number};

/**
 * How a limiter meets rate limits. `headers` (the default): pace by what the server says is left
 * (x-ratelimit-*, anthropic-ratelimit-*, retry-after; pacer.ts), and narrow the width on a 429 only
 * when it came without such headers. `aimd`: the width adaptation alone, every 429 narrowing (the
 * behaviour before header pacing, kept for comparison: `npm run bench:batch`).
 */
export type Pacing = 'headers' | 'aimd';

/** What one reply (or HTTP error) said about the endpoint's limits: fed to `Limiter.observe`. */
export type LimitObservation = {
	/** The slot's ticket of the request it answered. */
	readonly ticket?: number;
	readonly endpoint?: string;
	/** True for a 429 that is a rate limit (OpenAI's `insufficient_quota` 429 is not). */
	readonly rateLimited: boolean;
	readonly headers?: Headers;
	/** Tokens the call used, when the reply said. */
	readonly tokens?: number;
};

/** An observation as the pacer reads it (headers parsed against `now`). */
export function paceObservation(observation: LimitObservation, now: number): PaceObservation {
	return {rateLimited: observation.rateLimited, rate: readRateHeaders(observation.headers, now), ...(observation.ticket !== undefined ? {ticket: observation.ticket} : {}), ...(observation.tokens !== undefined ? {tokens: observation.tokens} : {})};
}

/** The response headers an SDK error carries (the openai SDK's APIError has them), if any. */
export function headersOf(error: unknown): Headers | undefined {
	const headers = (error as {headers?: unknown} | null)?.headers;
	return headers instanceof Headers ? headers : undefined;
}

/** A FIFO semaphore whose width adapts to rate limits; the rest wait in arrival order. */
export type Limiter = {
	/**
	 * Runs `task` in a slot. `endpoint` is where the request goes (its base URL): a limiter shared by
	 * the workers of a distributed batch keeps one budget per endpoint; an in-process limiter has one
	 * budget and ignores it.
	 */
	run<T>(task: (slot: Slot) => Promise<T>, signal?: AbortSignal, endpoint?: string): Promise<T>;
	/**
	 * The endpoint said 429 to the request holding `ticket`: narrow the width, at most once per window
	 * (a 429 for a request sent before the last narrowing belongs to the same overload and is ignored).
	 */
	rateLimited(ticket?: number): void;
	/**
	 * A reply or an HTTP error arrived (every one, not only 429s): with `pacing: 'headers'` its rate
	 * headers pace the next starts to that endpoint, and a 429 narrows the width only when it carried
	 * none; with `'aimd'` a 429 narrows (as `rateLimited`).
	 */
	observe(observation: LimitObservation): void;
	/** A request succeeded: after `limit` successes (one round trip at full width) the width grows by one, up to the cap. */
	succeeded(): void;
	readonly active: number;
	readonly pending: number;
	/** Current width: the configured cap, or less after rate limits. */
	readonly limit: number;
	readonly max: number;
	/** Requests still running after their slot was given back (slow or hung: see `leaseMs`). */
	readonly overdue: number;
};

export type LimiterOptions = {
	/** Additive increase / multiplicative decrease on 429s. @default true */
	readonly adaptive?: boolean;
	/** @default 'headers' */
	readonly pacing?: Pacing;
	/** Called whenever the width changes, for progress displays. */
	readonly onLimitChange?: (limit: number, max: number) => void;
	/**
	 * How long a request may hold its slot. A request still running after this gives its slot back (it
	 * goes on and is counted as overdue), so one hung call never blocks every other call when the
	 * width is narrow. Default: four times the recent typical request time, and at least 5 s.
	 */
	readonly leaseMs?: number;
	/** Injected for tests. */
	readonly setTimer?: (callback: () => void, ms: number) => {unref?: () => void};
	readonly clearTimer?: (timer: unknown) => void;
	readonly now?: () => number;
};

/** The width kept after a narrowing: gentle, because a quota is a hard line, not a congested link. */
const DECREASE = 0.85;
const MIN_LEASE_MS = 5000;

/**
 * One limiter is shared by every role of a run, so the endpoint sees one bounded stream of requests
 * however the engine and a batch fan calls out. A waiting task whose signal aborts leaves the queue
 * at once. With `adaptive`, a 429 narrows how many requests may be in flight, once per window (the
 * requests sent before a narrowing cannot know about it), and each round trip at full width wins one
 * back: against a server that admits 32 at a time this settles between 28 and 33 in flight instead of
 * a sawtooth between 16 and 32 (halving on every 429 of a burst lost a third of the quota).
 */
export function createLimiter(concurrency: number, options: LimiterOptions = {}): Limiter {
	if (!Number.isInteger(concurrency) || concurrency < 1) throw new Error(`concurrency must be a positive integer (got ${concurrency})`);
	const adaptive = options.adaptive ?? true;
	const pacing = options.pacing ?? 'headers';
	const now = options.now ?? Date.now;
	const setTimer = options.setTimer ?? ((callback, ms) => setTimeout(callback, ms));
	const clearTimer = options.clearTimer ?? ((timer) => clearTimeout(timer as NodeJS.Timeout));
	let limit = concurrency;
	let streak = 0;
	let active = 0;
	let overdue = 0;
	let issued = 0;
	let narrowedAt = 0;
	/** Recent typical request time (exponential moving average of finished requests). */
	let typicalMs: number | null = null;
	const queue: Array<() => void> = [];
	/** Pacing per endpoint: the width is one budget, but each server's own quota is its own. */
	const paces = new Map<string, PaceState>();

	const drain = () => {
		while (active < limit && queue.length > 0) queue.shift()!();
	};
	const setLimit = (next: number) => {
		if (next === limit) return;
		limit = next;
		streak = 0;
		options.onLimitChange?.(limit, concurrency);
		drain();
	};
	const leaseMs = () => options.leaseMs ?? Math.max(MIN_LEASE_MS, 4 * (typicalMs ?? MIN_LEASE_MS));

	const acquire = (signal?: AbortSignal) =>
		new Promise<void>((resolve, reject) => {
			if (signal?.aborted) return reject(abortReason(signal));
			if (active < limit && queue.length === 0) {
				active++;
				return resolve();
			}
			const start = () => {
				signal?.removeEventListener('abort', onAbort);
				active++;
				resolve();
			};
			const onAbort = () => {
				const index = queue.indexOf(start);
				if (index !== -1) queue.splice(index, 1);
				reject(abortReason(signal!));
			};
			signal?.addEventListener('abort', onAbort, {once: true});
			queue.push(start);
		});

	const turn = turnTaker(
		(endpoint) => {
			const claimed = claimStart(paces.get(endpoint) ?? EMPTY_PACE, now());
			paces.set(endpoint, claimed.state);
			return claimed.waitMs;
		},
		(ms, signal) => hold(ms, signal, setTimer, clearTimer),
	);
	/** Waits for the endpoint's next start by its quota (nothing to wait for before it sent rate headers). */
	const paced = async (endpoint: string, signal?: AbortSignal) => {
		if (pacing === 'headers' && paces.has(endpoint)) await turn(endpoint, signal);
	};

	const limiter: Limiter = {
		async run(task, signal, endpoint = 'default') {
			await acquire(signal);
			try {
				await paced(endpoint, signal);
			} catch (error) {
				active--;
				drain();
				throw error;
			}
			const slot = {ticket: ++issued};
			const started = now();
			let held = true;
			const giveBack = () => {
				if (!held) return;
				held = false;
				active--;
				drain();
			};
			// A slow or hung request gives its slot back and goes on.
			const lease = setTimer(() => {
				if (!held) return;
				overdue++;
				giveBack();
			}, leaseMs());
			lease.unref?.();
			try {
				const result = await task(slot);
				const took = now() - started;
				typicalMs = typicalMs === null ? took : 0.9 * typicalMs + 0.1 * took;
				return result;
			} finally {
				clearTimer(lease);
				if (held) giveBack();
				else overdue--;
			}
		},
		observe(observation) {
			if (pacing === 'aimd') {
				if (observation.rateLimited) limiter.rateLimited(observation.ticket);
				return;
			}
			const endpoint = observation.endpoint ?? 'default';
			const {state, narrow} = observePace(paces.get(endpoint) ?? EMPTY_PACE, paceObservation(observation, now()), now());
			paces.set(endpoint, state);
			if (narrow) limiter.rateLimited(observation.ticket);
		},
		rateLimited(ticket) {
			if (!adaptive) return;
			if (ticket !== undefined && ticket <= narrowedAt) return;
			narrowedAt = issued;
			setLimit(Math.max(1, Math.floor(limit * DECREASE)));
		},
		succeeded() {
			if (!adaptive || limit >= concurrency) return;
			if (++streak >= limit) setLimit(limit + 1);
		},
		get active() {
			return active;
		},
		get pending() {
			return queue.length;
		},
		get limit() {
			return limit;
		},
		get overdue() {
			return overdue;
		},
		max: concurrency,
	};
	return limiter;
}

/**
 * Turns at a pacer, one waiter at a time per endpoint: the head asks (`claim` gives how long to wait,
 * 0 to go), sleeps and asks again; the rest queue behind it. A start is granted only when it goes, so
 * the server's next reading is never spent ahead of time.
 */
export function turnTaker(claim: (endpoint: string) => number | Promise<number>, sleep: (ms: number, signal?: AbortSignal) => Promise<void>): (endpoint: string, signal?: AbortSignal) => Promise<void> {
	const gates = new Map<string, Promise<void>>();
	return (endpoint, signal) => {
		const turn = (gates.get(endpoint) ?? Promise.resolve()).then(async () => {
			for (let wait = await claim(endpoint); wait > 0; wait = await claim(endpoint)) await sleep(wait, signal);
		});
		gates.set(endpoint, turn.catch(() => undefined));
		return turn;
	};
}

/** Resolves after `ms` (at once when it is not positive); rejects when `signal` aborts first. */
export function hold(ms: number, signal: AbortSignal | undefined, setTimer: (callback: () => void, ms: number) => {unref?: () => void} = (callback, wait) => setTimeout(callback, wait), clearTimer: (timer: unknown) => void = (timer) => clearTimeout(timer as NodeJS.Timeout)): Promise<void> {
	if (signal?.aborted) return Promise.reject(abortReason(signal));
	if (ms <= 0) return Promise.resolve();
	return new Promise<void>((resolve, reject) => {
		const onAbort = () => {
			clearTimer(timer);
			reject(abortReason(signal!));
		};
		const timer = setTimer(() => {
			signal?.removeEventListener('abort', onAbort);
			resolve();
		}, ms);
		timer.unref?.();
		signal?.addEventListener('abort', onAbort, {once: true});
	});
}

function abortReason(signal: AbortSignal): Error {
	return signal.reason instanceof Error ? signal.reason : Object.assign(new Error('aborted'), {name: 'AbortError'});
}
