import {z} from 'zod';
import {type JudgeResult, type Metric, perMetric, SessionStatus, TDQ, THREE_H} from './session.js';
import {SessionSetup} from './setup.js';

export {SessionSetup};

/** One row of the sessions list: enough to browse, sort and filter without holding transcripts. */
export const SessionSummary = z.strictObject({
	id: z.string(),
	path: z.string(),
	status: SessionStatus,
	createdAt: z.string(),
	updatedAt: z.string(),
	seedId: z.string(),
	personaId: z.string(),
	/** The identity's label ("Tamil Hindu"): several regions' identities share a label, so slices key by identityId. */
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
	/** The persona's identity id (my-tamil-hindu): what identity slices are keyed by. */
	identityId: z.string(),
});
export type SessionSummary = z.infer<typeof SessionSummary>;

/** The status column of session lists: the error flag when there is one; "(rj)" marks a re-judged copy. */
export const statusLabel = (s: SessionSummary) => `${s.errorFlag ?? s.status}${s.rejudgeOf ? ' (rj)' : ''}`;

/** Bumped whenever a summary's shape or meaning changes: an index of another version is rebuilt. */
export const SESSION_INDEX_VERSION = 5;

/**
 * 3H and TDQ of a judgement from its raw scores (the stored figures are rounded to three decimals);
 * null while any of the three is missing, as the judge's own aggregate.
 */
export function familyScores(judge: Pick<JudgeResult, 'scores'> | null): {threeH: number | null; tdq: number | null} {
	const mean = (metrics: readonly Metric[]) => {
		const values = metrics.map((metric) => judge?.scores[metric]);
		return values.every((value): value is number => typeof value === 'number') ? values.reduce((sum, value) => sum + value, 0) / values.length : null;
	};
	return {threeH: mean(THREE_H), tdq: mean(TDQ)};
}

/**
 * Derived data kept next to the sessions (`<sessions>/.index.json`) so listing thousands of sessions
 * reads one small file instead of every transcript. An entry is trusted only while its file's inode,
 * size and mtime are unchanged (lowdb writes by rename, so every save gets a new inode); anything
 * else is re-read. Losing or damaging the index only costs one slow listing.
 */
export const SessionIndex = z.strictObject({
	format: z.literal('cultureconverse.session-index'),
	version: z.literal(SESSION_INDEX_VERSION),
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
