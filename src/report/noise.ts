import type {SessionSummary} from '../domain/sessionSummary.js';

/*
 * Run-to-run noise from repeated trials of the same seeds (`batch --trials K`): how much one setup's
 * scores move when nothing but chance changes. Simulated users and LLM judges are stochastic, and a
 * single run's differences are easily noise (tau2-bench measured 7-11 points between identical runs).
 */

export type Spread = {
	/** Pooled standard deviation of one seed's repeats around their own mean: the run-to-run noise. */
	readonly withinSd: number;
	/** Standard deviation of the seed means: how much seeds differ from each other. */
	readonly betweenSd: number;
	/**
	 * Smallest difference between the means of two single runs over these seeds that exceeds noise at
	 * 95%: 1.96 · √2 · withinSd / √seeds.
	 */
	readonly minDifference: number;
};

export type NoiseRow = {
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
	const withinSd = Math.sqrt(squares / freedom);
	const grand = means.reduce((sum, value) => sum + value, 0) / means.length;
	const betweenSd = means.length >= 2 ? Math.sqrt(means.reduce((sum, value) => sum + (value - grand) ** 2, 0) / (means.length - 1)) : 0;
	return {withinSd, betweenSd, minDifference: (1.96 * Math.SQRT2 * withinSd) / Math.sqrt(usable.length)};
}

/**
 * One row per setup (assistant model, mode, language, judge) that has seeds with repeats. Only
 * completed, judged, original sessions count (re-judged copies repeat a dialogue, not a run).
 */
export function runNoise(summaries: readonly SessionSummary[]): NoiseRow[] {
	const setups = new Map<string, Map<string, SessionSummary[]>>();
	for (const s of summaries) {
		if (s.status !== 'completed' || s.threeH === null || s.rejudgeOf !== null) continue;
		const setup = JSON.stringify([s.assistantModel, s.mode, s.language, s.judgeModel]);
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
		const [model, mode, language, judge] = JSON.parse(setup) as [string, string, string, string];
		const maxK = Math.max(...repeated.map((runs) => runs.length));
		const passK = Array.from({length: maxK}, (_, index) => index + 1).map((k) => {
			const eligible = repeated.filter((runs) => runs.length >= k);
			const value = eligible.reduce((sum, runs) => sum + choose(runs.filter((run) => run.clean === true).length, k) / choose(runs.length, k), 0) / eligible.length;
			return {k, value, seeds: eligible.length};
		});
		rows.push({
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
