import {appendFileSync, existsSync, mkdirSync, readFileSync} from 'node:fs';
import path from 'node:path';
import {z} from 'zod';
import {ChatMessage, ModelRole, TokenUsage} from '../domain/session.js';
import {DataError} from '../util/errors.js';

/**
 * One line of a `--record` file: one completed model exchange (a re-ask or a retried empty reply is
 * its own line). Unknown extra fields are tolerated so newer recordings stay readable.
 */
export const RecordingLine = z.object({
	stage: z.string(),
	role: ModelRole,
	model: z.string(),
	request: z.object({
		messages: z.array(ChatMessage),
		responseFormat: z.enum(['json_schema', 'json_object', 'prompt', 'text']),
		schemaName: z.string().nullable(),
	}),
	response: z.object({
		text: z.string(),
		usage: TokenUsage.nullable(),
		finishReason: z.enum(['stop', 'length', 'content_filter', 'error', 'other']).optional(),
		/** Thinking text the reply carried (already removed from `text`). */
		reasoning: z.string().nullable().optional(),
		choices: z.array(z.string()).optional(),
	}),
});
export type RecordingLine = z.infer<typeof RecordingLine>;

export type Recorder = {append(line: RecordingLine): void};

/**
 * Appends JSONL lines. Synchronous appends keep the file in completion order and never interleave
 * two lines; the line holds messages and reply only (never keys or headers).
 */
export function createRecorder(file: string): Recorder {
	mkdirSync(path.dirname(file), {recursive: true});
	return {append: (line) => appendFileSync(file, `${JSON.stringify(line)}\n`)};
}

/** Reads and validates a recording; a bad line stops with the file and line number. */
export function readRecording(file: string): RecordingLine[] {
	if (!existsSync(file)) throw new DataError(file, ['recording file is missing (write one with --record FILE)']);
	const lines: RecordingLine[] = [];
	readFileSync(file, 'utf8')
		.split('\n')
		.forEach((text, index) => {
			if (text.trim() === '') return;
			let raw: unknown;
			try {
				raw = JSON.parse(text);
			} catch (error) {
				throw new DataError(file, [`line ${index + 1}: not valid JSON (${(error as Error).message})`]);
			}
			const parsed = RecordingLine.safeParse(raw);
			if (!parsed.success) throw new DataError(file, parsed.error.issues.map((issue) => `line ${index + 1}: ${issue.path.join('.') || '(root)'}: ${issue.message}`));
			lines.push(parsed.data);
		});
	return lines;
}
