import type {z} from 'zod';
import {type JournalOptions, JournalAppender, describeDamage, readJournal} from '../store/journal.js';
import {DataError, zodProblems} from '../util/errors.js';

/*
 * Items, evaluations and extracted norms are appended one JSON line per record as each finishes, so
 * an interrupted run keeps everything finished and the next run resumes after it. Reading and
 * appending go through the one journal module (src/store/journal.ts): a line a crash or a full disk
 * cut is dropped and said (its record is simply built again), a record appended after such a
 * fragment is kept, and the file is healed before anything more is appended. A line of garbage
 * anywhere else means the file was edited or damaged, and is an error naming the line: silently
 * skipping it would quietly rebuild or re-evaluate work.
 */

/** Records stand alone: a torn line costs only its own record. 1 GB: far more than any items file. */
const OPTIONS: JournalOptions = {what: 'JSONL records file', afterTorn: 'skip', maxBytes: 1024 * 1024 * 1024};

export type JsonlRead<T> = {
	readonly records: T[];
	/** True when a line cut by an interrupted write was dropped (its record is built again). */
	readonly droppedLastLine: boolean;
	/** What was dropped, in one sentence (null when nothing was). */
	readonly dropped: string | null;
};

/** `upgrade` reads a record of an earlier version in today's shape before the schema checks it (see legacy.ts). */
export function readJsonl<T>(file: string, schema: z.ZodType<T>, upgrade: (raw: unknown) => unknown = (raw) => raw): JsonlRead<T> {
	const read = readJournal(file, {...OPTIONS, followLinks: true});
	const records: T[] = [];
	const problems: string[] = [];
	for (const {value, line} of read.lines) {
		const parsed = schema.safeParse(upgrade(value));
		if (parsed.success) records.push(parsed.data);
		else problems.push(...zodProblems(parsed.error, `line ${line}: `).slice(0, 5));
	}
	if (problems.length > 0) throw new DataError(file, problems.slice(0, 20));
	const damaged = read.damage.length > 0;
	const onlyTail = read.damage.length === 1 && read.damage[0]!.kind === 'cut_tail';
	return {records, droppedLastLine: damaged, dropped: !damaged ? null : onlyTail ? `the last line of ${file} was cut off` : describeDamage(file, read)};
}

/**
 * Opens `file` for appending records, one line each. A file that a crash left with a cut line is
 * rewritten first without it (readJsonl already dropped it), so new records start on a line of their
 * own; a whole last record without its newline is kept. `onHealed` hears what was dropped. The file
 * is never appended through a symbolic link; every append is whole or a StorageError.
 */
export function jsonlAppender(file: string, onHealed?: (message: string) => void): {append(record: unknown): void} {
	JournalAppender.open(file, {...OPTIONS, ...(onHealed ? {onHealed} : {})}).appender.close();
	// A record takes model calls to make: opening the file per record costs nothing next to them, and
	// no descriptor outlives the command.
	return {
		append(record) {
			const appender = JournalAppender.reopen(file);
			try {
				appender.append(`${JSON.stringify(record)}\n`);
			} finally {
				appender.close();
			}
		},
	};
}

/** The latest record per id (a retried item is appended again; the newer line wins). */
export function latestById<T>(records: readonly T[], id: (record: T) => string): T[] {
	return [...new Map(records.map((record) => [id(record), record])).values()];
}
