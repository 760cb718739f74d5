import {METRICS, type Metric} from '../domain/session.js';
import {spearman, weightedKappa} from './agreement.js';

/** Two judges' scores of the same dialogues, per metric (null = the metric was not scored). */
export type JudgePair = {readonly a: Partial<Record<Metric, number | null>>; readonly b: Partial<Record<Metric, number | null>>};

export type JudgeJudgeRow = {
	readonly metric: Metric;
	/** Dialogues both judges scored on this metric. */
	readonly n: number;
	readonly meanA: number | null;
	readonly meanB: number | null;
	/** Mean of b − a: positive when the second judge is more generous. */
	readonly shift: number | null;
	readonly exact: number | null;
	readonly withinOne: number | null;
	readonly spearman: number | null;
	readonly kappa: number | null;
};

const mean = (values: readonly number[]) => (values.length > 0 ? values.reduce((sum, value) => sum + value, 0) / values.length : null);

/**
 * How two judges agree on the same dialogues, per metric: means, the shift between them, exact and
 * within-one agreement, rank correlation and quadratic-weighted kappa. A pure function of the scores.
 */
export function judgeJudgeAgreement(pairs: readonly JudgePair[]): JudgeJudgeRow[] {
	return METRICS.map((metric) => {
		const a: number[] = [];
		const b: number[] = [];
		for (const pair of pairs) {
			const x = pair.a[metric];
			const y = pair.b[metric];
			if (typeof x === 'number' && typeof y === 'number') {
				a.push(x);
				b.push(y);
			}
		}
		const n = a.length;
		const share = (test: (x: number, y: number) => boolean) => (n > 0 ? a.filter((x, i) => test(x, b[i]!)).length / n : null);
		const meanA = mean(a);
		const meanB = mean(b);
		return {
			metric,
			n,
			meanA,
			meanB,
			shift: meanA !== null && meanB !== null ? meanB - meanA : null,
			exact: share((x, y) => x === y),
			withinOne: share((x, y) => Math.abs(x - y) <= 1),
			spearman: n >= 3 ? spearman(a, b) : null,
			kappa: n >= 2 ? weightedKappa(a, b) : null,
		};
	});
}
