import {METRICS, type Metric} from '../domain/session.js';
import {type Estimate, bootstrapMean} from './bootstrap.js';

/** One human score for one session and metric. */
export type Rating = {readonly session: string; readonly metric: Metric; readonly score: number; readonly rater: string};

export type MetricAgreement = {
	readonly metric: Metric;
	/** Sessions scored by the judge and by at least one person. */
	readonly n: number;
	readonly pearson: number | null;
	readonly spearman: number | null;
	/** Judge score equals the rounded human mean. */
	readonly exact: Estimate | null;
	/** Judge score within one point of the human mean. */
	readonly withinOne: Estimate | null;
	/** Cohen's kappa with quadratic weights, judge vs rounded human mean, on the 1-5 scale. */
	readonly kappa: number | null;
	/** Mean of judge minus human mean: positive = the judge is more generous. */
	readonly bias: number | null;
	/** Krippendorff's alpha (interval) among the human raters alone, where sessions have two or more. */
	readonly humanAlpha: number | null;
	/** The same with the judge counted as one more rater. */
	readonly withJudgeAlpha: number | null;
};

const mean = (values: readonly number[]) => values.reduce((sum, value) => sum + value, 0) / values.length;

export function pearson(x: readonly number[], y: readonly number[]): number | null {
	if (x.length < 3) return null;
	const mx = mean(x);
	const my = mean(y);
	let sxy = 0;
	let sxx = 0;
	let syy = 0;
	for (let i = 0; i < x.length; i++) {
		sxy += (x[i]! - mx) * (y[i]! - my);
		sxx += (x[i]! - mx) ** 2;
		syy += (y[i]! - my) ** 2;
	}
	return sxx === 0 || syy === 0 ? null : sxy / Math.sqrt(sxx * syy);
}

/** Average ranks, ties sharing the mean of their positions. */
function ranks(values: readonly number[]): number[] {
	const order = values.map((value, index) => ({value, index})).sort((a, b) => a.value - b.value);
	const out = new Array<number>(values.length);
	for (let i = 0; i < order.length; ) {
		let j = i;
		while (j + 1 < order.length && order[j + 1]!.value === order[i]!.value) j++;
		for (let k = i; k <= j; k++) out[order[k]!.index] = (i + j) / 2 + 1;
		i = j + 1;
	}
	return out;
}

export function spearman(x: readonly number[], y: readonly number[]): number | null {
	return pearson(ranks(x), ranks(y));
}

/** Quadratic-weighted Cohen's kappa for two raters on the integer scale [min, max]. */
export function weightedKappa(a: readonly number[], b: readonly number[], min = 1, max = 5): number | null {
	const k = max - min + 1;
	const n = a.length;
	if (n === 0) return null;
	const observed = Array.from({length: k}, () => new Array<number>(k).fill(0));
	const ra = new Array<number>(k).fill(0);
	const rb = new Array<number>(k).fill(0);
	for (let i = 0; i < n; i++) {
		const x = a[i]! - min;
		const y = b[i]! - min;
		observed[x]![y]!++;
		ra[x]!++;
		rb[y]!++;
	}
	let disagreeObserved = 0;
	let disagreeExpected = 0;
	for (let x = 0; x < k; x++) {
		for (let y = 0; y < k; y++) {
			const weight = ((x - y) / (k - 1)) ** 2;
			disagreeObserved += weight * observed[x]![y]!;
			disagreeExpected += (weight * ra[x]! * rb[y]!) / n;
		}
	}
	return disagreeExpected === 0 ? null : 1 - disagreeObserved / disagreeExpected;
}

/**
 * Krippendorff's alpha for interval data: 1 - observed / expected disagreement, over units that have
 * at least two values (a unit with one value cannot disagree with anything).
 */
export function krippendorffInterval(units: ReadonlyArray<readonly number[]>): number | null {
	const pairable = units.filter((values) => values.length >= 2);
	const all = pairable.flat();
	const n = all.length;
	if (pairable.length < 2 || n < 4) return null;
	let observed = 0;
	for (const values of pairable) {
		let sum = 0;
		for (let i = 0; i < values.length; i++) for (let j = 0; j < values.length; j++) if (i !== j) sum += (values[i]! - values[j]!) ** 2;
		observed += sum / (values.length - 1);
	}
	observed /= n;
	let expected = 0;
	for (let i = 0; i < n; i++) for (let j = 0; j < n; j++) if (i !== j) expected += (all[i]! - all[j]!) ** 2;
	expected /= n * (n - 1);
	return expected === 0 ? null : 1 - observed / expected;
}

/**
 * How well the judge agrees with people, per metric: correlations, exact and within-one agreement
 * (with bootstrap intervals), weighted kappa, bias, and the agreement among the people themselves,
 * which bounds what any judge can reach.
 */
export function judgeHumanAgreement(judge: ReadonlyMap<string, Partial<Record<Metric, number | null>>>, ratings: readonly Rating[], options: {seed?: string} = {}): MetricAgreement[] {
	return METRICS.map((metric): MetricAgreement => {
		const byUnit = new Map<string, number[]>();
		for (const rating of ratings) {
			if (rating.metric !== metric) continue;
			const list = byUnit.get(rating.session) ?? [];
			list.push(rating.score);
			byUnit.set(rating.session, list);
		}
		const judged: number[] = [];
		const human: number[] = [];
		const units: number[][] = [];
		const withJudge: number[][] = [];
		for (const [session, scores] of byUnit) {
			units.push(scores);
			const score = judge.get(session)?.[metric];
			if (typeof score !== 'number') continue;
			judged.push(score);
			human.push(mean(scores));
			withJudge.push([...scores, score]);
		}
		const n = judged.length;
		const seed = `${options.seed ?? 'agreement'}:${metric}`;
		return {
			metric,
			n,
			pearson: pearson(judged, human),
			spearman: spearman(judged, human),
			exact: bootstrapMean(judged.map((score, i) => (score === Math.round(human[i]!) ? 1 : 0)), {seed: `${seed}:exact`}),
			withinOne: bootstrapMean(judged.map((score, i) => (Math.abs(score - human[i]!) <= 1 ? 1 : 0)), {seed: `${seed}:within`}),
			kappa: weightedKappa(judged, human.map((value) => Math.min(5, Math.max(1, Math.round(value))))),
			bias: n > 0 ? mean(judged.map((score, i) => score - human[i]!)) : null,
			humanAlpha: krippendorffInterval(units),
			withJudgeAlpha: krippendorffInterval(withJudge),
		};
	});
}
