import {z} from 'zod';
import {ModelRole, type RoleSettings, type Session} from './session.js';
import {shortHash} from '../util/hash.js';

/*
 * The setup identity: the one definition of what makes two sessions comparable. Every setting that
 * changes what a model does is in it (per role: model, endpoint, sampling, token cap, reasoning effort,
 * structured mode, request extras; the judge mode, max turns, best-of width, prompts; the language and
 * interaction mode; who sat in the assistant's seat and whether they saw the hidden panes). `resume`
 * refuses a change of a role's part of it (app/episodes.ts, roleChanges), and reports group by it
 * (report/setups.ts). Nothing else decides comparability.
 */

/**
 * The name the offline judge goes by: a rubric (mock/rubric.ts), never a model judge. Sessions it
 * judged carry it as their judge model, so reports keep its scores in a judge cell of their own;
 * sessions judged before it existed keep the plain "mock" they were saved with.
 */
export const MOCK_JUDGE = 'mock:rubric';

/** The judge model name a session records: the rubric's name on the mock provider, else the model. */
export function judgeModelName(settings: Pick<RoleSettings, 'provider' | 'model'>): string {
	return settings.provider === 'mock' ? MOCK_JUDGE : settings.model;
}

/** What of a role's settings changes a measurement: not timeouts, streaming, notices or capabilities. */
export const RoleIdentity = z.strictObject({
	/** provider:model as it ran. */
	model: z.string(),
	/** Base URL; null for OpenAI's own endpoint, or no endpoint (mock, replay). */
	endpoint: z.string().nullable(),
	temperature: z.number().nullable(),
	/** top_p, sent through the role's request extras (`extraBody.top_p`); null when not set. */
	topP: z.number().nullable(),
	maxTokens: z.number().int().nullable(),
	reasoningEffort: z.string().nullable(),
	structured: z.string(),
	/** The rest of the role's request extras (top_p taken out), keys sorted; null when there are none. */
	extraBody: z.record(z.string(), z.unknown()).nullable(),
	/** A replayed role's recording. */
	replayFile: z.string().nullable(),
});
export type RoleIdentity = z.infer<typeof RoleIdentity>;

/** Keys sorted at every depth, so two equal objects serialise the same. */
function canonical(value: unknown): unknown {
	if (Array.isArray(value)) return value.map(canonical);
	if (value && typeof value === 'object') return Object.fromEntries(Object.entries(value as Record<string, unknown>).sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0)).map(([key, inner]) => [key, canonical(inner)]));
	return value;
}

/** A role's part of the setup identity. */
export function roleIdentity(settings: RoleSettings): RoleIdentity {
	const {top_p: topP, ...extras} = settings.extraBody ?? {};
	return {
		model: `${settings.provider}:${settings.model}`,
		endpoint: settings.baseURL,
		temperature: settings.temperature,
		topP: typeof topP === 'number' ? topP : null,
		maxTokens: settings.maxTokens,
		reasoningEffort: settings.reasoningEffort ?? null,
		structured: settings.structured,
		extraBody: Object.keys(extras).length > 0 ? (canonical(extras) as Record<string, unknown>) : null,
		replayFile: settings.replayFile,
	};
}

/** The fields of two role identities that differ (model first), each as `field from -> to`. */
export function roleDifferences(was: RoleIdentity, now: RoleIdentity): Array<{field: keyof RoleIdentity; from: unknown; to: unknown}> {
	return (Object.keys(was) as Array<keyof RoleIdentity>).filter((key) => JSON.stringify(was[key]) !== JSON.stringify(now[key])).map((field) => ({field, from: was[field], to: now[field]}));
}

/**
 * Everything about how an episode was run that makes its scores comparable or not with another's.
 * Two sessions with different setups are never pooled into one figure unless a report is told to.
 */
export const SessionSetup = z.strictObject({
	/** Who played the assistant: llm | gold | human | replay. */
	assistant: z.string(),
	/** role -> what of its settings changes a measurement (the last settings, after any allowed change). */
	roles: z.record(z.string(), RoleIdentity),
	judgeMode: z.string(),
	maxTurns: z.number().int(),
	/** Best-of-N width; null for one reply per turn. Best-of replies were chosen by an oracle-aware rater. */
	bestOf: z.number().int().nullable(),
	/** Hash of the prompt files the session started with. */
	promptsHash: z.string(),
	language: z.string(),
	mode: z.string(),
	/** A human assistant who was shown the hidden panes (no longer blind). */
	sawHidden: z.boolean(),
	/** Roles that ran on the offline mock. */
	mockRoles: z.array(ModelRole),
	/** The models changed mid-session (resumed with --allow-model-change). */
	modelChanged: z.boolean(),
});
export type SessionSetup = z.infer<typeof SessionSetup>;

/** The rubric judge is `mock:rubric` in the identity; a session judged by the older mock keeps `mock:mock` (and its key). */
function judgeAware(role: ModelRole, identity: RoleIdentity, judgeModel: string | undefined): RoleIdentity {
	return role === 'judge' && identity.model === 'mock:mock' && judgeModel === MOCK_JUDGE ? {...identity, model: MOCK_JUDGE} : identity;
}

/** The session's setup identity and its short hash (equal keys, comparable scores). */
export function setupOf(session: Pick<Session, 'config' | 'sawHidden'>): {setup: SessionSetup; setupKey: string} {
	const roles = session.config.roles;
	const setup: SessionSetup = {
		assistant: session.config.assistant,
		roles: Object.fromEntries(ModelRole.options.map((role) => [role, judgeAware(role, roleIdentity(roles[role]), session.config.models?.judge)])),
		judgeMode: session.config.judgeMode,
		maxTurns: session.config.maxTurns,
		bestOf: session.config.bestOf ?? null,
		promptsHash: shortHash(JSON.stringify(Object.entries(session.config.prompts).sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0)))),
		language: session.config.language,
		mode: session.config.mode,
		sawHidden: Boolean(session.sawHidden || session.config.sawHidden),
		mockRoles: ModelRole.options.filter((role) => roles[role].provider === 'mock'),
		modelChanged: (session.config.modelChanges?.length ?? 0) > 0,
	};
	return {setup, setupKey: shortHash(JSON.stringify(setup))};
}
