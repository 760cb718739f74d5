import type {ScoredAnswer, SituatedEval} from '../domain/situated.js';
import {type Estimate, bootstrapMean} from '../report/bootstrap.js';

/** One row of the situated report: a policy model on one region (or all of them). */
export type SituatedRow = {
	readonly policyModel: string;
	readonly region: string;
	readonly items: number;
	/** Outcome quality of the first sample (1-5; invalid = 0): what one answer is worth. */
	readonly outcome: Estimate | null;
	/** Outcome quality of the best-of-N choice. */
	readonly outcomeBestOf: Estimate | null;
	/** Best outcome among the samples: the ceiling a perfect selector would reach. */
	readonly outcomeCeiling: Estimate | null;
	/** Norm match of the first sample (0-2; invalid = 0). */
	readonly normMatch: Estimate | null;
	/** Share of all samples that broke the answer contract. */
	readonly invalidRate: number;
	readonly samplesPerItem: number;
};

const outcomeOf = (sample: ScoredAnswer) => sample.outcome?.score ?? 0;
const normOf = (sample: ScoredAnswer) => sample.normMatch?.score ?? 0;

/**
 * Per policy model, one row for all regions and one per region, sorted. Invalid answers count 0 on
 * both scales (the paper's end-to-end rule), so a model cannot gain by answering out of contract.
 */
export function summarizeEvals(evals: readonly SituatedEval[]): SituatedRow[] {
	const groups = new Map<string, SituatedEval[]>();
	for (const evaluation of evals) {
		for (const region of ['all', evaluation.region]) {
			const key = `${evaluation.policyModel}\0${region}`;
			const group = groups.get(key);
			if (group) group.push(evaluation);
			else groups.set(key, [evaluation]);
		}
	}
	return [...groups.entries()]
		// 'all' first within each model: \0 sorts before any region code.
		.sort(([a], [b]) => {
			const [x, y] = [a.replace(/\0all$/, '\0'), b.replace(/\0all$/, '\0')];
			return x < y ? -1 : x > y ? 1 : 0;
		})
		.map(([key, group]) => {
			const [policyModel, region] = key.split('\0') as [string, string];
			const samples = group.flatMap((evaluation) => evaluation.samples);
			const seed = `situated:${key}`;
			return {
				policyModel,
				region,
				items: group.length,
				outcome: bootstrapMean(group.map((evaluation) => outcomeOf(evaluation.samples[0]!)), {seed}),
				outcomeBestOf: bootstrapMean(group.map((evaluation) => outcomeOf(evaluation.samples[evaluation.chosen]!)), {seed}),
				outcomeCeiling: bootstrapMean(group.map((evaluation) => Math.max(...evaluation.samples.map(outcomeOf))), {seed}),
				normMatch: bootstrapMean(group.map((evaluation) => normOf(evaluation.samples[0]!)), {seed}),
				invalidRate: samples.filter((sample) => sample.invalid !== null).length / Math.max(1, samples.length),
				samplesPerItem: samples.length / group.length,
			};
		});
}
