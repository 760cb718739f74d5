import type {SessionSummary} from '../domain/sessionSummary.js';
import {isSmall} from './bootstrap.js';
import {type CellValues, type Selection, cellsOf, isScored} from './cells.js';

/*
 * Run-to-run noise from repeated trials of the same seeds (`batch --trials K`): how much one setup's
 * scores move when nothing but chance changes. Simulated users and LLM judges are stochastic, and a
 * single run's differences are easily noise (tau2-bench measured 7-11 points between identical runs).
 */

export type Spread = {
	/** Pooled standard deviation of one seed's repeats around their own mean: the run-to-run noise. */
	readonly withinSd: number;
	/** Pooled within-seed variance (withinSd squared): the residual component of a one-way random-effects model. */
	readonly withinVar: number;
	/**
	 * Standard deviation of the seed means. It still holds within-seed noise (each mean averages only a
	 * few repeats): the seed variance component below removes it.
	 */
	readonly betweenSd: number;
	/**
	 * Between-seed variance component, (MS_between − MS_within) / n0 of a one-way random-effects ANOVA
	 * (n0 the effective repeats per seed, = the repeats when every seed has the same number), floored at 0:
	 * how much seeds truly differ, with run-to-run noise taken out.
	 */
	readonly seedVar: number;
	/** √seedVar. */
	readonly seedSd: number;
	/** Share of the variance that is between seeds: seedVar / (seedVar + withinVar); null with no variance at all (never 1 by rounding). */
	readonly icc: number | null;
	/** Why `icc` is null, when it is. */
	readonly iccNa: string | null;
	/**
	 * Smallest difference between the means of two single runs over these seeds that exceeds noise at
	 * 95%: 1.96 · √2 · withinSd / √seeds.
	 */
	readonly minDifference: number;
};

export type NoiseRow = {
	/** The cell: setup label (S1, ... of the one registry), assistant, language, mode, judge. */
	readonly cell: CellValues;
	/** Seeds run at least twice in this cell. */
	readonly seeds: number;
	/** Fewer than 10 such seeds (the one small-sample rule). */
	readonly small: boolean;
	readonly episodes: number;
	readonly threeH: Spread | null;
	readonly tdq: Spread | null;
	/** pass^k for the clean flag: the chance that k repeats of a seed are all clean (unbiased, from c of n). */
	readonly passK: ReadonlyArray<{readonly k: number; readonly value: number; readonly seeds: number}>;
};

/** n choose k as a float (small n). */
function choose(n: number, k: number): number {
	if (k < 0 || k > n) return 0;
	let result = 1;
	for (let i = 1; i <= k; i++) result = (result * (n - k + i)) / i;
	return result;
}

function spread(groups: ReadonlyArray<readonly number[]>): Spread | null {
	const usable = groups.filter((values) => values.length >= 2);
	if (usable.length === 0) return null;
	let squares = 0;
	let freedom = 0;
	const means: number[] = [];
	for (const values of usable) {
		const mean = values.reduce((sum, value) => sum + value, 0) / values.length;
		means.push(mean);
		for (const value of values) squares += (value - mean) ** 2;
		freedom += values.length - 1;
	}
	const withinVar = squares / freedom;
	const withinSd = Math.sqrt(withinVar);
	const grand = means.reduce((sum, value) => sum + value, 0) / means.length;
	const betweenSd = means.length >= 2 ? Math.sqrt(means.reduce((sum, value) => sum + (value - grand) ** 2, 0) / (means.length - 1)) : 0;
	// One-way random-effects ANOVA over the seeds (unbalanced: n0 = (N − Σnᵢ²/N) / (a − 1)).
	const a = usable.length;
	const sizes = usable.map((values) => values.length);
	const total = sizes.reduce((sum, size) => sum + size, 0);
	const overall = usable.flat().reduce((sum, value) => sum + value, 0) / total;
	const msBetween = a >= 2 ? usable.reduce((sum, values, i) => sum + values.length * (means[i]! - overall) ** 2, 0) / (a - 1) : 0;
	const n0 = a >= 2 ? (total - sizes.reduce((sum, size) => sum + size * size, 0) / total) / (a - 1) : sizes[0]!;
	// Sums of squares of equal values leave float dust (8e-31): below this there is no variance to share.
	const TINY = 1e-12;
	const clean = (value: number) => (value < TINY ? 0 : value);
	const seedVar = a >= 2 ? clean(Math.max(0, (msBetween - withinVar) / n0)) : 0;
	const within = clean(withinVar);
	const icc = seedVar + within > TINY ? seedVar / (seedVar + within) : null;
	const iccNa = icc !== null ? null : a < 2 ? 'one seed' : 'no variance at all';
	return {withinSd: Math.sqrt(within), withinVar: within, betweenSd: clean(betweenSd), seedVar, seedSd: Math.sqrt(seedVar), icc, iccNa, minDifference: (1.96 * Math.SQRT2 * Math.sqrt(within)) / Math.sqrt(usable.length)};
}

/**
 * One row per cell (the setup of the one registry, so judge modes, max turns, best-of widths, sampling
 * and endpoints never pool; plus assistant, mode, language and judge) that has seeds with repeats.
 * Only completed, judged, original sessions count (re-judged copies repeat a dialogue, not a run).
 */
export function runNoise(selection: Selection): NoiseRow[] {
	const rows: NoiseRow[] = [];
	for (const {key, sessions} of cellsOf(selection)) {
		const seeds = new Map<string, SessionSummary[]>();
		for (const s of sessions) {
			if (!isScored(s) || s.rejudgeOf !== null) continue;
			const runs = seeds.get(s.seedId);
			if (runs) runs.push(s);
			else seeds.set(s.seedId, [s]);
		}
		const repeated = [...seeds.entries()].sort(([a], [b]) => (a < b ? -1 : 1)).map(([, runs]) => runs).filter((runs) => runs.length >= 2);
		if (repeated.length === 0) continue;
		const maxK = Math.max(...repeated.map((runs) => runs.length));
		const passK = Array.from({length: maxK}, (_, index) => index + 1).map((k) => {
			const eligible = repeated.filter((runs) => runs.length >= k);
			const value = eligible.reduce((sum, runs) => sum + choose(runs.filter((run) => run.clean === true).length, k) / choose(runs.length, k), 0) / eligible.length;
			return {k, value, seeds: eligible.length};
		});
		rows.push({
			cell: key,
			seeds: repeated.length,
			small: isSmall(repeated.length),
			episodes: repeated.reduce((sum, runs) => sum + runs.length, 0),
			threeH: spread(repeated.map((runs) => runs.map((run) => run.threeH!))),
			tdq: spread(repeated.map((runs) => runs.flatMap((run) => (run.tdq === null ? [] : [run.tdq])))),
			passK,
		});
	}
	return rows;
}
