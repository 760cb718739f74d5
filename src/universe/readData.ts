import {existsSync, readdirSync, readFileSync} from 'node:fs';
import path from 'node:path';
import type {z} from 'zod';
import {DataError, zodProblems} from '../util/errors.js';

/** Reads and validates one JSON data file; every problem names the file and the field. */
export function readJsonFile<T extends z.ZodType>(file: string, schema: T, displayRoot?: string): z.infer<T> {
	const shown = display(file, displayRoot);
	if (!existsSync(file)) throw new DataError(shown, ['file is missing']);
	let raw: unknown;
	try {
		raw = JSON.parse(readFileSync(file, 'utf8'));
	} catch (error) {
		throw new DataError(shown, [`not valid JSON (${(error as Error).message})`]);
	}
	const parsed = schema.safeParse(raw);
	if (!parsed.success) throw new DataError(shown, zodProblems(parsed.error));
	return parsed.data;
}

export type JsonlRow<T> = {line: number; value: T};
export type JsonlReject = {file: string; line: number; problems: string[]};

/**
 * Reads a JSONL file line by line. Rows that fail to parse or validate are returned as rejects with
 * their line number, never dropped silently; callers decide whether a reject is fatal.
 */
export function readJsonlFile<T extends z.ZodType>(file: string, schema: T, displayRoot?: string): {rows: Array<JsonlRow<z.infer<T>>>; rejects: JsonlReject[]} {
	const shown = display(file, displayRoot);
	if (!existsSync(file)) throw new DataError(shown, ['file is missing']);
	const rows: Array<JsonlRow<z.infer<T>>> = [];
	const rejects: JsonlReject[] = [];
	const lines = readFileSync(file, 'utf8').split('\n');
	lines.forEach((text, index) => {
		const line = index + 1;
		if (text.trim() === '') return;
		let raw: unknown;
		try {
			raw = JSON.parse(text);
		} catch (error) {
			rejects.push({file: shown, line, problems: [`not valid JSON (${(error as Error).message})`]});
			return;
		}
		const parsed = schema.safeParse(raw);
		if (parsed.success) rows.push({line, value: parsed.data});
		else rejects.push({file: shown, line, problems: zodProblems(parsed.error)});
	});
	return {rows, rejects};
}

/** `*.json` or `*.jsonl` files of a folder in name order; an absent folder has none. */
export function listDataFiles(dir: string, extension: '.json' | '.jsonl'): string[] {
	if (!existsSync(dir)) return [];
	return readdirSync(dir)
		.filter((name) => name.endsWith(extension) && !name.startsWith('.'))
		.sort()
		.map((name) => path.join(dir, name));
}

function display(file: string, root?: string): string {
	if (!root) return file;
	const relative = path.relative(root, file);
	return relative.startsWith('..') ? file : relative;
}
