/** A slot held by one request: its ticket says when it was sent relative to the limiter's changes. */
export type Slot = {readonly ticket: number};

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

	return {
		async run(task, signal) {
			await acquire(signal);
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
}

function abortReason(signal: AbortSignal): Error {
	return signal.reason instanceof Error ? signal.reason : Object.assign(new Error('aborted'), {name: 'AbortError'});
}
