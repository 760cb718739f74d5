import {mkdirSync} from 'node:fs';
import path from 'node:path';
import type {z} from 'zod';
import {sessionsDirFromFlags} from './runtimeFlags.js';
import {type Norm, NormSplit, SituatedEval, SituatedItem} from '../domain/situated.js';
import type {RegionCode} from '../domain/universe.js';
import {cultureKey, matchesCulture} from '../situated/cultures.js';
import {latestById, readJsonl} from '../situated/jsonl.js';
import {regionNamer, upgradeEval, upgradeItem} from '../situated/legacy.js';
import {type Lock, acquireLock} from '../store/lock.js';
import {UserError} from '../util/errors.js';
import {fnv1a} from '../util/hash.js';
import type {Universe} from '../universe/load.js';
import {regionCode} from './flagValues.js';
import type {Flags, IO} from './types.js';

/* What every `crisp` subcommand shares: where the items and evaluations live, and how lists are chosen. */

/** Where the items, evaluations and extracted norms live: --items / --evals / --out, else `<sessions>/crisp/`. */
export const files = (flags: Flags, io: IO) => {
	const base = path.join(sessionsDirFromFlags(flags, io), 'crisp');
	const pick = (name: string, fallback: string) => (typeof flags[name] === 'string' ? path.resolve(io.cwd, flags[name]) : path.join(base, fallback));
	return {items: pick('items', 'items.jsonl'), evals: pick('evals', 'evals.jsonl'), base};
};

/**
 * One writer per items or evaluations file (`<file>.lock` beside it): two builds of one items file
 * once built 283 of 300 items twice, each reading the file before the other had appended. Taken
 * before the file is read; a second writer exits 2 naming the holder; a dead holder's lock is taken
 * over and said so on stderr.
 */
export function lockFile(file: string, io: IO): Lock {
	mkdirSync(path.dirname(file), {recursive: true});
	return acquireLock(`${file}.lock`, file, (previous) => io.stderr.write(`cultureconverse: took over the lock of ${file} left by process ${previous.pid} on ${previous.host} (no longer running)\n`));
}

/** The --region flags (repeatable), checked; null when none was given. */
export function regions(flags: Flags): ReadonlySet<RegionCode> | null {
	const list = (flags['region'] as string[] | undefined) ?? [];
	if (list.length === 0) return null;
	return new Set(list.map(regionCode));
}

/**
 * What --region and --culture select (both repeatable; given together, a norm matching either is in):
 * a predicate on a norm's culture, region and country. Null when neither flag was given.
 */
export function cultureFilter(flags: Flags): ((norm: Pick<Norm, 'culture' | 'country' | 'region'>) => boolean) | null {
	const wantedRegions = regions(flags);
	const wantedCultures = ((flags['culture'] as string[] | undefined) ?? []).map((value) => value.trim()).filter(Boolean);
	if (!wantedRegions && wantedCultures.length === 0) return null;
	return (norm) => (wantedRegions !== null && norm.region !== null && wantedRegions.has(norm.region)) || wantedCultures.some((wanted) => matchesCulture(norm, wanted));
}

/** --split train|validation|test|any (default `fallback`). */
export function splitFlag(flags: Flags, fallback: NormSplit | 'any'): NormSplit | 'any' {
	const value = flags['split'];
	if (value === undefined) return fallback;
	const options = [...NormSplit.options, 'any'];
	if (typeof value !== 'string' || !options.includes(value)) throw new UserError(`--split must be one of ${options.join(', ')}, got '${String(value)}'.`);
	return value as NormSplit | 'any';
}

/**
 * A stable spread: cultures take turns, and within a culture the order is a hash of the id, so --limit
 * takes a mix of cultures and the same selection every time.
 */
export function spread<T>(list: readonly T[], id: (value: T) => string, group: (value: T) => string): T[] {
	const byGroup = new Map<string, T[]>();
	for (const value of list) {
		const queue = byGroup.get(group(value));
		if (queue) queue.push(value);
		else byGroup.set(group(value), [value]);
	}
	const queues = [...byGroup.entries()].sort(([a], [b]) => (a < b ? -1 : 1)).map(([, values]) => values.sort((a, b) => fnv1a(id(a)) - fnv1a(id(b)) || (id(a) < id(b) ? -1 : 1)));
	const out: T[] = [];
	for (let round = 0; out.length < list.length; round++) for (const queue of queues) if (round < queue.length) out.push(queue[round]!);
	return out;
}

/** Spread by culture (the country code, else the label). */
export const spreadNorms = <T>(list: readonly T[], id: (value: T) => string, norm: (value: T) => Pick<Norm, 'country' | 'culture'>) => spread(list, id, (value) => cultureKey(norm(value)));

/** The latest record per key of a JSONL file, warning about a line an interrupted run cut off. */
export function readLatest<T>(file: string, schema: z.ZodType<T>, key: (record: T) => string, what: string, io: IO, upgrade?: (raw: unknown) => unknown): T[] {
	const read = readJsonl(file, schema, upgrade);
	if (read.dropped) io.stderr.write(`cultureconverse: ${read.dropped} (an interrupted run); that ${what} will be run again.\n`);
	return latestById(read.records, key);
}

export const readItems = (file: string, io: IO, universe: Universe) => readLatest(file, SituatedItem, (item) => item.id, 'item', io, (raw) => upgradeItem(raw, regionNamer(universe)));

export const readEvals = (file: string, io: IO, universe: Universe) => readLatest(file, SituatedEval, (evaluation) => `${evaluation.itemId}\0${evaluation.policyModel}`, 'evaluation', io, (raw) => upgradeEval(raw, regionNamer(universe)));
