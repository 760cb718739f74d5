import {z} from 'zod';
import {RegionCode} from './universe.js';

/*
 * Culturally situated decision items (CRISP paper, section 3 and appendix A): a norm is placed in a
 * chronotope (a time-space-social configuration), turned into a scenario with an action question, and
 * refined by a reasoner / verifier loop until the question needs the norm without stating it.
 */

/**
 * What a norm is about: the paper's extraction categories (CRISP tables 6 and 7: dining etiquette,
 * tipping, eating utensils, social hierarchy, hospitality, communication, public behaviour, family,
 * religion, workplace) plus gift giving and greetings, two of NormAd's etiquette headings.
 */
export const NORM_CATEGORIES = [
	'dining_etiquette',
	'eating_utensils',
	'tipping',
	'gift_giving',
	'hospitality',
	'greetings',
	'communication',
	'public_behavior',
	'social_hierarchy',
	'family',
	'religion',
	'workplace',
	'other',
] as const;
export const NormCategory = z.enum(NORM_CATEGORIES);
export type NormCategory = z.infer<typeof NormCategory>;

/** ISO 3166-1 alpha-2, upper case ("DE", "US"). The ten persona regions use theirs as region codes. */
export const CountryCode = z.string().regex(/^[A-Z]{2}$/, 'must be an ISO 3166-1 alpha-2 code such as "DE"');

/** Which split a norm, and every item built from it, belongs to (a stable hash of the norm id). */
export const NormSplit = z.enum(['train', 'validation', 'test']);
export type NormSplit = z.infer<typeof NormSplit>;

/** One cultural norm: what people of a culture expect in some kind of situation. */
export const Norm = z.strictObject({
	id: z.string().regex(/^[a-z0-9][a-z0-9._-]*$/),
	/** A free label, as the source names the culture: "Germany", "USA", "Japan", "Tamil Hindus in Malaysia". */
	culture: z.string().min(2).describe('the culture as its source names it (a free label)'),
	country: CountryCode.nullable().describe('ISO 3166-1 alpha-2 code of the country, when the culture is one'),
	/** One of the ten persona regions when the culture is one of them (then `identities` may name its communities). */
	region: RegionCode.nullable(),
	/** Identity ids of `region` it is specific to; empty = the whole culture. */
	identities: z.array(z.string()),
	text: z.string().min(10).max(2000, 'a norm may have at most 2,000 characters: it is one or two sentences').describe('the norm as one or two plain sentences'),
	type: z.enum(['prescriptive', 'proscriptive']).describe('prescriptive: something expected; proscriptive: something to avoid'),
	category: NormCategory,
	/** Where it came from: a KB entry id, or a data set and its row. */
	source: z.string(),
});
export type Norm = z.infer<typeof Norm>;

/**
 * The paper's chronotope (CRISP A.2, table 8): not a story but the frame one is set in. `frame` is the
 * interpretive frame (how formal or private the moment is, what an action signals there), `tension`
 * the reasonable-looking move that would go wrong, `activation` what makes the norm apply, and
 * `difference` how the setting departs from the ones accepted before it.
 */
export const Chronotope = z.strictObject({
	time: z.string().min(3).describe('when: the temporal regime (work time, a holiday, a mealtime, an urgent moment, ...)'),
	place: z.string().min(3).describe('where: a concrete setting and its social space (home, workplace, shop, place of worship, online ...)'),
	participants: z.string().min(3).describe('who is there and how they are related (ranks, ages, closeness, host and guest ...)'),
	activity: z.string().min(3).describe('the occasion: what is going on (visiting, dining, gift-giving, asking a favour, ...)'),
	frame: z.string().min(3).describe('the interpretive frame: how private or formal the moment is and how an action would be read by those present'),
	tension: z.string().min(3).describe('the potential tension: a reasonable-looking move that would be inappropriate here'),
	activation: z.string().min(3).describe('the activation condition: what in the situation makes the norm matter'),
	difference: z.string().min(3).describe('how this setting differs in structure from the settings accepted before it ("the first setting" when there are none)'),
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
	/** The culture line every agent and the policy are given: the culture, with the communities a norm is specific to. */
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
	/** The failure's kind and role (a set-up failure repeated across items stops the run). */
	errorKind: z.string().optional(),
	errorRole: z.string().optional(),
	models: z.record(z.string(), z.string()),
	createdAt: z.string(),
});
export type SituatedItem = z.infer<typeof SituatedItem>;

/** An item that passed every check: the only kind that is evaluated or exported. */
export type KeptItem = SituatedItem & {readonly status: 'kept'; readonly draft: SituatedDraft};
export const isKept = (item: SituatedItem): item is KeptItem => item.status === 'kept' && item.draft !== null;

