/** Runs `work` on every element, at most `parallel` at a time, and stops taking new ones once `signal` aborts. */
export async function eachLimited<T>(list: readonly T[], parallel: number, signal: AbortSignal | undefined, work: (value: T) => Promise<void>): Promise<void> {
	let next = 0;
	const workers = Array.from({length: Math.max(1, Math.min(parallel, list.length))}, async () => {
		while (next < list.length && !signal?.aborted) await work(list[next++]!);
	});
	await Promise.all(workers);
}
