import type {ChatMessage} from '../domain/session.js';
import type {ScoredAnswer, SituatedEval, SituatedItem} from '../domain/situated.js';
import {renderPrompt} from '../llm/prompts.js';

export type SituatedPair = {
	readonly id: string;
	readonly itemId: string;
	readonly region: string;
	readonly normId: string;
	readonly policyModel: string;
	/** The policy's prompt: culture, scenario and question only (never the norm or reference answer). */
	readonly prompt: readonly ChatMessage[];
	readonly chosen: string;
	readonly rejected: string;
	readonly scores: {readonly chosen: PairScore; readonly rejected: PairScore};
};
type PairScore = {readonly outcome: number; readonly normMatch: number; readonly reward: number};

export type PairSkip = 'fewer than two valid samples' | 'margin too small' | 'item not found';

/**
 * One preference pair per evaluated item: the highest-reward valid answer against the lowest, kept
 * when their outcome scores differ by at least `minMargin` (pairs that differ only in noise teach a
 * reward model nothing). Invalid answers stay out: a format failure is not a cultural preference.
 */
export function situatedPair(evaluation: SituatedEval, item: SituatedItem | undefined, minMargin: number): {pair: SituatedPair} | {skip: PairSkip} {
	if (!item?.draft) return {skip: 'item not found'};
	const valid = evaluation.samples.filter((sample): sample is ScoredAnswer & {outcome: NonNullable<ScoredAnswer['outcome']>; normMatch: NonNullable<ScoredAnswer['normMatch']>} => sample.outcome !== null && sample.normMatch !== null);
	if (valid.length < 2) return {skip: 'fewer than two valid samples'};
	const ranked = [...valid].sort((a, b) => b.reward - a.reward || a.sample - b.sample);
	const best = ranked[0]!;
	const worst = ranked.at(-1)!;
	if (best.outcome.score - worst.outcome.score < minMargin) return {skip: 'margin too small'};
	const {scenario, question} = item.draft;
	const prompt = renderPrompt('situated/policy', {culture: item.culture, scenario, question}).messages;
	const score = (sample: typeof best): PairScore => ({outcome: sample.outcome.score, normMatch: sample.normMatch.score, reward: sample.reward});
	return {
		pair: {
			id: `${evaluation.itemId}:${evaluation.policyModel}:${best.sample}>${worst.sample}`,
			itemId: evaluation.itemId,
			region: evaluation.region,
			normId: evaluation.normId,
			policyModel: evaluation.policyModel,
			prompt,
			chosen: best.raw,
			rejected: worst.raw,
			scores: {chosen: score(best), rejected: score(worst)},
		},
	};
}

export type SituatedSft = {
	readonly messages: readonly ChatMessage[];
	readonly metadata: {readonly itemId: string; readonly region: string; readonly normId: string; readonly policyModel: string; readonly outcome: number; readonly normMatch: number};
};

/**
 * Rejection-sampled SFT: the best-of-N pick of an item, kept only when it scored at least
 * `minOutcome` and `minMatch`, as a chat example whose prompt is the public question only.
 */
export function situatedSft(evaluation: SituatedEval, item: SituatedItem | undefined, min: {readonly outcome: number; readonly match: number}): {example: SituatedSft} | {skip: string} {
	if (!item?.draft) return {skip: 'item not found'};
	const chosen = evaluation.samples[evaluation.chosen]!;
	if (!chosen.outcome || !chosen.normMatch) return {skip: 'no valid answer'};
	if (chosen.outcome.score < min.outcome) return {skip: 'outcome below the minimum'};
	if (chosen.normMatch.score < min.match) return {skip: 'norm match below the minimum'};
	const {scenario, question} = item.draft;
	const prompt = renderPrompt('situated/policy', {culture: item.culture, scenario, question}).messages;
	return {
		example: {
			messages: [...prompt, {role: 'assistant', content: JSON.stringify(chosen.answer)}],
			metadata: {itemId: evaluation.itemId, region: evaluation.region, normId: evaluation.normId, policyModel: evaluation.policyModel, outcome: chosen.outcome.score, normMatch: chosen.normMatch.score},
		},
	};
}
