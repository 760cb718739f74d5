import {fnv1a} from '../util/hash.js';

/*
 * The one interval engine. Every mean, difference, share and agreement figure of every report view
 * (the main table, traps, scores, paired deltas, disparities, agreement, noise, CRISP) gets its
 * interval here, so the rules hold once:
 * - the unit resampled is the cluster (the seed for episodes; the norm for CRISP items; a stratum for
 *   tier pairs): repeats of a seed (trials, variants) are never taken for independent evidence;
 * - the resampling stream is derived from the user's seed, the statistic and the identities of the
 *   clusters and observations resampled (sorted), never from file order or a row's position: the same
 *   observations give the same interval in every view and every row, and a new file order changes
 *   nothing;
 * - proportions get a Wilson interval on the effective number of clusters;
 * - when no interval can be made (one cluster, every value equal, no spread under resampling) the
 *   estimate says `n/a` and why (`na`), instead of a zero-width interval.
 */

/** The documented default seed of every report's resampling (`--seed`). */
export const DEFAULT_SEED = 'cultureconverse';
/** The default number of bootstrap resamples and permutations (`--resamples`). */
export const DEFAULT_RESAMPLES = 2000;
export const DEFAULT_CONFIDENCE = 0.95;

/** Below this many independent units (seeds, units, pairs, items) a row is marked as resting on little. */
export const SMALL_SLICE = 10;

/** The one small-sample rule: every table marks the same rows, by this test on its unit count. */
export const isSmall = (units: number) => units > 0 && units < SMALL_SLICE;

export type Method = 'bootstrap' | 'cluster-bootstrap' | 'wilson' | 'permutation';

/**
 * A figure with its confidence interval. `seeds` is how many independent units (clusters) it rests
 * on; `lo`/`hi` are null with `na` saying why when no interval can be made.
 */
export type Estimate = {
	readonly n: number;
	readonly mean: number;
	readonly lo: number | null;
	readonly hi: number | null;
	readonly seeds: number;
	readonly method: Method;
	/** Bootstrap resamples behind the interval (null for Wilson). */
	readonly resamples: number | null;
	/** Why there is no interval (one seed, every value equal, ...); null when there is one. */
	readonly na: string | null;
};

