/** A FIFO semaphore whose width adapts to rate limits; the rest wait in arrival order. */
export type Limiter = {
	run<T>(task: () => Promise<T>, signal?: AbortSignal): Promise<T>;
	/** The endpoint said 429: halve the width (never below 1). */
	rateLimited(): void;
	/** A request succeeded: after `limit` successes in a row the width grows by one, up to the cap. */
	succeeded(): void;
	readonly active: number;
	readonly pending: number;
	/** Current width: the configured cap, or less after rate limits. */
	readonly limit: number;
	readonly max: number;
};

export type LimiterOptions = {
	/** Additive increase / multiplicative decrease on 429s. @default true */
	readonly adaptive?: boolean;
	/** Called whenever the width changes, for progress displays. */
	readonly onLimitChange?: (limit: number, max: number) => void;
};

/**
 * One limiter is shared by every role of a run, so the endpoint sees one bounded stream of requests
 * however the engine and a batch fan calls out. A waiting task whose signal aborts leaves the queue
 * at once. With `adaptive`, a 429 halves how many requests may be in flight and a run of successes
 * wins one back (AIMD, as TCP does): a batch that hits a quota slows down instead of turning a rate
 * limit into a storm of retries, and speeds up again when the quota allows.
 */
export function createLimiter(concurrency: number, options: LimiterOptions = {}): Limiter {
	if (!Number.isInteger(concurrency) || concurrency < 1) throw new Error(`concurrency must be a positive integer (got ${concurrency})`);
	const adaptive = options.adaptive ?? true;
	let limit = concurrency;
	let streak = 0;
	let active = 0;
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
			try {
				return await task();
			} finally {
				active--;
				drain();
			}
		},
		rateLimited() {
			if (adaptive) setLimit(Math.max(1, Math.floor(limit / 2)));
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
		max: concurrency,
	};
}

function abortReason(signal: AbortSignal): Error {
	return signal.reason instanceof Error ? signal.reason : Object.assign(new Error('aborted'), {name: 'AbortError'});
}
