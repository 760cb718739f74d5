import type {KeptItem, ScoredAnswer, SituatedEval} from '../domain/situated.js';
import {ModelCallError} from '../llm/types.js';
import {type CallContext, type GradeMock, askPolicy, gradeNormMatch, gradeOutcome} from './agents.js';
import {type Calibration, INVALID_REWARD, combinedReward} from './calibrate.js';
import {parsePolicyAnswer} from './policyAnswer.js';
import {situatedQuestion} from './views.js';

export type EvaluateOptions = {
	/** Answers sampled per item; best-of-N picks the highest reward. @default 1 */
	readonly bestOf?: number;
	/** Weight of norm grounding in the reward (λ). @default 0.5 */
	readonly lambda?: number;
	readonly calibration?: Calibration;
	readonly now?: () => Date;
};

/**
 * Evaluates the policy on one kept item: N sampled answers (the policy sees the public question only),
 * each graded for outcome quality and norm match by the judge role, a reward per answer, and the
 * best-of-N choice. Invalid answers are not graded (both scores count as 0 in reports) and get the
 * fixed invalid reward, so any valid answer beats them.
 */
export async function evaluateItem(item: KeptItem, context: CallContext, options: EvaluateOptions = {}): Promise<SituatedEval> {
	const n = options.bestOf ?? 1;
	const lambda = options.lambda ?? 0.5;
	const question = situatedQuestion(item.culture, item.draft);
	const samples = await Promise.all(
		Array.from({length: n}, async (_, sample): Promise<ScoredAnswer> => {
			let raw: string;
			try {
				raw = (await askPolicy(question, {...context, sample})).value;
			} catch (error) {
				// An empty or cut-off reply (after the gateway's retries) is the policy's answer, and it is
				// invalid: scored like any other broken answer, not an evaluation failure.
				if (error instanceof ModelCallError && (error.kind === 'empty' || error.kind === 'truncated')) {
					return {sample, raw: '', answer: null, invalid: error.kind === 'empty' ? 'empty reply' : 'reply cut off at the token limit', outcome: null, normMatch: null, reward: INVALID_REWARD};
				}
				throw error;
			}
			const parsed = parsePolicyAnswer(raw);
			if (!parsed.answer) return {sample, raw, answer: null, invalid: parsed.invalid, outcome: null, normMatch: null, reward: INVALID_REWARD};
			const input: GradeMock = {item: {culture: question.culture, norm: item.norm, chronotope: item.chronotope}, draft: item.draft, answer: parsed.answer.answer, reasoning: parsed.answer.reasoning};
			const [outcome, normMatch] = await Promise.all([gradeOutcome(input, {...context, sample}), gradeNormMatch(input, {...context, sample})]);
			const reward = combinedReward(outcome.value.score, normMatch.value.score, {lambda, calibration: options.calibration});
			return {sample, raw, answer: parsed.answer, invalid: null, outcome: outcome.value, normMatch: normMatch.value, reward};
		}),
	);
	return {
		itemId: item.id,
		region: item.norm.region,
		normId: item.norm.id,
		policyModel: context.gateway.settings('assistant').model,
		judgeModel: context.gateway.settings('judge').model,
		samples,
		chosen: bestSample(samples),
		createdAt: (options.now?.() ?? new Date()).toISOString(),
	};
}

/** Index of the highest reward; a tie goes to the earlier sample. */
export function bestSample(samples: readonly Pick<ScoredAnswer, 'reward'>[]): number {
	let best = 0;
	samples.forEach((sample, index) => {
		if (sample.reward > samples[best]!.reward) best = index;
	});
	return best;
}
