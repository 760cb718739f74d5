import type {SituatedEval, SituatedItem} from '../domain/situated.js';
import {type Estimate, bootstrapMean} from '../report/bootstrap.js';
import {oraclePick, outcomeOf, rewardPick} from './selection.js';

/*
 * Best-of-N with an external reward model (the CRISP paper's test of reward models): `crisp samples`
 * writes every valid sampled answer for scoring, the user's reward model scores them, and `crisp bon`
 * picks, per item, the answer the reward model likes best and reports how good that pick really is
 * (its outcome grade) next to one answer, a random pick and the oracle pick (ceiling).
 */

export const sampleId = (evaluation: Pick<SituatedEval, 'itemId' | 'policyModel'>, sample: number) => `${evaluation.itemId}#${evaluation.policyModel}#${sample}`;

/** What a reward model needs to score one answer (the paper's CRISP-RM input: culture, scenario, question, answer). */
export type SampleForScoring = {
	readonly id: string;
	readonly itemId: string;
	readonly policyModel: string;
	readonly sample: number;
	readonly culture: string;
	readonly scenario: string;
	readonly question: string;
	readonly answer: string;
	readonly reasoning: string;
};

export function samplesForScoring(evaluation: SituatedEval, item: SituatedItem | undefined): SampleForScoring[] {
	if (!item?.draft) return [];
	const {scenario, question} = item.draft;
	return evaluation.samples.flatMap((sample) => (sample.answer ? [{id: sampleId(evaluation, sample.sample), itemId: evaluation.itemId, policyModel: evaluation.policyModel, sample: sample.sample, culture: item.culture, scenario, question, answer: sample.answer.answer, reasoning: sample.answer.reasoning}] : []));
}

export type BoNRow = {
	readonly policyModel: string;
	readonly items: number;
	/** Samples per item considered (the first N). */
	readonly n: number;
	/** Valid samples without a reward in the file (never picked). */
	readonly unscored: number;
	/** Outcome of the first sample (invalid = 0). */
	readonly first: Estimate | null;
	/** Mean outcome over the N samples: what a random pick is worth. */
	readonly random: Estimate | null;
	/** Outcome of the external reward model's pick. */
	readonly rewardModel: Estimate | null;
	/** Outcome of the oracle pick (ceiling): the best grade among the N samples, picked by the grader that reads the norm. */
	readonly oracle: Estimate | null;
	/** Oracle minus reward model, item by item. */
	readonly gap: Estimate | null;
	/** Share of items where the reward model's pick reaches the ceiling. */
	readonly hitsCeiling: number | null;
};

/**
 * Per policy model. Only the first `n` samples of each item count (all when n is absent), so one
 * evaluation with 16 samples answers best-of-4, -8 and -16. Ties in reward go to the earlier sample.
 */
export function rewardBestOfN(evals: readonly SituatedEval[], rewards: ReadonlyMap<string, number>, n?: number): BoNRow[] {
	const byModel = new Map<string, SituatedEval[]>();
	for (const evaluation of evals) byModel.set(evaluation.policyModel, [...(byModel.get(evaluation.policyModel) ?? []), evaluation]);
	return [...byModel.entries()]
		.sort(([a], [b]) => (a < b ? -1 : 1))
		.map(([policyModel, list]) => {
			const first: number[] = [];
			const random: number[] = [];
			const picked: number[] = [];
			const oracle: number[] = [];
			let unscored = 0;
			let used = 0;
			for (const evaluation of list) {
				const samples = evaluation.samples.slice(0, n ?? evaluation.samples.length);
				used = Math.max(used, samples.length);
				const scores = samples.map((sample) => (sample.answer ? (rewards.get(sampleId(evaluation, sample.sample)) ?? null) : null));
				unscored += samples.filter((sample, index) => sample.answer && scores[index] === null).length;
				const pick = rewardPick(scores);
				first.push(outcomeOf(samples[0]));
				random.push(samples.reduce((sum, sample) => sum + outcomeOf(sample), 0) / samples.length);
				picked.push(outcomeOf(pick === null ? undefined : samples[pick]));
				oracle.push(outcomeOf(samples[oraclePick(samples)]));
			}
			const seed = `bon|${policyModel}|${n ?? 'all'}`;
			const estimate = (values: number[], what: string) => bootstrapMean(values, {seed: `${seed}|${what}`});
			return {
				policyModel,
				items: list.length,
				n: used,
				unscored,
				first: estimate(first, 'first'),
				random: estimate(random, 'random'),
				rewardModel: estimate(picked, 'rm'),
				oracle: estimate(oracle, 'oracle'),
				gap: estimate(oracle.map((value, index) => value - picked[index]!), 'gap'),
				hitsCeiling: list.length > 0 ? picked.filter((value, index) => value === oracle[index]).length / list.length : null,
			};
		});
}