export type BootstrapOptions = {
	/** @default 2000 */
	readonly resamples?: number;
	/** @default 0.95 */
	readonly confidence?: number;
	/** Seeds the resampling, so the same data always gives the same interval. @default "cultureconverse" */
	readonly seed?: string;
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

/** One observation for an interval: its cluster (the seed), a stable key (the session id), its value. */
export type Observation = {readonly cluster: string; readonly key: string; readonly value: number};

const byText = (a: string, b: string) => (a < b ? -1 : a > b ? 1 : 0);
const EQUAL = 1e-12;

/** Observations grouped by cluster, clusters and members in canonical (sorted) order. */
export function clustersOf<T extends {readonly cluster: string; readonly key: string}>(observations: readonly T[]): Array<{cluster: string; members: T[]}> {
	const groups = new Map<string, T[]>();
	for (const observation of observations) {
		const list = groups.get(observation.cluster);
		if (list) list.push(observation);
		else groups.set(observation.cluster, [observation]);
	}
	return [...groups.keys()].sort(byText).map((cluster) => ({cluster, members: groups.get(cluster)!.sort((a, b) => byText(a.key, b.key))}));
}

/**
 * The resampling stream of a statistic over these clusters: a PRNG keyed by the seed, the statistic
 * and a hash of the (sorted) cluster and member identities. Same data, same stream, whatever view,
 * row or file order it comes from.
 */
export function streamFor(options: BootstrapOptions, statistic: string, clusters: ReadonlyArray<{cluster: string; members: ReadonlyArray<{key: string}>}>): () => number {
	const identity = fnv1a(clusters.map((c) => `${c.cluster}\u0001${c.members.map((m) => m.key).join('\u0002')}`).join('\u0003')).toString(36);
	return seededRandom(`${options.seed ?? DEFAULT_SEED}|${statistic}|${identity}`);
}

const percentile = (sorted: Float64Array, q: number) => sorted[Math.min(sorted.length - 1, Math.max(0, Math.floor(q * sorted.length)))]!;

/** The reason a set of values has no interval, or null. */
function degenerate(values: readonly number[], clusters: number, what = 'seed'): string | null {
	if (clusters < 2) return `one ${what}`;
	const first = values[0]!;
	if (values.every((value) => Math.abs(value - first) < EQUAL)) return `every value is ${round(first)}`;
	return null;
}

const round = (value: number) => String(Math.round(value * 1000) / 1000 || 0);

/**
 * Mean of every observation with a seed-cluster percentile bootstrap interval: the clusters are
 * resampled with replacement, each bringing all of its observations. With one observation per cluster
 * this is the plain bootstrap. `statistic` names what is estimated (it keys the stream).
 */
export function clusterMean(observations: readonly Observation[], options: BootstrapOptions = {}, statistic = 'mean', unit = 'seed'): Estimate | null {
	const n = observations.length;
	if (n === 0) return null;
	const clusters = clustersOf(observations);
	const m = clusters.length;
	const sums = clusters.map((c) => c.members.reduce((sum, o) => sum + o.value, 0));
	const counts = clusters.map((c) => c.members.length);
	const mean = sums.reduce((a, b) => a + b, 0) / n;
	const method = m < n ? 'cluster-bootstrap' : 'bootstrap';
	const resamples = options.resamples ?? DEFAULT_RESAMPLES;
	const base = {n, mean, seeds: m, method, resamples} as const;
	const na = degenerate(observations.map((o) => o.value), m, unit);
	if (na) return {...base, lo: null, hi: null, na};
	const random = streamFor(options, statistic, clusters);
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
	return finish(base, means, options);
}

function finish(base: Omit<Estimate, 'lo' | 'hi' | 'na'>, draws: Float64Array, options: BootstrapOptions): Estimate {
	const finite = draws.filter((value) => Number.isFinite(value)).sort();
	if (finite.length === 0) return {...base, lo: null, hi: null, na: 'not estimable under resampling'};
	const confidence = options.confidence ?? DEFAULT_CONFIDENCE;
	const lo = percentile(finite, (1 - confidence) / 2);
	const hi = percentile(finite, (1 + confidence) / 2);
	if (hi - lo < EQUAL) return {...base, lo: null, hi: null, na: 'no spread under resampling'};
	return {...base, lo, hi, na: null};
}

/** Mean and interval of plain values, each its own cluster (kept for callers with no clusters). */
export function bootstrapMean(values: readonly number[], options: BootstrapOptions = {}, statistic = 'mean'): Estimate | null {
	return clusterMean(values.map((value, index) => ({cluster: String(index).padStart(8, '0'), key: '', value})), options, statistic, 'value');
}

/**
 * mean(b) − mean(a) for two independent groups of clustered observations (standard against trap
 * seeds, one slice against another), with a stratified cluster bootstrap: each group's clusters are
 * resampled within the group.
 */
export function clusterDifference(a: readonly Observation[], b: readonly Observation[], options: BootstrapOptions = {}, statistic = 'difference'): Estimate | null {
	if (a.length === 0 || b.length === 0) return null;
	const groups = [clustersOf(a), clustersOf(b)];
	const sums = groups.map((g) => g.map((c) => c.members.reduce((sum, o) => sum + o.value, 0)));
	const counts = groups.map((g) => g.map((c) => c.members.length));
	const meanOf = (i: number) => sums[i]!.reduce((x, y) => x + y, 0) / counts[i]!.reduce((x, y) => x + y, 0);
	const point = meanOf(1) - meanOf(0);
	const resamples = options.resamples ?? DEFAULT_RESAMPLES;
	const m = groups[0]!.length + groups[1]!.length;
	const base = {n: a.length + b.length, mean: point, seeds: m, method: m < a.length + b.length ? 'cluster-bootstrap' : 'bootstrap', resamples} as const;
	if (groups[0]!.length < 2 || groups[1]!.length < 2) return {...base, lo: null, hi: null, na: `one ${groups[0]!.length < 2 ? 'seed on the first side' : 'seed on the second side'}`};
	const values = [...a, ...b].map((o) => o.value);
	if (values.every((value) => Math.abs(value - values[0]!) < EQUAL)) return {...base, lo: null, hi: null, na: `every value is ${round(values[0]!)}`};
	const random = streamFor(options, `${statistic}|a`, groups[0]!);
	const other = streamFor(options, `${statistic}|b`, groups[1]!);
	const draw = (i: number, rng: () => number) => {
		const k = sums[i]!.length;
		let sum = 0;
		let count = 0;
		for (let j = 0; j < k; j++) {
			const pick = Math.floor(rng() * k);
			sum += sums[i]![pick]!;
			count += counts[i]![pick]!;
		}
		return sum / count;
	};
	const diffs = new Float64Array(resamples);
	for (let r = 0; r < resamples; r++) diffs[r] = draw(1, other) - draw(0, random);
	return finish(base, diffs, options);
}

/**
 * Any statistic of clustered units (kappa, a correlation, alpha, a range), with a cluster bootstrap
 * interval: `compute` gets the units of a resample (clusters drawn with replacement) and returns the
 * statistic, or null when it is not defined for that resample. The point estimate is `compute` of all
 * units; null when that is not defined.
 */
export function clusterStatistic<T extends {readonly cluster: string; readonly key: string}>(units: readonly T[], compute: (units: readonly T[]) => number | null, options: BootstrapOptions = {}, statistic = 'statistic'): Estimate | null {
	if (units.length === 0) return null;
	const point = compute(units);
	if (point === null || !Number.isFinite(point)) return null;
	const clusters = clustersOf(units);
	const m = clusters.length;
	const resamples = options.resamples ?? DEFAULT_RESAMPLES;
	const base = {n: units.length, mean: point, seeds: m, method: m < units.length ? 'cluster-bootstrap' : 'bootstrap', resamples} as const;
	if (m < 2) return {...base, lo: null, hi: null, na: 'one seed'};
	const random = streamFor(options, statistic, clusters);
	const draws = new Float64Array(resamples);
	const sample: T[] = [];
	for (let r = 0; r < resamples; r++) {
		sample.length = 0;
		for (let i = 0; i < m; i++) sample.push(...clusters[Math.floor(random() * m)]!.members);
		draws[r] = compute(sample) ?? Number.NaN;
	}
	return finish(base, draws, options);
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
export function wilson(share: number, n: number, confidence = DEFAULT_CONFIDENCE): {lo: number; hi: number} {
	const z = normalQuantile((1 + confidence) / 2);
	const z2 = z * z;
	const centre = (share + z2 / (2 * n)) / (1 + z2 / n);
	const half = (z / (1 + z2 / n)) * Math.sqrt((share * (1 - share)) / n + z2 / (4 * n * n));
	return {lo: Math.max(0, centre - half), hi: Math.min(1, centre + half)};
}

/**
 * A share (observations in [0, 1], usually 0 or 1) with a Wilson score interval, which unlike a
 * percentile bootstrap never collapses to zero width at 0% or 100%. When clusters repeat (trials, or
 * variants of one seed), the interval uses the effective sample size n / deff, with Kish's design
 * effect deff estimated from the clusters (between-cluster variance of the ratio estimator over the
 * binomial variance), kept between 1 and n / clusters; when every observation agrees the design effect
 * cannot be estimated and the clusters alone count (deff = n / clusters), the cautious choice.
 */
export function clusterShare(observations: readonly Observation[], options: BootstrapOptions = {}): Estimate | null {
	const n = observations.length;
	if (n === 0) return null;
	const clusters = clustersOf(observations).map((c) => c.members.map((o) => o.value));
	const m = clusters.length;
	const share = observations.reduce((sum, o) => sum + o.value, 0) / n;
	let effective = n;
	if (m < n) {
		const binomial = (share * (1 - share)) / n;
		if (binomial === 0 || m < 2) effective = m;
		else {
			const between = ((m / (m - 1)) * clusters.reduce((sum, values) => sum + (values.reduce((s, v) => s + v, 0) - share * values.length) ** 2, 0)) / (n * n);
			effective = Math.min(n, Math.max(m, n / Math.max(1, between / binomial)));
		}
	}
	const {lo, hi} = wilson(share, effective, options.confidence ?? DEFAULT_CONFIDENCE);
	return {n, mean: share, lo, hi, seeds: m, method: 'wilson', resamples: null, na: null};
}

/**
 * Permutation p-value: the share of `draws` (the statistic under shuffled labels) at least as extreme
 * as `observed`, counting the observed arrangement once ((1 + k) / (1 + P)), so it is never 0.
 */
export function permutationP(observed: number, draws: ArrayLike<number>): number {
	let extreme = 0;
	for (let i = 0; i < draws.length; i++) if (draws[i]! >= observed - EQUAL) extreme++;
	return (1 + extreme) / (1 + draws.length);
}

/**
 * Holm's step-down adjustment: p-values of a family of comparisons, adjusted so the family-wise error
 * rate stays at the level (the i-th smallest times m − i + 1, made monotone, capped at 1). Nulls stay null.
 */
export function holm(pValues: readonly (number | null)[]): Array<number | null> {
	const present = pValues.map((p, index) => ({p, index})).filter((entry): entry is {p: number; index: number} => entry.p !== null).sort((a, b) => a.p - b.p || a.index - b.index);
	const m = present.length;
	const out: Array<number | null> = pValues.map(() => null);
	let running = 0;
	present.forEach((entry, rank) => {
		running = Math.max(running, Math.min(1, (m - rank) * entry.p));
		out[entry.index] = running;
	});
	return out;
}

/** A stable shuffle of `items` (Fisher–Yates) with a given PRNG, in place. */
export function shuffle<T>(items: T[], random: () => number): T[] {
	for (let i = items.length - 1; i > 0; i--) {
		const j = Math.floor(random() * (i + 1));
		[items[i], items[j]] = [items[j]!, items[i]!];
	}
	return items;
}

/** The interval rules in words: what every report prints under its tables. */
export const INTERVALS = 'means and differences: seed-cluster percentile bootstrap (seeds resampled with all their episodes; the stream derived from the seed, the statistic and the units, never file order); shares: Wilson score interval on the effective number of seeds; n/a where no interval can be made (one seed, every value equal)';
