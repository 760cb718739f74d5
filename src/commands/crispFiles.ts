import path from 'node:path';
import type {z} from 'zod';
import {sessionsDir} from '../app/runtime.js';
import {SituatedEval, SituatedItem} from '../domain/situated.js';
import type {RegionCode} from '../domain/universe.js';
import {latestById, readJsonl} from '../situated/jsonl.js';
import {fnv1a} from '../util/hash.js';
import {regionCode} from './flagValues.js';
import type {Flags, IO} from './types.js';

/* What every `crisp` subcommand shares: where the items and evaluations live, and how lists are chosen. */

/** Where the items and evaluations live: --items / --evals, else `<sessions>/crisp/`. */
export const files = (flags: Flags, io: IO) => {
	const base = path.join(sessionsDir(flags, io), 'crisp');
	const pick = (name: string, fallback: string) => (typeof flags[name] === 'string' ? path.resolve(io.cwd, flags[name]) : path.join(base, fallback));
	return {items: pick('items', 'items.jsonl'), evals: pick('evals', 'evals.jsonl')};
};

/** The --region flags (repeatable), checked; null when none was given. */
export function regions(flags: Flags): ReadonlySet<RegionCode> | null {
	const list = (flags['region'] as string[] | undefined) ?? [];
	if (list.length === 0) return null;
	return new Set(list.map(regionCode));
}

/**
 * A stable spread: regions take turns, and within a region the order is a hash of the id, so --limit
 * takes a mix of regions and the same selection every time.
 */
export function spread<T>(list: readonly T[], id: (value: T) => string, region: (value: T) => string): T[] {
	const byRegion = new Map<string, T[]>();
	for (const value of list) {
		const queue = byRegion.get(region(value));
		if (queue) queue.push(value);
		else byRegion.set(region(value), [value]);
	}
	const queues = [...byRegion.entries()].sort(([a], [b]) => (a < b ? -1 : 1)).map(([, values]) => values.sort((a, b) => fnv1a(id(a)) - fnv1a(id(b)) || (id(a) < id(b) ? -1 : 1)));
	const out: T[] = [];
	for (let round = 0; out.length < list.length; round++) for (const queue of queues) if (round < queue.length) out.push(queue[round]!);
	return out;
}

/** The latest record per key of a JSONL file, warning about a line an interrupted run cut off. */
export function readLatest<T>(file: string, schema: z.ZodType<T>, key: (record: T) => string, what: string, io: IO): T[] {
	const read = readJsonl(file, schema);
	if (read.droppedLastLine) io.stderr.write(`cultureconverse: the last line of ${file} was cut off (an interrupted run); that ${what} will be run again.\n`);
	return latestById(read.records, key);
}

export const readItems = (file: string, io: IO) => readLatest(file, SituatedItem, (item) => item.id, 'item', io);

export const readEvals = (file: string, io: IO) => readLatest(file, SituatedEval, (evaluation) => `${evaluation.itemId}\0${evaluation.policyModel}`, 'evaluation', io);
