import {fnv1a} from '../util/hash.js';

/**
 * A mean (or share) with its confidence interval. `seeds` is how many independent units (seeds, or
 * dialogues for agreement) the interval rests on; `method` says how it was made.
 */
export type Estimate = {
	readonly n: number;
	readonly mean: number;
	readonly lo: number;
	readonly hi: number;
	readonly seeds?: number;
	readonly method?: 'bootstrap' | 'cluster-bootstrap' | 'wilson';
};

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

/** Below this many independent units a slice's interval is flagged as unreliable. */
export const SMALL_SLICE = 10;

/**
 * Mean and percentile bootstrap interval: resample the values with replacement `resamples` times and
 * take the (1-c)/2 and (1+c)/2 quantiles of the resampled means. With one value the interval is that
 * value (there is nothing to resample); with none there is no estimate. The values are resampled in
 * the order given: callers that want order-free intervals pass them in a canonical order
 * (`clusterMean` does).
 */
export function bootstrapMean(values: readonly number[], options: BootstrapOptions = {}): Estimate | null {
	return clusterBootstrap(values.map((value) => [value]), options, 'bootstrap');
}

/** One scored episode (or rating) for an interval: its cluster (the seed), a stable key, its value. */
export type Observation = {readonly cluster: string; readonly key: string; readonly value: number};

const byText = (a: string, b: string) => (a < b ? -1 : a > b ? 1 : 0);

/** Observations grouped by cluster, clusters and members in canonical (sorted) order. */
function clustersOf(observations: readonly Observation[]): number[][] {
	const groups = new Map<string, Observation[]>();
	for (const observation of observations) {
		const list = groups.get(observation.cluster);
		if (list) list.push(observation);
		else groups.set(observation.cluster, [observation]);
	}
	return [...groups.keys()].sort(byText).map((cluster) => groups.get(cluster)!.sort((a, b) => byText(a.key, b.key)).map((o) => o.value));
}

/**
 * Mean of every observation with a seed-cluster bootstrap interval: the seeds are resampled with
 * replacement, each bringing all of its episodes (repeats with --trials, or several variants of one
 * seed in one slice), so repeats of a seed are not mistaken for independent evidence. With one
 * episode per seed this is the plain episode bootstrap. Observations are put in a canonical order
 * (by cluster, then key) first, so the interval does not depend on the order sessions were listed in.
 */
export function clusterMean(observations: readonly Observation[], options: BootstrapOptions = {}): Estimate | null {
	const clusters = clustersOf(observations);
	return clusterBootstrap(clusters, options, clusters.length < observations.length ? 'cluster-bootstrap' : 'bootstrap');
}

function clusterBootstrap(clusters: readonly (readonly number[])[], options: BootstrapOptions, method: 'bootstrap' | 'cluster-bootstrap'): Estimate | null {
	const m = clusters.length;
	const sums = clusters.map((values) => values.reduce((sum, value) => sum + value, 0));
	const counts = clusters.map((values) => values.length);
	const n = counts.reduce((sum, count) => sum + count, 0);
	if (n === 0) return null;
	const mean = sums.reduce((sum, value) => sum + value, 0) / n;
	if (m === 1) return {n, mean, lo: mean, hi: mean, seeds: m, method};
	const resamples = options.resamples ?? 2000;
	const confidence = options.confidence ?? 0.95;
	const random = seededRandom(`${options.seed ?? 'cultureconverse'}:${n}${m === n ? '' : `/${m}`}`);
	const means = new Float64Array(resamples);
	for (let r = 0; r < resamples; r++) {
		let sum = 0;
		let count = 0;
		for (let i = 0; i < m; i++) {
			const pick = Math.floor(random() * m);
			sum += sums[pick]!;
			count += counts[pick]!;
		}
		means[r] = sum / count;
	}
	means.sort();
	const at = (q: number) => means[Math.min(resamples - 1, Math.max(0, Math.floor(q * resamples)))]!;
	return {n, mean, lo: at((1 - confidence) / 2), hi: at((1 + confidence) / 2), seeds: m, method};
}

