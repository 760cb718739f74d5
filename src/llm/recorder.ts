import {existsSync} from 'node:fs';
import {z} from 'zod';
import {ChatMessage, ModelRole, TokenUsage} from '../domain/session.js';
import {type JournalOptions, JournalAppender, readJournal} from '../store/journal.js';
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

/** Exchanges stand alone: a line cut by a crash costs only its own exchange. 1 GB: far more than a recording holds. */
const OPTIONS: JournalOptions = {what: 'recording', afterTorn: 'skip', maxBytes: 1024 * 1024 * 1024};

/**
 * Appends JSONL lines through the one journal module (src/store/journal.ts): the file is healed of a
 * line a crash cut before the first append, each line is written whole or not at all, and a full disk
 * is a StorageError, never half a line. Synchronous appends keep the file in completion order and
 * never interleave two lines; the line holds messages and reply only (never keys or headers). The
 * file is opened at the first exchange, so a run that makes no call leaves no file.
 */
export function createRecorder(file: string, options: {readonly onHealed?: (message: string) => void} = {}): Recorder {
	let appender: JournalAppender | null = null;
	return {
		append: (line) => {
			appender ??= JournalAppender.open(file, {...OPTIONS, onHealed: options.onHealed}).appender;
			appender.append(JSON.stringify(line));
		},
	};
}

/**
 * Reads and validates a recording. A last line cut by an interrupted recording run is dropped (its
 * exchange was never complete); a line of garbage elsewhere, or one that breaks the schema, stops with
 * the file and line number.
 */
export function readRecording(file: string): RecordingLine[] {
	if (!existsSync(file)) throw new DataError(file, ['recording file is missing (write one with --record FILE)']);
	const lines: RecordingLine[] = [];
	for (const {value, line} of readJournal(file, {...OPTIONS, followLinks: true}).lines) {
		const parsed = RecordingLine.safeParse(value);
		if (!parsed.success) throw new DataError(file, parsed.error.issues.map((issue) => `line ${line}: ${issue.path.join('.') || '(root)'}: ${issue.message}`));
		lines.push(parsed.data);
	}
	return lines;
}
