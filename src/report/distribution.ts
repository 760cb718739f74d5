import {METRICS, type Metric} from '../domain/session.js';
import type {SessionSummary} from '../domain/sessionSummary.js';
import {type BootstrapOptions, type Estimate, bootstrapMean, seededRandom} from './bootstrap.js';

/** How one judge metric's 1-5 scores are spread (the paper's Table 15). */
export type MetricDistribution = {
	readonly metric: Metric;
	readonly n: number;
	readonly mean: number | null;
	readonly sd: number | null;
	readonly median: number | null;
	/** Share of each score 1..5, in that order. */
	readonly shares: readonly number[];
};

const scored = (sessions: readonly SessionSummary[]) => sessions.filter((s) => s.status === 'completed' && s.threeH !== null);

export function scoreDistribution(sessions: readonly SessionSummary[]): MetricDistribution[] {
	return METRICS.map((metric) => {
		const values = scored(sessions)
			.map((s) => s.scores?.[metric])
			.filter((value): value is number => typeof value === 'number')
			.sort((a, b) => a - b);
		const n = values.length;
		if (n === 0) return {metric, n, mean: null, sd: null, median: null, shares: [0, 0, 0, 0, 0]};
		const mean = values.reduce((sum, value) => sum + value, 0) / n;
		const sd = n > 1 ? Math.sqrt(values.reduce((sum, value) => sum + (value - mean) ** 2, 0) / (n - 1)) : 0;
		const median = n % 2 === 1 ? values[(n - 1) / 2]! : (values[n / 2 - 1]! + values[n / 2]!) / 2;
		return {metric, n, mean, sd, median, shares: [1, 2, 3, 4, 5].map((score) => values.filter((value) => value === score).length / n)};
	});
}

/** 3H on standard seeds against trap seeds (contextual or normative friction), per assistant model (Table 14). */
export type TrapGap = {
	readonly model: string;
	readonly standard: Estimate | null;
	readonly trap: Estimate | null;
	/** trap − standard, with a bootstrap interval (both groups resampled); negative = traps are harder. */
	readonly delta: Estimate | null;
};

export function trapGaps(sessions: readonly SessionSummary[], options: BootstrapOptions = {}): TrapGap[] {
	const models = [...new Set(scored(sessions).map((s) => s.assistantModel))].sort();
	return models.map((model) => {
		const mine = scored(sessions).filter((s) => s.assistantModel === model);
		const standard = mine.filter((s) => s.tier === 'standard').map((s) => s.threeH!);
		const trap = mine.filter((s) => s.tier !== 'standard').map((s) => s.threeH!);
		const seed = `${options.seed ?? 'cultureconverse'}|traps|${model}`;
		return {model, standard: bootstrapMean(standard, {...options, seed: `${seed}|std`}), trap: bootstrapMean(trap, {...options, seed: `${seed}|trap`}), delta: bootstrapDifference(standard, trap, {...options, seed})};
	});
}

/** Mean of b − mean of a, with a percentile interval from resampling both groups independently. */
export function bootstrapDifference(a: readonly number[], b: readonly number[], options: BootstrapOptions = {}): Estimate | null {
	if (a.length === 0 || b.length === 0) return null;
	const mean = (values: readonly number[]) => values.reduce((sum, value) => sum + value, 0) / values.length;
	const point = mean(b) - mean(a);
	const resamples = options.resamples ?? 2000;
	const confidence = options.confidence ?? 0.95;
	const random = seededRandom(`${options.seed ?? 'cultureconverse'}:${a.length}:${b.length}`);
	const draw = (values: readonly number[]) => {
		let sum = 0;
		for (let i = 0; i < values.length; i++) sum += values[Math.floor(random() * values.length)]!;
		return sum / values.length;
	};
	const diffs = new Float64Array(resamples);
	for (let r = 0; r < resamples; r++) diffs[r] = draw(b) - draw(a);
	diffs.sort();
	const at = (q: number) => diffs[Math.min(resamples - 1, Math.max(0, Math.floor(q * resamples)))]!;
	return {n: a.length + b.length, mean: point, lo: at((1 - confidence) / 2), hi: at((1 + confidence) / 2)};
}