/**
 * The standard normal quantile (Acklam's rational approximation, relative error below 1.2e-9): the z
 * of a Wilson interval at any confidence level, not only 95%.
 */
export function normalQuantile(p: number): number {
	if (p <= 0 || p >= 1) throw new RangeError(`normalQuantile needs 0 < p < 1, got ${p}`);
	const a = [-3.969683028665376e1, 2.209460984245205e2, -2.759285104469687e2, 1.38357751867269e2, -3.066479806614716e1, 2.506628277459239];
	const b = [-5.447609879822406e1, 1.615858368580409e2, -1.556989798598866e2, 6.680131188771972e1, -1.328068155288572e1];
	const c = [-7.784894002430293e-3, -3.223964580411365e-1, -2.400758277161838, -2.549732539343734, 4.374664141464968, 2.938163982698783];
	const d = [7.784695709041462e-3, 3.224671290700398e-1, 2.445134137142996, 3.754408661907416];
	const low = 0.02425;
	if (p < low) {
		const q = Math.sqrt(-2 * Math.log(p));
		return (((((c[0]! * q + c[1]!) * q + c[2]!) * q + c[3]!) * q + c[4]!) * q + c[5]!) / ((((d[0]! * q + d[1]!) * q + d[2]!) * q + d[3]!) * q + 1);
	}
	if (p > 1 - low) return -normalQuantile(1 - p);
	const q = p - 0.5;
	const r = q * q;
	return ((((((a[0]! * r + a[1]!) * r + a[2]!) * r + a[3]!) * r + a[4]!) * r + a[5]!) * q) / (((((b[0]! * r + b[1]!) * r + b[2]!) * r + b[3]!) * r + b[4]!) * r + 1);
}

/** Wilson score interval for a share of `successes` in `n` (n may be an effective, non-integer size). */
export function wilson(share: number, n: number, confidence = 0.95): {lo: number; hi: number} {
	const z = normalQuantile((1 + confidence) / 2);
	const z2 = z * z;
	const centre = (share + z2 / (2 * n)) / (1 + z2 / n);
	const half = (z / (1 + z2 / n)) * Math.sqrt((share * (1 - share)) / n + z2 / (4 * n * n));
	return {lo: Math.max(0, centre - half), hi: Math.min(1, centre + half)};
}

/**
 * A share (observations of 0 or 1) with a Wilson score interval, which unlike a percentile bootstrap
 * never collapses to zero width at 0% or 100%. When seeds repeat (trials, or variants of one seed),
 * the interval uses the effective sample size n / deff, with Kish's design effect deff estimated from
 * the seed clusters (between-cluster variance of the ratio estimator over the binomial variance),
 * kept between 1 and n / seeds; when every episode agrees the design effect cannot be estimated and
 * the seeds alone count (deff = n / seeds), the cautious choice.
 */
export function clusterShare(observations: readonly Observation[], options: BootstrapOptions = {}): Estimate | null {
	const clusters = clustersOf(observations);
	const n = observations.length;
	if (n === 0) return null;
	const m = clusters.length;
	const successes = observations.reduce((sum, o) => sum + o.value, 0);
	const share = successes / n;
	let effective = n;
	if (m < n) {
		const binomial = (share * (1 - share)) / n;
		if (binomial === 0 || m < 2) effective = m;
		else {
			const between = (m / (m - 1)) * clusters.reduce((sum, values) => sum + (values.reduce((s, v) => s + v, 0) - share * values.length) ** 2, 0) / (n * n);
			effective = Math.min(n, Math.max(m, n / Math.max(1, between / binomial)));
		}
	}
	const {lo, hi} = wilson(share, effective, options.confidence ?? 0.95);
	return {n, mean: share, lo, hi, seeds: m, method: 'wilson'};
}
