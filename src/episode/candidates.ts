import {z} from 'zod';
import {numberFrom1To} from '../domain/knownSets.js';
import type {Session} from '../domain/session.js';
import {renderPrompt} from '../llm/prompts.js';
import type {ModelResponse} from '../llm/types.js';
import {type JudgeCallOptions, judgeContext} from './judge.js';
import {framedCandidates, transcriptForJudge} from './transcript.js';
import {shardIndexFor} from './views.js';

/** The rater's verdict on a set of best-of-N candidates: one score per candidate. */
export const CandidateRatings = z.strictObject({
	ratings: z.array(z.strictObject({candidate: z.number().int().min(1), rationale: z.string(), score: z.number().int().min(1).max(5)})),
});
export type CandidateRatings = z.infer<typeof CandidateRatings>;

/**
 * The schema of one rating call over `count` candidates: exactly `count` ratings, each naming a
 * candidate from 1 to `count` (an enum). A grammar-enforcing server then cannot rate "candidate
 * 110" of 2; `ratingProblems` still checks that each candidate is rated once.
 */
export function candidateRatingsFor(count: number): z.ZodType<CandidateRatings> {
	return CandidateRatings.extend({
		ratings: z.array(z.strictObject({candidate: numberFrom1To(count), rationale: z.string(), score: z.number().int().min(1).max(5)})).length(count),
	});
}

/** What the offline mock provider receives for a rating call. */
export type CandidateMockInput = {readonly session: Session; readonly candidates: readonly string[]};

/** Every candidate rated exactly once: anything else goes back to the model as feedback. */
export function ratingProblems(value: CandidateRatings, count: number): string[] {
	const problems: string[] = [];
	const seen = new Set<number>();
	for (const rating of value.ratings) {
		if (rating.candidate > count) problems.push(`there are only ${count} candidates, but a rating is for candidate ${rating.candidate}`);
		else if (seen.has(rating.candidate)) problems.push(`candidate ${rating.candidate} is rated twice`);
		seen.add(rating.candidate);
	}
	for (let candidate = 1; candidate <= count; candidate++) if (!seen.has(candidate)) problems.push(`candidate ${candidate} has no rating`);
	return problems;
}

/** Index (0-based) of the best-rated candidate; a tie goes to the earlier sample. */
export function chooseCandidate(value: CandidateRatings): number {
	let best = value.ratings[0]!;
	for (const rating of value.ratings) if (rating.score > best.score || (rating.score === best.score && rating.candidate < best.candidate)) best = rating;
	return best.candidate - 1;
}

/** One judge-role call rating the candidates for the next assistant turn, with the judge's full view. */
export async function rateCandidates(session: Session, candidates: readonly string[], options: JudgeCallOptions): Promise<ModelResponse<CandidateRatings>> {
	const shard = session.shards?.[shardIndexFor(session)];
	const phase = shard ? `${shard.title}: ${shard.goal}\nSuccess: ${shard.successCondition}\nFailure: ${shard.failureCondition}` : '(no plan)';
	const prompt = renderPrompt('candidate-rating', {
		context: judgeContext(session),
		phase,
		transcript: transcriptForJudge(session.turns),
		count: String(candidates.length),
		candidates: framedCandidates(candidates),
	});
	return options.gateway.call({
		role: 'judge',
		stage: 'candidates',
		prompt,
		schema: {name: 'candidate_ratings', schema: candidateRatingsFor(candidates.length)},
		validate: (value) => ratingProblems(value, candidates.length),
		mock: {session, candidates} satisfies CandidateMockInput,
		step: options.step,
		signal: options.signal,
		onEvent: options.onEvent,
	});
}
