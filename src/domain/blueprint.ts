import {z} from 'zod';
import {Severity} from './kb.js';
import {LanguageId} from './universe.js';

/*
 * The blueprint (paper equation 2): b_s = (P_pub, P_priv, P_oracle, L, M).
 * `BlueprintDraft` is what the generator model writes (sent as a strict JSON schema, so every field is
 * required and absent values are null); `Blueprint` is what the session stores after validation.
 */

export const FilledSlot = z.strictObject({name: z.string(), value: z.string().min(1)});

/** P_pub: all the assistant will ever be given before the dialogue starts. */
export const PublicState = z.strictObject({
	initialMessage: z.string().min(10).describe('the first user message, in English'),
});
export type PublicState = z.infer<typeof PublicState>;

export const HiddenConstraint = z.strictObject({
	constraint: z.string().min(5),
	discloseWhen: z.string().min(3).describe('what should prompt the user to reveal it'),
});

/** P_priv: what guides the simulated user (never shown to the assistant in eval mode). */
export const PrivateState = z.strictObject({
	identity: z.string().min(10).describe('who the user is, in the first person or as a short profile'),
	style: z.string().min(5).describe('how the user talks'),
	situation: z.string().min(20).describe('the concrete situation with the filled-in details'),
	goal: z.string().min(5).describe('what the user ultimately needs'),
	summary: z.string().min(10).describe('one-paragraph scenario summary'),
	slots: z.array(FilledSlot),
	hiddenConstraints: z.array(HiddenConstraint).min(1),
});
export type PrivateState = z.infer<typeof PrivateState>;

export const Tripwire = z.strictObject({
	id: z.string().regex(/^T\d+$/, 'tripwire ids are T1, T2, ...'),
	description: z.string().min(5),
	severity: Severity,
	evidenceId: z.string().nullable().describe('taboo or cultural KB id it is grounded in'),
});
export type Tripwire = z.infer<typeof Tripwire>;

/** P_oracle: success and failure criteria, taboos and tripwires; seen by the judge (and gold teacher) only. */
export const OracleState = z.strictObject({
	successCriteria: z.array(z.string().min(5)).min(1),
	failureCriteria: z.array(z.string().min(5)).min(1),
	taboos: z.array(z.strictObject({description: z.string().min(5), evidenceId: z.string().nullable()})),
	tripwires: z.array(Tripwire),
	friction: z.string().nullable().describe('contextual tier: the cross-cultural friction at play'),
});
export type OracleState = z.infer<typeof OracleState>;

export const BlueprintDraft = z.strictObject({
	public: PublicState,
	private: PrivateState,
	oracle: OracleState,
	nativeInitialMessage: z.string().min(2).describe('the same first message written in the persona\'s native language'),
});
export type BlueprintDraft = z.infer<typeof BlueprintDraft>;

/** L: language directives for both language modes. */
export const LanguageDirectives = z.strictObject({
	native: LanguageId,
	nativeName: z.string(),
	english: z.strictObject({directive: z.string()}),
	nativeMode: z.strictObject({directive: z.string(), initialMessage: z.string()}),
});
export type LanguageDirectives = z.infer<typeof LanguageDirectives>;

export const ValidationAttempt = z.strictObject({
	attempt: z.number().int().positive(),
	ok: z.boolean(),
	problems: z.array(z.string()),
	callIds: z.array(z.string()),
});
export type ValidationAttempt = z.infer<typeof ValidationAttempt>;

/** M: provenance and validation traces. */
export const BlueprintMeta = z.strictObject({
	evidenceIds: z.array(z.string()),
	openerStyles: z.array(z.string()),
	attempts: z.array(ValidationAttempt),
	/** Validation trace of the shard stage, filled in when shards are generated. */
	shardAttempts: z.array(ValidationAttempt),
	model: z.string(),
	mock: z.boolean(),
	createdAt: z.string(),
});

export const Blueprint = z.strictObject({
	public: PublicState,
	private: PrivateState,
	oracle: OracleState,
	language: LanguageDirectives,
	meta: BlueprintMeta,
});
export type Blueprint = z.infer<typeof Blueprint>;

/** The leak / answerability / tier audit of a blueprint (validator role). */
export const BlueprintAudit = z.strictObject({
	leaksOracle: z.boolean().describe('the English opening message reveals a taboo, tripwire, hidden constraint or success criterion'),
	nativeLeaksOracle: z.boolean().describe('the native-language opening message reveals one'),
	nativeMatchesEnglish: z.boolean().describe('the native opening message asks for the same thing and discloses the same facts as the English one, nothing more and nothing less'),
	answerable: z.boolean(),
	tierChallengePresent: z.boolean(),
	problems: z.array(z.string()),
});
export type BlueprintAudit = z.infer<typeof BlueprintAudit>;
