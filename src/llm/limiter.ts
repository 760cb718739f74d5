/** A FIFO semaphore: at most `concurrency` tasks run at once; the rest wait in arrival order. */
export type Limiter = {
	run<T>(task: () => Promise<T>, signal?: AbortSignal): Promise<T>;
	readonly active: number;
	readonly pending: number;
};

/**
 * One limiter is shared by every role of a run, so the endpoint sees one bounded stream of requests
 * however the engine fans calls out. A waiting task whose signal aborts leaves the queue at once.
 */
export function createLimiter(concurrency: number): Limiter {
	if (!Number.isInteger(concurrency) || concurrency < 1) throw new Error(`concurrency must be a positive integer (got ${concurrency})`);
	let active = 0;
	const queue: Array<() => void> = [];

	const release = () => {
		active--;
		const next = queue.shift();
		if (next) next();
	};

	const acquire = (signal?: AbortSignal) =>
		new Promise<void>((resolve, reject) => {
			if (signal?.aborted) return reject(abortReason(signal));
			if (active < concurrency) {
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
				release();
			}
		},
		get active() {
			return active;
		},
		get pending() {
			return queue.length;
		},
	};
}

function abortReason(signal: AbortSignal): Error {
	return signal.reason instanceof Error ? signal.reason : Object.assign(new Error('aborted'), {name: 'AbortError'});
}
