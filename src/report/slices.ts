import type {SessionSummary} from '../domain/sessionSummary.js';
import {type BootstrapOptions, DEFAULT_RESAMPLES, type Observation, clustersOf, holm, permutationP, shuffle, streamFor} from './bootstrap.js';
import {CELL_KEYS, type CellKey} from './cells.js';

/*
 * Slices within a cell (region, identity, age, gender, tier, ...) and the tests of their differences:
 * the range (max − min of the slice means) with a stratified seed-cluster bootstrap interval and a
 * permutation p-value, and each slice's deviation from its parent with a permutation p-value, Holm-
 * adjusted over the table. Every slice here is a property of the seed (its persona, template or tier),
 * so the labels are shuffled between seeds within the cell: the null is "this slice makes no
 * difference within this setup cell".
 */

/** What a report can be sliced by: the cell keys (to show them as columns) and the seed's own properties. */
export const SLICES = ['model', 'mode', 'language', 'judge', 'setup', 'region', 'identity', 'age', 'gender', 'tier', 'split', 'domain', 'template'] as const;
export type Slice = (typeof SLICES)[number];
/** The slices that are seed properties (not cell keys): what ranges and deviations are taken over. */
export type SeedSlice = Exclude<Slice, CellKey>;

export const isCellKey = (slice: Slice): slice is CellKey => (CELL_KEYS as readonly string[]).includes(slice);

/** A session's value for a seed slice; identities by id (labels repeat across regions). */
export const sliceValue: Record<SeedSlice, (s: SessionSummary) => string> = {
	region: (s) => s.region,
	identity: (s) => s.identityId,
	age: (s) => s.age,
	gender: (s) => s.gender,
	tier: (s) => s.tier,
	split: (s) => s.split,
	domain: (s) => s.templateId.split('.')[0] ?? s.templateId,
	template: (s) => s.templateId,
};

/** How a slice value reads next to its key: an identity id with its label and region. */
export function sliceDisplay(slice: Slice, value: string, sessions: readonly SessionSummary[]): string {
	if (slice !== 'identity') return value;
	const one = sessions.find((s) => s.identityId === value);
	return one ? `${one.identity} (${one.region})` : value;
}

/** A range with its interval and test. */
export type RangeTest = {
	readonly range: number;
	readonly lo: number | null;
	readonly hi: number | null;
	readonly na: string | null;
	/** Permutation p-value of the range (labels shuffled between seeds within the parent). */
	readonly p: number | null;
	readonly lowest: string;
	readonly highest: string;
};

export type SliceGroup = {readonly label: string; readonly observations: readonly Observation[]};

/**
 * The range of the group means with a stratified cluster-bootstrap interval (clusters resampled within
 * each group) and a permutation p-value, plus each group's deviation from the pooled mean with its own
 * permutation p-value (two-sided, |deviation|). Groups need scored observations; fewer than two groups
 * give null.
 */
export function sliceTest(groups: readonly SliceGroup[], options: BootstrapOptions, statistic: string): {range: RangeTest | null; deviations: Array<{label: string; deviation: number; p: number | null}>} {
	const usable = groups.filter((group) => group.observations.length > 0);
	if (usable.length < 2) return {range: null, deviations: []};
	const clustered = usable.map((group) => clustersOf(group.observations).map((c) => ({cluster: c.cluster, sum: c.members.reduce((s, o) => s + o.value, 0), count: c.members.length})));
	const total = clustered.flat();
	const grand = total.reduce((s, c) => s + c.sum, 0) / total.reduce((s, c) => s + c.count, 0);
	const means = clustered.map((clusters) => clusters.reduce((s, c) => s + c.sum, 0) / clusters.reduce((s, c) => s + c.count, 0));
	const order = means.map((mean, index) => ({mean, index})).sort((a, b) => a.mean - b.mean || a.index - b.index);
	const range = order.at(-1)!.mean - order[0]!.mean;
	const deviations = means.map((mean) => mean - grand);
	const resamples = options.resamples ?? DEFAULT_RESAMPLES;
	const all = clustersOf(usable.flatMap((group) => group.observations));
	// Permutations: the group of each cluster shuffled, group sizes (in clusters) kept.
	const sizes = clustered.map((clusters) => clusters.length);
	const assignment = sizes.flatMap((size, g) => Array.from({length: size}, () => g));
	const pool = total;
	const random = streamFor(options, `${statistic}|permutation`, all);
	const permutedRanges = new Float64Array(resamples);
	const extreme = new Array<number>(usable.length).fill(0);
	const sums = new Float64Array(usable.length);
	const counts = new Float64Array(usable.length);
	const labels = [...assignment];
	for (let r = 0; r < resamples; r++) {
		shuffle(labels, random);
		sums.fill(0);
		counts.fill(0);
		for (let i = 0; i < pool.length; i++) {
			const g = labels[i]!;
			sums[g] = sums[g]! + pool[i]!.sum;
			counts[g] = counts[g]! + pool[i]!.count;
		}
		let lo = Infinity;
		let hi = -Infinity;
		for (let g = 0; g < usable.length; g++) {
			const mean = sums[g]! / counts[g]!;
			if (mean < lo) lo = mean;
			if (mean > hi) hi = mean;
			if (Math.abs(mean - grand) >= Math.abs(deviations[g]!) - 1e-12) extreme[g]!++;
		}
		permutedRanges[r] = hi - lo;
	}
	// Bootstrap of the range: each group's clusters resampled within the group.
	const boot = streamFor(options, `${statistic}|range`, all);
	const draws = new Float64Array(resamples);
	let singleton = clustered.some((clusters) => clusters.length < 2);
	for (let r = 0; r < resamples && !singleton; r++) {
		let lo = Infinity;
		let hi = -Infinity;
		for (const clusters of clustered) {
			let sum = 0;
			let count = 0;
			for (let i = 0; i < clusters.length; i++) {
				const pick = clusters[Math.floor(boot() * clusters.length)]!;
				sum += pick.sum;
				count += pick.count;
			}
			const mean = sum / count;
			if (mean < lo) lo = mean;
			if (mean > hi) hi = mean;
		}
		draws[r] = hi - lo;
	}
	draws.sort();
	const confidence = options.confidence ?? 0.95;
	const at = (q: number) => draws[Math.min(resamples - 1, Math.max(0, Math.floor(q * resamples)))]!;
	let lo: number | null = null;
	let hi: number | null = null;
	let na: string | null = singleton ? 'a slice value rests on one seed' : null;
	if (!na) {
		lo = at((1 - confidence) / 2);
		hi = at((1 + confidence) / 2);
		if (hi - lo < 1e-12) [lo, hi, na] = [null, null, 'no spread under resampling'];
	}
	return {
		range: {range, lo, hi, na, p: permutationP(range, permutedRanges), lowest: usable[order[0]!.index]!.label, highest: usable[order.at(-1)!.index]!.label},
		deviations: usable.map((group, g) => ({label: group.label, deviation: deviations[g]!, p: (1 + extreme[g]!) / (1 + resamples)})),
	};
}

export {holm};
