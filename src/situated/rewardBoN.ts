import type {ScoredAnswer, SituatedEval, SituatedItem} from '../domain/situated.js';
import {type Estimate, bootstrapMean} from '../report/bootstrap.js';

/*
 * Best-of-N with an external reward model (the CRISP paper's test of reward models): `crisp samples`
 * writes every valid sampled answer for scoring, the user's reward model scores them, and `crisp bon`
 * picks, per item, the answer the reward model likes best and reports how good that pick really is
 * (its outcome grade) next to one answer, the judge's own pick and the best possible pick.
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
	/** Outcome of the pick by the judge-based reward (outcome and norm match). */
	readonly judge: Estimate | null;
	/** Best outcome among the N samples. */
	readonly ceiling: Estimate | null;
	/** Share of items where the reward model's pick reaches the ceiling. */
	readonly hitsCeiling: number | null;
};

const outcome = (sample: ScoredAnswer | undefined) => sample?.outcome?.score ?? 0;

/**
 * Per policy model. Only the first `n` samples of each item count (all when n is absent), so one
 * evaluation with 16 samples answers best-of-4, -8 and -16. Ties in reward go to the earlier sample.
 */
export function rewardBestOfN(evals: readonly SituatedEval[], rewards: ReadonlyMap<string, number>, n?: number): BoNRow[] {
	const byModel = new Map<string, SituatedEval[]>();
	for (const evaluation of evals) {
		const list = byModel.get(evaluation.policyModel);
		if (list) list.push(evaluation);
		else byModel.set(evaluation.policyModel, [evaluation]);
	}
	return [...byModel.entries()]
		.sort(([a], [b]) => (a < b ? -1 : 1))
		.map(([policyModel, list]) => {
			const first: number[] = [];
			const random: number[] = [];
			const picked: number[] = [];
			const judged: number[] = [];
			const ceiling: number[] = [];
			let hits = 0;
			let unscored = 0;
			let used = 0;
			for (const evaluation of list) {
				const samples = evaluation.samples.slice(0, n ?? evaluation.samples.length);
				used = Math.max(used, samples.length);
				const best = Math.max(...samples.map(outcome));
				let pick: ScoredAnswer | undefined;
				let pickReward = Number.NEGATIVE_INFINITY;
				for (const sample of samples) {
					if (!sample.answer) continue;
					const reward = rewards.get(sampleId(evaluation, sample.sample));
					if (reward === undefined) {
						unscored++;
						continue;
					}
					if (reward > pickReward) {
						pick = sample;
						pickReward = reward;
					}
				}
				const judgePick = samples.reduce((a, b) => (b.reward > a.reward ? b : a), samples[0]!);
				first.push(outcome(samples[0]));
				random.push(samples.reduce((sum, sample) => sum + outcome(sample), 0) / samples.length);
				picked.push(outcome(pick));
				judged.push(outcome(judgePick));
				ceiling.push(best);
				if (outcome(pick) === best) hits++;
			}
			const seed = `bon|${policyModel}|${n ?? 'all'}`;
			const estimate = (values: number[], what: string) => bootstrapMean(values, {seed: `${seed}|${what}`});
			return {policyModel, items: list.length, n: used, unscored, first: estimate(first, 'first'), random: estimate(random, 'random'), rewardModel: estimate(picked, 'rm'), judge: estimate(judged, 'judge'), ceiling: estimate(ceiling, 'ceiling'), hitsCeiling: list.length > 0 ? hits / list.length : null};
		});
}
