import {existsSync, readFileSync} from 'node:fs';
import path from 'node:path';
import {writeFileAtomic} from '../../util/atomicWrite.js';
import {CulturalEntry, TabooEntry} from '../../domain/kb.js';
import {type DomainId, REGION_CODES, type RegionCode} from '../../domain/universe.js';
import type {Universe} from '../../universe/load.js';
import {UserError, zodProblems} from '../../util/errors.js';
import {crossCheck, entryRegions, type KbKind, type KbLocation, listSourceFiles} from '../sources.js';
import {convertBlend} from './blend.js';
import {convertNormad} from './normad.js';
import type {Conversion, Converted, ImportedEntry, Skip, SkipKind} from './types.js';
import {convertWikipedia} from './wikipedia.js';

export type ImportFormat = 'jsonl' | 'normad' | 'wikipedia' | 'blend';
export const IMPORT_FORMATS: readonly ImportFormat[] = ['jsonl', 'normad', 'wikipedia', 'blend'];

export type ImportOptions = {
	file: string;
	format: ImportFormat;
	/** @default "taboo" for normad, "cultural" for wikipedia and blend; required for jsonl */
	kind?: KbKind;
	location: KbLocation;
	/** Output name under <userDir>/<kind>/; re-importing under the same name replaces that file. @default "<format>-<file name>" */
	name?: string;
	/** blend: the questions CSV holding each question's Topic (default: the dataset's own, found next to the file). */
	questionsFile?: string;
	/** wikipedia, blend: regions for every entry instead of inferring them. */
	regions?: readonly RegionCode[];
	/** wikipedia: domain for every article instead of inferring it. */
	domain?: DomainId;
	universe?: Universe;
	/** @default false: write nothing, only report */
	dryRun?: boolean;
};

export type ImportSummary = {
	file: string;
	format: ImportFormat;
	kind: KbKind;
	/** The user KB file written (or that would be written in a dry run); null when nothing was imported. */
	output: string | null;
	replaced: boolean;
	/** Data rows read (CSV records or JSONL lines). */
	rows: number;
	/** Entries written (a Wikipedia article gives several passages). */
	imported: number;
	skipped: number;
	byRegion: Record<RegionCode, number>;
	byKind: Record<SkipKind, number>;
	byReason: Record<string, number>;
	/** Every row not imported, with file, line and reason. */
	skips: Skip[];
	notes: string[];
};

/**
 * Imports a file into the user KB folder (never into the shipped kb/): converts it, validates every
 * entry against its schema and the universe, rejects ids that already exist anywhere in the KB, and
 * writes one JSONL file atomically. Nothing is dropped silently: each row not imported is in `skips`.
 */
export function importKb(options: ImportOptions): ImportSummary {
	const kind = resolveKind(options.format, options.kind);
	if (!existsSync(options.file)) throw new UserError(`File not found: ${options.file}`);
	const text = readFileSync(options.file, 'utf8');
	const shown = options.file;
	const conversion: Conversion =
		options.format === 'normad'
			? convertNormad(text, shown)
			: options.format === 'wikipedia'
				? convertWikipedia(text, shown, {regions: options.regions, domain: options.domain})
				: options.format === 'blend'
					? convertBlend(text, shown, {regions: options.regions, questionsFile: options.questionsFile})
					: convertJsonl(text, shown);

	const stem = path.basename(options.file).replace(/\.[^.]+$/, '');
	// BLEnD files are all "<Region>_data.json": the region alone names the import.
	const name = safeName(options.name ?? `${options.format}-${options.format === 'blend' ? stem.replace(/_data$/, '') : stem}`);
	const output = path.join(options.location.userDir, kind, `${name}.jsonl`);
	const existing = existingIds(options.location, kind, output);
	const schema = kind === 'cultural' ? CulturalEntry : TabooEntry;
	const skips: Skip[] = [...conversion.skips];
	const accepted: ImportedEntry[] = [];
	const ids = new Map<string, number>();
	for (const {line, entry} of conversion.converted) {
		const parsed = schema.safeParse(entry);
		if (!parsed.success) {
			skips.push({file: shown, line, kind: 'invalid', code: 'schema', reason: zodProblems(parsed.error).join('; ')});
			continue;
		}
		const value = parsed.data as ImportedEntry;
		const problems = options.universe ? crossCheck(kind, value, options.universe) : [];
		if (problems.length > 0) {
			skips.push({file: shown, line, kind: 'invalid', code: 'reference', reason: problems.join('; ')});
			continue;
		}
		const elsewhere = existing.get(value.id);
		if (elsewhere) {
			skips.push({file: shown, line, kind: 'duplicate', code: 'duplicate-id', reason: `id '${value.id}' already exists at ${elsewhere}`});
			continue;
		}
		const previous = ids.get(value.id);
		if (previous !== undefined) {
			skips.push({file: shown, line, kind: 'duplicate', code: 'duplicate-id', reason: `id '${value.id}' repeats line ${previous}`});
			continue;
		}
		ids.set(value.id, line);
		accepted.push(value);
	}
	skips.sort((a, b) => a.line - b.line);

	const replaced = existsSync(output);
	if (accepted.length > 0 && !options.dryRun) writeFileAtomic(output, accepted.map((entry) => JSON.stringify(entry)).join('\n') + '\n');
	const byRegion = Object.fromEntries(REGION_CODES.map((region) => [region, 0])) as Record<RegionCode, number>;
	for (const entry of accepted) for (const region of entryRegions(kind, entry)) byRegion[region]++;
	const byKind: Record<SkipKind, number> = {invalid: 0, filtered: 0, duplicate: 0};
	const byReason: Record<string, number> = {};
	for (const skip of skips) {
		byKind[skip.kind]++;
		byReason[skip.code] = (byReason[skip.code] ?? 0) + 1;
	}
	return {
		file: shown,
		format: options.format,
		kind,
		output: accepted.length > 0 ? output : null,
		replaced: replaced && accepted.length > 0,
		rows: conversion.rows,
		imported: accepted.length,
		skipped: skips.length,
		byRegion,
		byKind,
		byReason,
		skips,
		notes: conversion.notes,
	};
}

