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