/** What the norm extractor returns for one source row (CRISP A.1, tables 6 and 7). */
export const ExtractedNorm = z.strictObject({
	statesNorm: z.boolean().describe('false when the row states no cultural norm (then `norm` says why)'),
	norm: z.string().describe('one concise sentence stating the norm (or, when statesNorm is false, why there is none)'),
	type: z.enum(['prescriptive', 'proscriptive']),
	category: NormCategory,
});
export type ExtractedNorm = z.infer<typeof ExtractedNorm>;

/** A source row `crisp norms extract` could not turn into a norm, and why (kept next to the norms file). */
export const RejectedRow = z.strictObject({
	/** The data set's own row id (FORK `ID`, CulturalBench `question_idx`, NormAd `ID`) or the line number. */
	row: z.string(),
	line: z.number().int().positive(),
	reason: z.string(),
	/** True when a model read the row and found no norm in it; false when the row itself is unusable. */
	byModel: z.boolean(),
});
export type RejectedRow = z.infer<typeof RejectedRow>;

/** What the policy under evaluation must return: an answer and its visible reasoning, nothing else. */
export const PolicyAnswer = z.strictObject({answer: z.string().min(1), reasoning: z.string().min(1)});
export type PolicyAnswer = z.infer<typeof PolicyAnswer>;

/** Outcome quality, 1-5: does the proposed action handle this situation well. */
export const OutcomeScore = z.strictObject({score: z.number().int().min(1).max(5), evidence: z.string(), reason: z.string()});
export type OutcomeScore = z.infer<typeof OutcomeScore>;

/** Norm match, 0-2: does the visible reasoning recover the target norm. */
export const NormMatchScore = z.strictObject({score: z.number().int().min(0).max(2), reason: z.string()});
export type NormMatchScore = z.infer<typeof NormMatchScore>;

/** What a chat model used as a pointwise reward model returns: a short assessment, then a score. */
export const RewardScore = z.strictObject({assessment: z.string(), score: z.number().int().min(1).max(10)});
export type RewardScore = z.infer<typeof RewardScore>;

/** The judge-role norm grounding classifier (the paper's NGS): how likely the reasoning is grounded in the norm. */
export const GroundingScore = z.strictObject({reason: z.string(), grounded: z.number().min(0).max(1).describe('probability that the reasoning is grounded in the target norm')});
export type GroundingScore = z.infer<typeof GroundingScore>;

/** One sampled answer of the policy to an item, with its grades (null grades: the answer was invalid). */
export const ScoredAnswer = z.strictObject({
	sample: z.number().int().nonnegative(),
	raw: z.string(),
	answer: PolicyAnswer.nullable(),
	/** Why the raw reply was not a valid answer (invalid answers score 0 on both scales, as in the paper). */
	invalid: z.string().nullable(),
	outcome: OutcomeScore.nullable(),
	normMatch: NormMatchScore.nullable(),
	/** Norm grounding r_NGS = p(grounded) in [0, 1]; null for an invalid answer or when no NGS source was asked. */
	grounding: z.number().min(0).max(1).nullable(),
});
export type ScoredAnswer = z.infer<typeof ScoredAnswer>;

/**
 * The raw scores one reward model gave the samples of an evaluation, aligned with `samples` (null: an
 * invalid answer, which is never shown to a reward model). `id` is `model:<name>` for a chat model
 * used as a reward model, or `endpoint:<url>` for a scoring service.
 */
export const SelectorScores = z.strictObject({
	id: z.string().regex(/^(model|endpoint):\S+$/),
	scores: z.array(z.number().nullable()),
});
export type SelectorScores = z.infer<typeof SelectorScores>;

/** One evaluated item: every sample with its grades, and what each reward model thought of them. */
export const SituatedEval = z.strictObject({
	itemId: z.string(),
	normId: z.string(),
	culture: z.string(),
	country: CountryCode.nullable(),
	region: RegionCode.nullable(),
	split: NormSplit,
	policyModel: z.string(),
	/** The grader of outcome and norm match (it reads the norm: its own pick is the oracle ceiling, never a best-of-N result). */
	judgeModel: z.string(),
	samples: z.array(ScoredAnswer).min(1),
	/** Where `grounding` came from (`judge:<model>` or `endpoint:<url>`), or null when it was not asked for. */
	grounding: z.string().nullable(),
	selectors: z.array(SelectorScores),
	createdAt: z.string(),
});
export type SituatedEval = z.infer<typeof SituatedEval>;
