import type {SituatedEval, SituatedItem} from '../domain/situated.js';
import {type BootstrapOptions, type Estimate, type Observation, clusterMean, clusterShare, isSmall} from '../report/bootstrap.js';
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
	/** The grader whose outcome grades the picks are worth: a cell key, so two graders never pool. */
	readonly judgeModel: string;
	readonly items: number;
	/** Norms the items come from: the clusters every interval resamples (items of one norm are not independent). */
	readonly norms: number;
	/** Fewer than 10 norms (the one small-sample rule). */
	readonly small: boolean;
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
	/** Share of items where the reward model's pick reaches the ceiling, with a Wilson interval on the effective number of norms. */
	readonly hitsCeiling: Estimate | null;
};

/**
 * Per cell (policy model, grader). Only the first `n` samples of each item count (all when n is
 * absent), so one evaluation with 16 samples answers best-of-4, -8 and -16. Ties in reward go to the
 * earlier sample. Intervals come from the one interval engine, items clustered by their norm, as in
 * `crisp report`: the same items give the same interval there and here.
 */
export function rewardBestOfN(evals: readonly SituatedEval[], rewards: ReadonlyMap<string, number>, n?: number, options: BootstrapOptions = {}): BoNRow[] {
	const byCell = new Map<string, SituatedEval[]>();
	const cellKey = (evaluation: SituatedEval) => JSON.stringify([evaluation.policyModel, evaluation.judgeModel]);
	for (const evaluation of evals) byCell.set(cellKey(evaluation), [...(byCell.get(cellKey(evaluation)) ?? []), evaluation]);
	return [...byCell.entries()]
		.sort(([a], [b]) => (a < b ? -1 : 1))
		.map(([key, list]) => {
			const [policyModel, judgeModel] = JSON.parse(key) as [string, string];
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
			const observe = (values: readonly number[]): Observation[] => values.map((value, index) => ({cluster: list[index]!.normId, key: list[index]!.itemId, value}));
			// The statistics `crisp report` also makes are keyed as it keys them, so the same items give the
			// same interval in both (the first sample's outcome never depends on N; the others only with all samples).
			const estimate = (values: readonly number[], what: string) => clusterMean(observe(values), options, what === 'outcome' || n === undefined ? `situated:${what}` : `situated:${what}@${n}`, 'norm');
			const norms = new Set(list.map((evaluation) => evaluation.normId)).size;
			return {
				policyModel,
				judgeModel,
				items: list.length,
				norms,
				small: isSmall(norms),
				n: used,
				unscored,
				first: estimate(first, 'outcome'),
				random: estimate(random, 'random'),
				rewardModel: estimate(picked, 'bon'),
				oracle: estimate(oracle, 'oracle'),
				gap: estimate(oracle.map((value, index) => value - picked[index]!), 'gap'),
				hitsCeiling: clusterShare(observe(picked.map((value, index) => (value === oracle[index] ? 1 : 0))), options),
			};
		});
}
