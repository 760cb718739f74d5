import {createHash} from 'node:crypto';
import {existsSync, readdirSync, readFileSync} from 'node:fs';
import path from 'node:path';
import type {z} from 'zod';
import {CulturalEntry, TabooEntry, type EvidenceKind} from '../domain/kb.js';
import {REGION_CODES, type RegionCode} from '../domain/universe.js';
import type {Universe} from '../universe/load.js';
import {DataError, zodProblems} from '../util/errors.js';
import {RECORD_FORMAT} from './records.js';

export type KbKind = EvidenceKind;
export const KB_KINDS: readonly KbKind[] = ['cultural', 'taboo'];

/** Where the KB sources live: the shipped (read-only) folder and the user's import folder. */
export type KbLocation = {
	/** Shipped sources: `<shippedDir>/cultural/*.jsonl`, `<shippedDir>/taboo/*.jsonl`. */
	shippedDir: string;
	/** User sources written by `kb import`: `<userDir>/cultural/*.jsonl`, `<userDir>/taboo/*.jsonl`. */
	userDir: string;
};

export type SourceFile = {
	readonly kind: KbKind;
	readonly origin: 'shipped' | 'user';
	readonly file: string;
	/** How messages name it: `kb/taboo/JP.jsonl` for shipped files, the full path for user files. */
	readonly shown: string;
};

export type Located<T> = {readonly entry: T; readonly file: string; readonly line: number};

export type KbSources = {
	readonly cultural: ReadonlyArray<Located<CulturalEntry>>;
	readonly taboo: ReadonlyArray<Located<TabooEntry>>;
	readonly files: readonly SourceFile[];
	readonly digest: string;
};

export function listSourceFiles(location: KbLocation): SourceFile[] {
	const files: SourceFile[] = [];
	for (const kind of KB_KINDS) {
		for (const [origin, root] of [['shipped', location.shippedDir], ['user', location.userDir]] as const) {
			const dir = path.join(root, kind);
			if (!existsSync(dir)) continue;
			for (const name of readdirSync(dir).filter((n) => n.endsWith('.jsonl') && !n.startsWith('.')).sort()) {
				const file = path.join(dir, name);
				files.push({kind, origin, file, shown: origin === 'shipped' ? path.join(path.basename(root), kind, name) : file});
			}
		}
	}
	return files;
}

/**
 * sha256 over every source file's name and bytes. Reading and hashing is far cheaper than parsing and
 * validating (about 0.2 s for the 180k-passage benchmark KB), so an unchanged KB is recognised
 * without parsing it.
 */
export function sourcesDigest(files: readonly SourceFile[], read: (file: string) => Buffer = readFileSync): string {
	const hash = createHash('sha256');
	for (const source of files) {
		hash.update(`${source.kind}\0${source.origin}\0${path.basename(source.file)}\0`);
		hash.update(read(source.file));
		hash.update('\0');
	}
	return hash.digest('hex');
}

const MAX_LISTED = 50;

export type LoadSourcesOptions = {
	/** Enables cross-checks: identity ids exist and belong to the entry's region. */
	universe?: Universe;
};

/**
 * Parses and validates every source file. All problems of all files are collected and thrown as one
 * DataError naming each file and line, so one run shows everything to fix. Duplicate ids within a
 * kind are errors that name both places.
 */
