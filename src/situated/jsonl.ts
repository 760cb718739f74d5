import {appendFileSync, existsSync, mkdirSync, readFileSync, truncateSync} from 'node:fs';
import path from 'node:path';
import type {z} from 'zod';
import {DataError, zodProblems} from '../util/errors.js';

/*
 * Items and evaluations are appended one JSON line per record as each finishes, so an interrupted run
 * keeps everything finished and the next run resumes after it. A crash can leave only the last line
 * half written; that line is reported and dropped (its record is simply built again). A bad line
 * anywhere else means the file was edited or damaged, and is an error naming the line: silently
 * skipping it would quietly rebuild or re-evaluate work.
 */

export type JsonlRead<T> = {readonly records: T[]; readonly droppedLastLine: boolean};

/** `upgrade` reads a record of an earlier version in today's shape before the schema checks it (see legacy.ts). */
export function readJsonl<T>(file: string, schema: z.ZodType<T>, upgrade: (raw: unknown) => unknown = (raw) => raw): JsonlRead<T> {
	if (!existsSync(file)) return {records: [], droppedLastLine: false};
	const lines = readFileSync(file, 'utf8').split('\n');
	const complete = lines.at(-1) === '';
	const records: T[] = [];
	const problems: string[] = [];
	let droppedLastLine = false;
	lines.forEach((line, index) => {
		if (line.trim() === '') return;
		const last = index === lines.length - 1 && !complete;
		let raw: unknown;
		try {
			raw = JSON.parse(line);
		} catch {
			if (last) droppedLastLine = true;
			else problems.push(`line ${index + 1}: not valid JSON`);
			return;
		}
		const parsed = schema.safeParse(upgrade(raw));
		if (parsed.success) records.push(parsed.data);
		else problems.push(...zodProblems(parsed.error, `line ${index + 1}: `).slice(0, 5));
	});
	if (problems.length > 0) throw new DataError(file, problems.slice(0, 20));
	return {records, droppedLastLine};
}

function parses(line: string): boolean {
	try {
		JSON.parse(line);
		return true;
	} catch {
		return false;
	}
}

/**
 * Opens `file` for appending records, one line each. A half-written last line left by a crash is cut
 * off first (readJsonl already dropped it), so the new records start on a line of their own.
 */
export function jsonlAppender(file: string): {append(record: unknown): void} {
	mkdirSync(path.dirname(file), {recursive: true});
	if (existsSync(file)) {
		const text = readFileSync(file, 'utf8');
		if (text.length > 0 && !text.endsWith('\n')) {
			const start = text.lastIndexOf('\n') + 1;
			// A whole record without its newline (a hand-edited file) is kept and closed; only a line
			// that does not parse, which readJsonl already dropped, is cut.
			if (parses(text.slice(start))) appendFileSync(file, '\n');
			else truncateSync(file, Buffer.byteLength(text.slice(0, start)));
		}
	}
	return {append: (record) => appendFileSync(file, `${JSON.stringify(record)}\n`)};
}

/** The latest record per id (a retried item is appended again; the newer line wins). */
export function latestById<T>(records: readonly T[], id: (record: T) => string): T[] {
	return [...new Map(records.map((record) => [id(record), record])).values()];
}
