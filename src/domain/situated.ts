import {z} from 'zod';
import {RegionCode} from './universe.js';

/*
 * Culturally situated decision items (CRISP paper, section 3 and appendix A): a norm is placed in a
 * chronotope (a time-space-social configuration), turned into a scenario with an action question, and
 * refined by a reasoner / verifier loop until the question needs the norm without stating it.
 */

/** One cultural norm: what people there expect in some kind of situation. */
export const Norm = z.strictObject({
	id: z.string().regex(/^[a-z0-9][a-z0-9._-]*$/),
	region: RegionCode,
	/** Identity ids it is specific to; empty = region-wide. */
	identities: z.array(z.string()),
	text: z.string().min(10).describe('the norm as one or two plain sentences'),
	type: z.enum(['prescriptive', 'proscriptive']).describe('prescriptive: something expected; proscriptive: something to avoid'),
	/** Where it came from: a KB entry id or an imported file. */
	source: z.string(),
});
export type Norm = z.infer<typeof Norm>;

export const Chronotope = z.strictObject({
	time: z.string().min(3).describe('when: the temporal regime (work time, a holiday, a mealtime, an urgent moment, ...)'),
	place: z.string().min(3).describe('where: a concrete setting and how public or private it is'),
	participants: z.string().min(3).describe('who is there and how they are related (ranks, ages, closeness)'),
	activity: z.string().min(3).describe('what is going on, and what kind of moment it is'),
	expectations: z.string().min(3).describe('how behaviour is read in this setting: the formality and what an action would signal'),
});
export type Chronotope = z.infer<typeof Chronotope>;

/** What the question writer returns: the public question plus the private reference answer. */
export const SituatedDraft = z.strictObject({
	scenario: z.string().min(40),
	question: z.string().min(10),
	hiddenExpectedAnswer: z.string().min(10),
	notes: z.string(),
});
export type SituatedDraft = z.infer<typeof SituatedDraft>;

/** The Situated Reasoner's answer, written without sight of the norm. */
export const ReasonerAnswer = z.strictObject({
	action: z.string().min(3),
	reason: z.string().min(3),
	inferredNorms: z.array(z.strictObject({norm: z.string().min(3), evidence: z.string().min(3)})).min(1),
});
export type ReasonerAnswer = z.infer<typeof ReasonerAnswer>;

const Check = z.strictObject({score: z.number().int().min(0).max(1), reason: z.string()});

/** The Norm-Grounded Verifier's five binary checks (A, E, N, R, L). */
export const Verification = z.strictObject({
	actionCorrect: Check.describe('A: the proposed action is appropriate here'),
	evidenceSupport: Check.describe('E: concrete cues in the scenario support the inferred norm'),
	normMatch: Check.describe('N: an inferred norm means the same as the target norm'),
	reasonSupportsAction: Check.describe('R: the reasoning supports the action'),
	normLeakage: Check.describe('L: 1 when the scenario or question gives the norm away'),
});
export type Verification = z.infer<typeof Verification>;

export const RouteDecision = z.enum(['keep', 'rerun-answer', 'revise-question']);
export type RouteDecision = z.infer<typeof RouteDecision>;

export const ResponseAdvice = z.strictObject({diagnosis: z.string(), guidance: z.string().min(3)});
export type ResponseAdvice = z.infer<typeof ResponseAdvice>;

export const RevisionPlan = z.strictObject({diagnosis: z.string(), goal: z.string(), guidance: z.string().min(3)});
export type RevisionPlan = z.infer<typeof RevisionPlan>;

/** One verification round of the refinement loop, with what the router made of it. */
export const RefinementRound = z.strictObject({
	round: z.number().int().positive(),
	draft: SituatedDraft,
	answer: ReasonerAnswer,
	verification: Verification,
	decision: RouteDecision,
	/** Why the router decided so, in words (the failed checks). */
	diagnosis: z.string(),
	advice: ResponseAdvice.nullable(),
	plan: RevisionPlan.nullable(),
});
export type RefinementRound = z.infer<typeof RefinementRound>;

/** A built item: kept when a round passed every check, discarded when the round budget ran out first. */
export const SituatedItem = z.strictObject({
	id: z.string(),
	/** The culture line every agent and the policy are given: the region, with the communities a norm is specific to. */
	culture: z.string(),
	norm: Norm,
	chronotopeIndex: z.number().int().nonnegative(),
	chronotope: Chronotope,
	status: z.enum(['kept', 'discarded', 'failed']),
	/** The final draft (the kept one, or the last one tried); null when not even the first could be written. */
	draft: SituatedDraft.nullable(),
	rounds: z.array(RefinementRound),
	/** Why a failed item failed (a model call that gave up). */
	error: z.string().nullable(),
	models: z.record(z.string(), z.string()),
	createdAt: z.string(),
});
export type SituatedItem = z.infer<typeof SituatedItem>;

/** An item that passed every check: the only kind that is evaluated or exported. */
export type KeptItem = SituatedItem & {readonly status: 'kept'; readonly draft: SituatedDraft};
export const isKept = (item: SituatedItem): item is KeptItem => item.status === 'kept' && item.draft !== null;

/** What the policy under evaluation must return: an answer and its visible reasoning, nothing else. */
export const PolicyAnswer = z.strictObject({answer: z.string().min(1), reasoning: z.string().min(1)});
export type PolicyAnswer = z.infer<typeof PolicyAnswer>;

/** Outcome quality, 1-5: does the proposed action handle this situation well. */
export const OutcomeScore = z.strictObject({score: z.number().int().min(1).max(5), evidence: z.string(), reason: z.string()});
export type OutcomeScore = z.infer<typeof OutcomeScore>;

/** Norm match, 0-2: does the visible reasoning recover the target norm. */
export const NormMatchScore = z.strictObject({score: z.number().int().min(0).max(2), reason: z.string()});
export type NormMatchScore = z.infer<typeof NormMatchScore>;

/** One sampled answer of the policy to an item, with its scores (null scores: the answer was invalid). */
export const ScoredAnswer = z.strictObject({
	sample: z.number().int().nonnegative(),
	raw: z.string(),
	answer: PolicyAnswer.nullable(),
	/** Why the raw reply was not a valid answer (invalid answers score 0 on both scales, as in the paper). */
	invalid: z.string().nullable(),
	outcome: OutcomeScore.nullable(),
	normMatch: NormMatchScore.nullable(),
	/** Calibrated reward in [0, 1] used for best-of-N selection (outcome and norm match combined). */
	reward: z.number(),
});
export type ScoredAnswer = z.infer<typeof ScoredAnswer>;

/** One evaluated item: every sample, and which one best-of-N picked. */
export const SituatedEval = z.strictObject({
	itemId: z.string(),
	region: RegionCode,
	normId: z.string(),
	policyModel: z.string(),
	judgeModel: z.string(),
	samples: z.array(ScoredAnswer).min(1),
	/** Index into samples of the best-of-N choice (highest reward; a tie goes to the earlier sample). */
	chosen: z.number().int().nonnegative(),
	createdAt: z.string(),
});
export type SituatedEval = z.infer<typeof SituatedEval>;
