import type {ChatMessage} from '../domain/session.js';
import type {NormSplit, PolicyAnswer, SituatedEval, SituatedItem} from '../domain/situated.js';
import type {PairParts} from '../export/pairFormats.js';
import {renderPrompt} from '../llm/prompts.js';
import {normSplit, stableUnit} from './cultures.js';
import {oraclePick} from './selection.js';

/*
 * Training data from graded answers, built the way CRISP builds its reward-model data (appendix B.1):
 * pool every valid answer to a question (across the policy models that answered it), balance the pool
 * across outcome grades, then pair every two answers to the same question whose grades differ (the
 * higher one chosen, ties excluded), keeping at most eight pairs per question, drawn uniformly (by a
 * stable hash, so the same files give the same pairs). The prompt of every pair is the policy prompt:
 * culture, scenario and question only, never the norm or the reference answer.
 */

export type PairOptions = {
	/** Fewest outcome points between chosen and rejected. @default 1 (any different grades) */
	readonly minMargin: number;
	/** At most this many pairs per question. @default 8 */
	readonly maxPerItem: number;
	/** Balance the answer pool across outcome grades before pairing. @default true */
	readonly balance: boolean;
	/** Only items of this split ('any': all). @default 'train' */
	readonly split: NormSplit | 'any';
};

type Response = {
	readonly key: string;
	readonly itemId: string;
	readonly policyModel: string;
	readonly sample: number;
	readonly outcome: number;
	readonly normMatch: number;
	/** The answer as the policy should learn to write it: the two-field JSON object. */
	readonly content: string;
};

export type PairBuild = {
	readonly pairs: PairParts[];
	/** Evaluations or items left out, by reason. */
	readonly skipped: Record<string, number>;
	/** Answers per outcome grade before and after balancing, and the cap used (null: not balanced). */
	readonly pool: {readonly before: Record<string, number>; readonly after: Record<string, number>; readonly cap: number | null};
};

/** The policy's own prompt for an item (system + user): what a trained policy will be asked. */
export const policyPrompt = (item: SituatedItem & {draft: NonNullable<SituatedItem['draft']>}): readonly ChatMessage[] => renderPrompt('situated/policy', {culture: item.culture, scenario: item.draft.scenario, question: item.draft.question}).messages;

const answerContent = (answer: PolicyAnswer) => JSON.stringify({answer: answer.answer, reasoning: answer.reasoning});

const countBy = (responses: readonly {readonly outcome: number}[]) => {
	const counts: Record<string, number> = {};
	for (const response of responses) counts[String(response.outcome)] = (counts[String(response.outcome)] ?? 0) + 1;
	return counts;
};

/**
 * Balancing (CRISP B.1 "balance responses across different score ranges"): no grade may hold more
 * answers than the median grade does, so a pool where most answers got 5 does not turn into pairs that
 * mostly teach "5 beats 4". Which answers stay is a stable hash of their ids.
 */
export function balancePool<T extends {readonly key: string; readonly outcome: number}>(responses: readonly T[]): {kept: T[]; cap: number | null} {
	const counts = Object.values(countBy(responses)).sort((a, b) => a - b);
	if (counts.length < 2) return {kept: [...responses], cap: null};
	const cap = counts[Math.floor((counts.length - 1) / 2)]!;
	const byGrade = new Map<number, T[]>();
	for (const response of responses) byGrade.set(response.outcome, [...(byGrade.get(response.outcome) ?? []), response]);
	const kept = new Set<string>();
	for (const group of byGrade.values()) for (const response of [...group].sort((a, b) => stableUnit(`balance|${a.key}`) - stableUnit(`balance|${b.key}`)).slice(0, cap)) kept.add(response.key);
	return {kept: responses.filter((response) => kept.has(response.key)), cap};
}

