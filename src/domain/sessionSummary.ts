import {z} from 'zod';
import {perMetric, SessionStatus} from './session.js';

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
	version: z.literal(3),
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
