import type {KeptItem, ScoredAnswer, SelectorScores, SituatedEval} from '../domain/situated.js';
import {ModelCallError} from '../llm/types.js';
import {type CallContext, type GradeMock, askPolicy, gradeNormMatch, gradeOutcome} from './agents.js';
import {normSplit} from './cultures.js';
import {parsePolicyAnswer} from './policyAnswer.js';
import type {GroundingSource, RewardSelector} from './scorers.js';
import {type SituatedQuestion, rewardInput, situatedQuestion} from './views.js';

export type EvaluateOptions = {
	/** Answers sampled per item. @default 1 */
	readonly bestOf?: number;
	/** The reward model that ranks the samples for best-of-N; none: no best-of-N pick is made. */
	readonly selector?: RewardSelector | null;
	/** Where r_NGS comes from; none: grounding stays null. */
	readonly grounding?: GroundingSource | null;
	readonly now?: () => Date;
};

const gradeInput = (item: KeptItem, question: SituatedQuestion, answer: {answer: string; reasoning: string}): GradeMock => ({
	item: {culture: question.culture, norm: item.norm, chronotope: item.chronotope},
	draft: item.draft,
	answer: answer.answer,
	reasoning: answer.reasoning,
});

/**
 * Evaluates the policy on one kept item: N sampled answers (the policy sees the public question only),
 * each graded for outcome quality and norm match by the judge role (which reads the norm), optionally
 * grounded by an NGS source and scored by a reward model (which reads the public question and the
 * answer only). Invalid answers are not graded, grounded or scored: they count 0 in reports and get
 * the fixed invalid reward in training data, as in the paper.
 */
export async function evaluateItem(item: KeptItem, context: CallContext, options: EvaluateOptions = {}): Promise<SituatedEval> {
	const n = options.bestOf ?? 1;
	const question = situatedQuestion(item.culture, item.draft);
	const samples = await Promise.all(
		Array.from({length: n}, async (_, sample): Promise<ScoredAnswer> => {
			let raw: string;
			try {
				const response = await askPolicy(question, {...context, sample});
				// A reply the model layer kept although it was cut (by the token cap or a content filter) is not a whole answer.
				if (response.cut) return {sample, raw: response.value, answer: null, invalid: response.cut === 'length' ? 'reply cut off at the token limit' : "reply cut by the provider's content filter", outcome: null, normMatch: null, grounding: null};
				raw = response.value;
			} catch (error) {
				// An empty or cut-off reply (after the gateway's retries) is the policy's answer, and it is
				// invalid: scored like any other broken answer, not an evaluation failure.
				if (error instanceof ModelCallError && (error.kind === 'empty' || error.kind === 'truncated')) {
					return {sample, raw: '', answer: null, invalid: error.kind === 'empty' ? 'empty reply' : 'reply cut off at the token limit', outcome: null, normMatch: null, grounding: null};
				}
				throw error;
			}
			const parsed = parsePolicyAnswer(raw);
			if (!parsed.answer) return {sample, raw, answer: null, invalid: parsed.invalid, outcome: null, normMatch: null, grounding: null};
			const input = gradeInput(item, question, parsed.answer);
			const [outcome, normMatch, grounding] = await Promise.all([
				gradeOutcome(input, {...context, sample}),
				gradeNormMatch(input, {...context, sample}),
				options.grounding ? options.grounding.probability(input, {...context, sample}) : Promise.resolve(null),
			]);
			return {sample, raw, answer: parsed.answer, invalid: null, outcome: outcome.value, normMatch: normMatch.value, grounding};
		}),
	);
	const selectors = options.selector ? [await selectorScores(options.selector, question, samples, context)] : [];
	return {
		itemId: item.id,
		normId: item.norm.id,
		culture: item.norm.culture,
		country: item.norm.country,
		region: item.norm.region,
		split: normSplit(item.norm.id),
		policyModel: context.gateway.settings('assistant').model,
		judgeModel: context.gateway.settings('judge').model,
		samples,
		grounding: options.grounding?.id ?? null,
		selectors,
		createdAt: (options.now?.() ?? new Date()).toISOString(),
	};
}

/** One reward model's raw score for every valid sample (invalid ones are never shown to it: null). */
async function selectorScores(selector: RewardSelector, question: SituatedQuestion, samples: readonly ScoredAnswer[], context: CallContext): Promise<SelectorScores> {
	const scores = await Promise.all(samples.map((sample) => (sample.answer ? selector.score(rewardInput(question, sample.answer), {...context, sample: sample.sample}) : Promise.resolve(null))));
	return {id: selector.id, scores};
}

/**
 * What an evaluation saved earlier lacks for this run: the scores of a reward model it was not yet
 * ranked by, or grounding when it was made without. The samples and their grades are kept as they
 * are (no new policy or judge calls). Null when there is nothing to add.
 */
export async function completeEvaluation(existing: SituatedEval, item: KeptItem, context: CallContext, options: EvaluateOptions = {}): Promise<SituatedEval | null> {
	const question = situatedQuestion(item.culture, item.draft);
	const needsSelector = options.selector && !existing.selectors.some((selector) => selector.id === options.selector!.id);
	const needsGrounding = options.grounding && existing.grounding === null;
	if (!needsSelector && !needsGrounding) return null;
	const samples = needsGrounding
		? await Promise.all(existing.samples.map(async (sample) => (sample.answer ? {...sample, grounding: await options.grounding!.probability(gradeInput(item, question, sample.answer), {...context, sample: sample.sample})} : sample)))
		: existing.samples;
	const selectors = needsSelector ? [...existing.selectors, await selectorScores(options.selector!, question, samples, context)] : existing.selectors;
	return {...existing, samples, selectors, grounding: needsGrounding ? options.grounding!.id : existing.grounding, createdAt: (options.now?.() ?? new Date()).toISOString()};
}