export function buildSituatedPairs(evals: readonly SituatedEval[], items: ReadonlyMap<string, SituatedItem>, options: PairOptions): PairBuild {
	const skipped: Record<string, number> = {};
	const skip = (reason: string) => (skipped[reason] = (skipped[reason] ?? 0) + 1);
	const pool: Response[] = [];
	const seen = new Set<string>();
	for (const evaluation of evals) {
		const item = items.get(evaluation.itemId);
		if (!item?.draft) {
			skip('item not found');
			continue;
		}
		if (options.split !== 'any' && normSplit(item.norm.id) !== options.split) {
			skip(`${normSplit(item.norm.id)} split`);
			continue;
		}
		for (const sample of evaluation.samples) {
			if (!sample.answer || !sample.outcome || !sample.normMatch) continue;
			const content = answerContent(sample.answer);
			// The same answer twice (two samples, or two models) makes no pair with itself.
			if (seen.has(`${evaluation.itemId}\0${content}`)) continue;
			seen.add(`${evaluation.itemId}\0${content}`);
			pool.push({key: `${evaluation.itemId}#${evaluation.policyModel}#${sample.sample}`, itemId: evaluation.itemId, policyModel: evaluation.policyModel, sample: sample.sample, outcome: sample.outcome.score, normMatch: sample.normMatch.score, content});
		}
	}
	const {kept, cap} = options.balance ? balancePool(pool) : {kept: pool, cap: null};
	const byItem = new Map<string, Response[]>();
	for (const response of kept) byItem.set(response.itemId, [...(byItem.get(response.itemId) ?? []), response]);
	const pairs: PairParts[] = [];
	for (const [itemId, responses] of [...byItem.entries()].sort(([a], [b]) => (a < b ? -1 : 1))) {
		const item = items.get(itemId)! as SituatedItem & {draft: NonNullable<SituatedItem['draft']>};
		const candidates: Array<{id: string; chosen: Response; rejected: Response}> = [];
		for (const a of responses) for (const b of responses) if (a.outcome - b.outcome >= options.minMargin) candidates.push({id: `${a.key}>${b.key}`, chosen: a, rejected: b});
		if (candidates.length === 0) {
			skip(responses.length < 2 ? 'fewer than two distinct valid answers' : 'no two answers far enough apart');
			continue;
		}
		const prompt = policyPrompt(item);
		for (const candidate of candidates.sort((x, y) => stableUnit(`pair|${x.id}`) - stableUnit(`pair|${y.id}`)).slice(0, options.maxPerItem)) {
			const score = (response: Response) => ({outcome: response.outcome, normMatch: response.normMatch, policyModel: response.policyModel, sample: response.sample});
			pairs.push({
				prompt,
				chosen: candidate.chosen.content,
				rejected: candidate.rejected.content,
				extra: {id: candidate.id, metadata: {itemId, normId: item.norm.id, culture: item.norm.culture, country: item.norm.country, split: normSplit(item.norm.id), chosen: score(candidate.chosen), rejected: score(candidate.rejected)}},
			});
		}
	}
	return {pairs, skipped, pool: {before: countBy(pool), after: countBy(kept), cap}};
}

export type SituatedSft = {
	readonly messages: readonly ChatMessage[];
	readonly metadata: {readonly itemId: string; readonly normId: string; readonly culture: string; readonly country: string | null; readonly split: NormSplit; readonly policyModel: string; readonly outcome: number; readonly normMatch: number};
};

/**
 * Rejection-sampled SFT: the oracle pick of an item (its best-graded answer), kept only when it scored
 * at least `minOutcome` and `minMatch`, as a chat example whose prompt is the public question only.
 * Using the grader here is right: training data is made from graded answers, unlike a best-of-N test.
 */
export function situatedSft(evaluation: SituatedEval, item: SituatedItem | undefined, min: {readonly outcome: number; readonly match: number; readonly split: NormSplit | 'any'}): {example: SituatedSft} | {skip: string} {
	if (!item?.draft) return {skip: 'item not found'};
	const split = normSplit(item.norm.id);
	if (min.split !== 'any' && split !== min.split) return {skip: `${split} split`};
	const chosen = evaluation.samples[oraclePick(evaluation.samples)]!;
	if (!chosen.answer || !chosen.outcome || !chosen.normMatch) return {skip: 'no valid answer'};
	if (chosen.outcome.score < min.outcome) return {skip: 'outcome below the minimum'};
	if (chosen.normMatch.score < min.match) return {skip: 'norm match below the minimum'};
	const prompt = policyPrompt(item as SituatedItem & {draft: NonNullable<SituatedItem['draft']>});
	return {
		example: {
			messages: [...prompt, {role: 'assistant', content: answerContent(chosen.answer)}],
			metadata: {itemId: evaluation.itemId, normId: evaluation.normId, culture: item.norm.culture, country: item.norm.country, split, policyModel: evaluation.policyModel, outcome: chosen.outcome.score, normMatch: chosen.normMatch.score},
		},
	};
}
