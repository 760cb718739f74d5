import {fnv1a} from '../util/hash.js';

/** A mean with its percentile-bootstrap confidence interval. */
export type Estimate = {readonly n: number; readonly mean: number; readonly lo: number; readonly hi: number};

/** A small, fast, seedable PRNG (mulberry32): reports must come out the same on every run. */
export function seededRandom(key: string): () => number {
	let state = fnv1a(key) || 1;
	return () => {
		state = (state + 0x6d2b79f5) | 0;
		let t = state;
		t = Math.imul(t ^ (t >>> 15), t | 1);
		t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
		return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
	};
}

export type BootstrapOptions = {
	/** @default 2000 */
	readonly resamples?: number;
	/** @default 0.95 */
	readonly confidence?: number;
	/** Seeds the resampling so the same data always gives the same interval. @default "cultureconverse" */
	readonly seed?: string;
};

/**
 * Mean and percentile bootstrap interval: resample the values with replacement `resamples` times and
 * take the (1-c)/2 and (1+c)/2 quantiles of the resampled means. With one value the interval is that
 * value (there is nothing to resample); with none there is no estimate.
 */
export function bootstrapMean(values: readonly number[], options: BootstrapOptions = {}): Estimate | null {
	const n = values.length;
	if (n === 0) return null;
	const mean = values.reduce((sum, value) => sum + value, 0) / n;
	if (n === 1) return {n, mean, lo: mean, hi: mean};
	const resamples = options.resamples ?? 2000;
	const confidence = options.confidence ?? 0.95;
	const random = seededRandom(`${options.seed ?? 'cultureconverse'}:${n}`);
	const means = new Float64Array(resamples);
	for (let r = 0; r < resamples; r++) {
		let sum = 0;
		for (let i = 0; i < n; i++) sum += values[Math.floor(random() * n)]!;
		means[r] = sum / n;
	}
	means.sort();
	const at = (q: number) => means[Math.min(resamples - 1, Math.max(0, Math.floor(q * resamples)))]!;
	return {n, mean, lo: at((1 - confidence) / 2), hi: at((1 + confidence) / 2)};
}
