import {METRICS, type Metric} from '../domain/session.js';
import type {SessionSummary} from '../domain/sessionSummary.js';
import {type BootstrapOptions, type Estimate, clusterDifference, clusterMean, holm, isSmall, permutationP, shuffle, streamFor, DEFAULT_RESAMPLES, clustersOf} from './bootstrap.js';
import {type CellValues, type Selection, cellsOf, isScored} from './cells.js';
import {observe} from './aggregate.js';

/** How one judge metric's 1-5 scores are spread in one cell (the paper's Table 15; Figure 41 by language). */
export type MetricDistribution = {
	readonly metric: Metric;
	readonly n: number;
	readonly seeds: number;
	readonly small: boolean;
	/** The mean with its seed-cluster interval. */
	readonly mean: Estimate | null;
	readonly sd: number | null;
	readonly median: number | null;
	/** Share of each score 1..5, in that order. */
	readonly shares: readonly number[];
};

export type CellDistribution = {readonly cell: CellValues; readonly metrics: readonly MetricDistribution[]};

/** Each cell's score distribution: never one distribution over assistants, languages, modes or judges. */
export function scoreDistributions(selection: Selection, options: BootstrapOptions = {}): CellDistribution[] {
	return cellsOf(selection).map(({key, sessions}) => ({cell: key, metrics: distributionOf(sessions, options)}));
}

export function distributionOf(sessions: readonly SessionSummary[], options: BootstrapOptions = {}): MetricDistribution[] {
	const scored = sessions.filter(isScored);
	return METRICS.map((metric) => {
		const observations = observe(scored, (s) => s.scores?.[metric]);
		const values = observations.map((o) => o.value).sort((a, b) => a - b);
		const n = values.length;
		const seeds = new Set(observations.map((o) => o.cluster)).size;
		if (n === 0) return {metric, n, seeds, small: false, mean: null, sd: null, median: null, shares: [0, 0, 0, 0, 0]};
		const average = values.reduce((sum, value) => sum + value, 0) / n;
		const sd = n > 1 ? Math.sqrt(values.reduce((sum, value) => sum + (value - average) ** 2, 0) / (n - 1)) : null;
		const median = n % 2 === 1 ? values[(n - 1) / 2]! : (values[n / 2 - 1]! + values[n / 2]!) / 2;
		return {metric, n, seeds, small: isSmall(seeds), mean: clusterMean(observations, options, `mean:${metric}`), sd, median, shares: [1, 2, 3, 4, 5].map((score) => values.filter((value) => value === score).length / n)};
	});
}

/** 3H on standard seeds against trap seeds (contextual or normative friction), per cell (Table 14). */
export type TrapGap = {
	readonly cell: CellValues;
	readonly standard: Estimate | null;
	readonly trap: Estimate | null;
	/** trap − standard, with a stratified seed-cluster bootstrap interval; negative = traps are harder. */
	readonly delta: Estimate | null;
	/** Permutation p-value of the gap (tiers shuffled between the cell's seeds), and Holm over the table. */
	readonly p: number | null;
	readonly pHolm: number | null;
	readonly small: boolean;
};

export function trapGaps(selection: Selection, options: BootstrapOptions = {}): {rows: TrapGap[]; comparisons: number} {
	const rows = cellsOf(selection).map(({key, sessions}): TrapGap => {
		const scored = sessions.filter(isScored);
		const standard = observe(scored.filter((s) => s.tier === 'standard'), (s) => s.threeH);
		const trap = observe(scored.filter((s) => s.tier !== 'standard'), (s) => s.threeH);
		const a = clusterMean(standard, options, 'mean:3h');
		const b = clusterMean(trap, options, 'mean:3h');
		return {cell: key, standard: a, trap: b, delta: clusterDifference(standard, trap, options, 'traps:3h'), p: groupPermutationP(standard, trap, options, 'traps:3h'), pHolm: null, small: isSmall(Math.min(a?.seeds ?? 0, b?.seeds ?? 0))};
	});
	const adjusted = holm(rows.map((row) => row.p));
	return {rows: rows.map((row, index) => ({...row, pHolm: adjusted[index] ?? null})), comparisons: adjusted.filter((p) => p !== null).length};
}

/** Two-sided permutation p-value of mean(b) − mean(a): clusters' group labels shuffled. */
export function groupPermutationP(a: readonly {cluster: string; key: string; value: number}[], b: readonly {cluster: string; key: string; value: number}[], options: BootstrapOptions, statistic: string): number | null {
	const ca = clustersOf(a);
	const cb = clustersOf(b);
	if (ca.length === 0 || cb.length === 0 || ca.length + cb.length < 3) return null;
	const pool = [...ca, ...cb].map((c) => ({sum: c.members.reduce((s, o) => s + o.value, 0), count: c.members.length}));
	const meanOf = (items: typeof pool) => items.reduce((s, c) => s + c.sum, 0) / items.reduce((s, c) => s + c.count, 0);
	const observed = Math.abs(meanOf(pool.slice(ca.length)) - meanOf(pool.slice(0, ca.length)));
	const resamples = options.resamples ?? DEFAULT_RESAMPLES;
	const random = streamFor(options, `${statistic}|permutation`, [...ca, ...cb]);
	const draws = new Float64Array(resamples);
	const order = pool.map((_, i) => i);
	for (let r = 0; r < resamples; r++) {
		shuffle(order, random);
		let sa = 0, na = 0, sb = 0, nb = 0;
		order.forEach((index, position) => {
			const c = pool[index]!;
			if (position < ca.length) {
				sa += c.sum;
				na += c.count;
			} else {
				sb += c.sum;
				nb += c.count;
			}
		});
		draws[r] = Math.abs(sb / nb - sa / na);
	}
	return permutationP(observed, draws);
}
