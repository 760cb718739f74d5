import {z} from 'zod';
import {perMetric, ModelRole, SessionStatus} from './session.js';

/**
 * Everything about how an episode was run that makes its scores comparable or not with another's,
 * apart from what reports slice by anyway (language, interaction mode, region, ...). Two sessions with
 * different setups are never pooled into one figure unless a report is told to (`--pool-setups`).
 */
export const SessionSetup = z.strictObject({
	/** Who played the assistant: llm | gold | human | replay. */
	assistant: z.string(),
	/** role -> provider:model as it ran (the last model, after any allowed change). */
	models: z.record(z.string(), z.string()),
	/** role -> base URL (null: OpenAI's own, or no endpoint for mock and replay roles). */
	endpoints: z.record(z.string(), z.string().nullable()),
	judgeMode: z.string(),
	maxTurns: z.number().int(),
	/** Best-of-N width; null for one reply per turn. Best-of replies were chosen by an oracle-aware rater. */
	bestOf: z.number().int().nullable(),
	/** Hash of the prompt files the session started with. */
	promptsHash: z.string(),
	/** A human assistant who opened the hidden panes (no longer blind). */
	sawHidden: z.boolean(),
	/** Roles that ran on the offline mock. */
	mockRoles: z.array(ModelRole),
	/** The models changed mid-session (resumed with --allow-model-change). */
	modelChanged: z.boolean(),
});
export type SessionSetup = z.infer<typeof SessionSetup>;

/** One row of the sessions list: enough to browse, sort and filter without holding transcripts. */
export const SessionSummary = z.strictObject({
	id: z.string(),
	path: z.string(),
	status: SessionStatus,
	createdAt: z.string(),
	updatedAt: z.string(),
	seedId: z.string(),
	personaId: z.string(),
	identity: z.string(),
	region: z.string(),
	templateId: z.string(),
	tier: z.string(),
	split: z.string(),
	language: z.string(),
	mode: z.string(),
	assistant: z.string(),
	assistantModel: z.string(),
	turns: z.number().int(),
	threeH: z.number().nullable(),
	tdq: z.number().nullable(),
	clean: z.boolean().nullable(),
	scores: perMetric(z.number().nullable()).nullable(),
	judgeModel: z.string(),
	judgeMode: z.string(),
	/** The session whose dialogue this re-judged copy shares (`rejudge`), else null. */
	rejudgeOf: z.string().nullable(),
	errorFlag: z.string().nullable(),
	termination: z.string().nullable(),
	mock: z.boolean(),
	/** Persona age cohort and gender (report slices). */
	age: z.string(),
	gender: z.string(),
	/** Trial number in a batch with --trials (1 for a single run). */
	trial: z.number().int(),
	/** Repeat number of a re-judged copy by the same judge (rejudge --repeat), else null. */
	rejudgeRepeat: z.number().int().nullable(),
	/** The blueprint's id: variants of a seed run from one blueprint share it (paired comparisons). */
	blueprintId: z.string().nullable(),
	/** Ids of the oracle tripwires and taboos the judge found violated. */
	violationIds: z.array(z.string()),
	setup: SessionSetup,
	/** Short hash of `setup`: equal keys, comparable scores. */
	setupKey: z.string(),
});
export type SessionSummary = z.infer<typeof SessionSummary>;

/** The status column of session lists: the error flag when there is one; "(rj)" marks a re-judged copy. */
export const statusLabel = (s: SessionSummary) => `${s.errorFlag ?? s.status}${s.rejudgeOf ? ' (rj)' : ''}`;

/**
 * Derived data kept next to the sessions (`<sessions>/.index.json`) so listing thousands of sessions
 * reads one small file instead of every transcript. An entry is trusted only while its file's inode,
 * size and mtime are unchanged (lowdb writes by rename, so every save gets a new inode); anything
 * else is re-read. Losing or damaging the index only costs one slow listing.
 */
export const SessionIndex = z.strictObject({
	format: z.literal('cultureconverse.session-index'),
	version: z.literal(5),
	entries: z.record(
		z.string().describe('file name inside the sessions folder'),
		z.strictObject({
			ino: z.number(),
			size: z.number(),
			mtimeMs: z.number(),
			summary: SessionSummary.nullable(),
			problem: z.string().nullable().describe('why the file could not be read, when it could not'),
		}),
	),
});
export type SessionIndex = z.infer<typeof SessionIndex>;
