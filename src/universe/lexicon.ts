import path from 'node:path';
import {LexiconFile, type LexiconEntry, RiteTable} from '../domain/lexicon.js';
import {personaContradictions, type PersonaContradiction, slotContradictions} from '../domain/personaFit.js';
import type {SlotKind} from '../domain/template.js';
import type {Persona} from '../domain/universe.js';
import {packageRoot} from '../util/paths.js';
import {listDataFiles, readJsonFile} from './readData.js';

export type Lexicon = {
	/** Region id ("MY") or "common" -> kind -> fillers. */
	readonly byRegion: ReadonlyMap<string, Partial<Record<SlotKind, readonly LexiconEntry[]>>>;
	readonly rites: RiteTable;
	/** Region id -> ISO currency code. */
	readonly currency: ReadonlyMap<string, string>;
};

const cache = new Map<string, Lexicon>();

/** The curated lexicon and rite table of kb/lexicon/, read and validated once per folder. */
export function loadLexicon(kbDir: string = path.join(packageRoot(), 'kb')): Lexicon {
	const known = cache.get(kbDir);
	if (known) return known;
	const dir = path.join(kbDir, 'lexicon');
	const byRegion = new Map<string, Partial<Record<SlotKind, readonly LexiconEntry[]>>>();
	const currency = new Map<string, string>();
	for (const file of listDataFiles(dir, '.json')) {
		if (path.basename(file) === 'rites.json') continue;
		const parsed = readJsonFile(file, LexiconFile, path.dirname(kbDir));
		byRegion.set(parsed.region, parsed.entries);
		if (parsed.currency) currency.set(parsed.region, parsed.currency);
	}
	const lexicon: Lexicon = {byRegion, currency, rites: readJsonFile(path.join(dir, 'rites.json'), RiteTable, path.dirname(kbDir))};
	cache.set(kbDir, lexicon);
	return lexicon;
}

/**
 * The fillers of one kind a persona may use: its region's, then the common ones, persona tags applied
 * and persona fit checked (for a slot about someone else's things, `meaning` says so: a host's pork).
 */
export function lexiconEntries(lexicon: Lexicon, persona: Pick<Persona, 'region' | 'tags' | 'identity'>, kind: SlotKind, meaning = ''): LexiconEntry[] {
	const all = [...(lexicon.byRegion.get(persona.region)?.[kind] ?? []), ...(lexicon.byRegion.get('common')?.[kind] ?? [])];
	return all.filter((entry) => (!entry.tags || entry.tags.some((tag) => persona.tags.includes(tag))) && !entry.avoid?.some((tag) => persona.tags.includes(tag)) && slotContradictions(persona, entry.text, meaning, lexicon.rites).length === 0);
}

/** personaContradictions with the shipped rite table (the mock and the pipeline's code audit share it). */
export function contradictionsFor(persona: Pick<Persona, 'region' | 'tags' | 'identity'>, text: string, kbDir?: string): PersonaContradiction[] {
	return personaContradictions(persona, text, loadLexicon(kbDir).rites);
}
