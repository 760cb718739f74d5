import type {SessionSummary} from '../domain/sessionSummary.js';
import {judgeLabel} from './setups.js';

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
	/** Share of the variance that is between seeds: seedVar / (seedVar + withinVar); null with no variance at all. */
	readonly icc: number | null;
	/**
	 * Smallest difference between the means of two single runs over these seeds that exceeds noise at
	 * 95%: 1.96 · √2 · withinSd / √seeds.
	 */
	readonly minDifference: number;
};

export type NoiseRow = {
	/** The setup key (models and endpoints per role, judge mode, max turns, best-of, prompts, mock roles). */
	readonly setupKey: string;
	readonly model: string;
	readonly mode: string;
	readonly language: string;
	readonly judge: string;
	/** Seeds run at least twice under this setup. */
	readonly seeds: number;
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
	const seedVar = a >= 2 ? Math.max(0, (msBetween - withinVar) / n0) : 0;
	const icc = seedVar + withinVar > 0 ? seedVar / (seedVar + withinVar) : null;
	return {withinSd, withinVar, betweenSd, seedVar, seedSd: Math.sqrt(seedVar), icc, minDifference: (1.96 * Math.SQRT2 * withinSd) / Math.sqrt(usable.length)};
}

/**
 * One row per setup (the full session setup, so judge modes, max turns, best-of widths and endpoints
 * never pool, plus interaction mode and language) that has seeds with repeats. Only completed, judged,
 * original sessions count (re-judged copies repeat a dialogue, not a run). Best-of-N episodes are their
 * own setup, so they never count as repeats of plain runs.
 */
export function runNoise(summaries: readonly SessionSummary[]): NoiseRow[] {
	const setups = new Map<string, Map<string, SessionSummary[]>>();
	for (const s of summaries) {
		if (s.status !== 'completed' || s.threeH === null || s.rejudgeOf !== null) continue;
		const setup = JSON.stringify([s.assistantModel, s.mode, s.language, judgeLabel({...s, rejudgeRepeat: null}), s.setupKey]);
		const seeds = setups.get(setup) ?? new Map<string, SessionSummary[]>();
		const runs = seeds.get(s.seedId);
		if (runs) runs.push(s);
		else seeds.set(s.seedId, [s]);
		setups.set(setup, seeds);
	}
	const rows: NoiseRow[] = [];
	for (const [setup, seeds] of setups) {
		const repeated = [...seeds.values()].filter((runs) => runs.length >= 2);
		if (repeated.length === 0) continue;
		const [model, mode, language, judge, setupKey] = JSON.parse(setup) as [string, string, string, string, string];
		const maxK = Math.max(...repeated.map((runs) => runs.length));
		const passK = Array.from({length: maxK}, (_, index) => index + 1).map((k) => {
			const eligible = repeated.filter((runs) => runs.length >= k);
			const value = eligible.reduce((sum, runs) => sum + choose(runs.filter((run) => run.clean === true).length, k) / choose(runs.length, k), 0) / eligible.length;
			return {k, value, seeds: eligible.length};
		});
		rows.push({
			setupKey,
			model,
			mode,
			language,
			judge,
			seeds: repeated.length,
			episodes: repeated.reduce((sum, runs) => sum + runs.length, 0),
			threeH: spread(repeated.map((runs) => runs.map((run) => run.threeH!))),
			tdq: spread(repeated.map((runs) => runs.flatMap((run) => (run.tdq === null ? [] : [run.tdq])))),
			passK,
		});
	}
	return rows.sort((a, b) => (a.model + a.mode + a.language + a.judge < b.model + b.mode + b.language + b.judge ? -1 : 1));
}