function resolveKind(format: ImportFormat, kind: KbKind | undefined): KbKind {
	if (format === 'normad') {
		if (kind && kind !== 'taboo') throw new UserError('--format normad imports taboo entries only; drop --kind or pass --kind taboo.');
		return 'taboo';
	}
	if (format === 'wikipedia' || format === 'blend') {
		if (kind && kind !== 'cultural') throw new UserError(`--format ${format} imports cultural passages only; drop --kind or pass --kind cultural.`);
		return 'cultural';
	}
	if (!kind) throw new UserError('--format jsonl needs --kind cultural or --kind taboo.');
	return kind;
}

/** JSONL of ready-made entries; each line is validated later against the kind's schema. */
function convertJsonl(text: string, file: string): Conversion {
	const converted: Converted[] = [];
	const skips: Skip[] = [];
	let rows = 0;
	text.split('\n').forEach((raw, index) => {
		if (raw.trim() === '') return;
		rows++;
		const line = index + 1;
		try {
			const entry = JSON.parse(raw) as Record<string, unknown>;
			if (typeof entry !== 'object' || entry === null || Array.isArray(entry)) throw new Error('a line must hold one JSON object');
			// Keep where the row came from unless the row already says.
			if (entry['provenance'] === undefined) entry['provenance'] = {dataset: 'jsonl', file: path.basename(file), line};
			converted.push({line, entry});
		} catch (error) {
			skips.push({file, line, kind: 'invalid', code: 'json', reason: `not valid JSON (${(error as Error).message})`});
		}
	});
	return {rows, converted, skips, notes: []};
}

/** Ids already in the KB (shipped and user files) except the file being replaced, with where they are. */
function existingIds(location: KbLocation, kind: KbKind, replacing: string): Map<string, string> {
	const ids = new Map<string, string>();
	for (const source of listSourceFiles(location)) {
		if (source.kind !== kind || path.resolve(source.file) === path.resolve(replacing)) continue;
		readFileSync(source.file, 'utf8')
			.split('\n')
			.forEach((raw, index) => {
				if (raw.trim() === '') return;
				try {
					const id = (JSON.parse(raw) as {id?: unknown}).id;
					if (typeof id === 'string' && !ids.has(id)) ids.set(id, `${source.shown}:${index + 1}`);
				} catch {
					// A broken line is reported when the KB loads; it holds no id to collide with.
				}
			});
	}
	return ids;
}

function safeName(name: string): string {
	const cleaned = name.toLowerCase().replace(/[^a-z0-9._-]+/g, '-').replace(/^[-.]+|-+$/g, '');
	if (!cleaned) throw new UserError(`--name '${name}' has no usable characters (use letters, digits, '-', '_' or '.').`);
	return cleaned;
}