export function loadKbSources(location: KbLocation, options: LoadSourcesOptions = {}): KbSources {
	const files = listSourceFiles(location);
	const cultural: Array<Located<CulturalEntry>> = [];
	const taboo: Array<Located<TabooEntry>> = [];
	const problems: string[] = [];
	const seen: Record<KbKind, Map<string, string>> = {cultural: new Map(), taboo: new Map()};
	const digest = createHash('sha256');
	for (const source of files) {
		const bytes = readFileSync(source.file);
		digest.update(`${source.kind}\0${source.origin}\0${path.basename(source.file)}\0`);
		digest.update(bytes);
		digest.update('\0');
		const schema: z.ZodType = source.kind === 'cultural' ? CulturalEntry : TabooEntry;
		const lines = bytes.toString('utf8').split('\n');
		for (let index = 0; index < lines.length; index++) {
			const text = lines[index]!;
			if (text.trim() === '') continue;
			const line = index + 1;
			const where = `${source.shown}:${line}`;
			let raw: unknown;
			try {
				raw = JSON.parse(text);
			} catch (error) {
				problems.push(`${where}: not valid JSON (${(error as Error).message})`);
				continue;
			}
			const parsed = schema.safeParse(raw);
			if (!parsed.success) {
				const id = typeof (raw as {id?: unknown})?.id === 'string' ? ` (${(raw as {id: string}).id})` : '';
				for (const problem of zodProblems(parsed.error)) problems.push(`${where}${id}: ${problem}`);
				continue;
			}
			const entry = parsed.data as CulturalEntry | TabooEntry;
			const previous = seen[source.kind].get(entry.id);
			if (previous) {
				problems.push(`${where}: duplicate ${source.kind} id '${entry.id}' (also at ${previous})`);
				continue;
			}
			seen[source.kind].set(entry.id, where);
			const crossProblems = options.universe ? crossCheck(source.kind, entry, options.universe) : [];
			if (crossProblems.length > 0) {
				for (const problem of crossProblems) problems.push(`${where} (${entry.id}): ${problem}`);
				continue;
			}
			if (source.kind === 'cultural') cultural.push({entry: entry as CulturalEntry, file: source.shown, line});
			else taboo.push({entry: entry as TabooEntry, file: source.shown, line});
		}
	}
	// Each problem already starts with file:line, so the error's own label stays generic. A file broken
	// throughout would print thousands of lines; the first ones show the pattern.
	if (problems.length > 0) throw new DataError('KB sources', problems.length <= MAX_LISTED ? problems : [...problems.slice(0, MAX_LISTED), `... and ${problems.length - MAX_LISTED} more problems`]);
	return {cultural, taboo, files, digest: digest.digest('hex')};
}

/** References a schema cannot check alone: identity ids must exist, and a taboo's identities must live in its region. */
export function crossCheck(kind: KbKind, entry: CulturalEntry | TabooEntry, universe: Universe): string[] {
	const problems: string[] = [];
	for (const tag of entry.tags ?? []) {
		if (tag.startsWith('identity:') && !universe.identityById.has(tag.slice(9))) problems.push(`tags: unknown identity '${tag.slice(9)}'`);
	}
	const domain = kind === 'cultural' ? (entry as CulturalEntry).domain : (entry as TabooEntry).category;
	for (const id of entry.subdomains ?? []) {
		const subdomain = universe.subdomainById.get(id);
		if (!subdomain) problems.push(`subdomains: unknown subdomain '${id}'`);
		else if (!id.startsWith(`${domain}.`)) problems.push(`subdomains: '${id}' is not in the entry's domain ${domain}`);
	}
	if (kind === 'taboo') {
		const taboo = entry as TabooEntry;
		for (const id of taboo.identities) {
			const identity = universe.identityById.get(id);
			if (!identity) problems.push(`identities: unknown identity '${id}'`);
			else if (identity.region !== taboo.region) problems.push(`identities: '${id}' belongs to ${identity.region}, not ${taboo.region}`);
		}
	}
	return problems;
}

/** The regions an entry is indexed under. */
export function entryRegions(kind: KbKind, entry: CulturalEntry | TabooEntry): readonly RegionCode[] {
	return kind === 'cultural' ? (entry as CulturalEntry).regions : [(entry as TabooEntry).region];
}

/**
 * Per kind and region: a content hash of exactly the entries that region's index holds (sorted by id,
 * so reordering a file changes nothing), and their count. An index is rebuilt when its hash changes.
 */
export function regionContentHashes(sources: Pick<KbSources, 'cultural' | 'taboo'>): Record<KbKind, Record<RegionCode, {hash: string; count: number}>> {
	const out = {} as Record<KbKind, Record<RegionCode, {hash: string; count: number}>>;
	for (const kind of KB_KINDS) {
		const byRegion = new Map<RegionCode, Array<CulturalEntry | TabooEntry>>(REGION_CODES.map((region) => [region, []]));
		for (const {entry} of sources[kind]) for (const region of entryRegions(kind, entry)) byRegion.get(region)!.push(entry);
		out[kind] = {} as Record<RegionCode, {hash: string; count: number}>;
		for (const [region, entries] of byRegion) {
			const hash = createHash('sha256');
			// The record layout is part of what an index holds: a new layout rebuilds every index.
			hash.update(`records:v${RECORD_FORMAT}\n`);
			for (const entry of [...entries].sort((a, b) => (a.id < b.id ? -1 : a.id > b.id ? 1 : 0))) hash.update(`${JSON.stringify(entry)}\n`);
			out[kind][region] = {hash: hash.digest('hex').slice(0, 32), count: entries.length};
		}
	}
	return out;
}
