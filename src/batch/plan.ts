import {existsSync} from 'node:fs';
import {readBoundedText} from '../util/boundedRead.js';
import type {BatchItem, BatchSelection, BatchVariant} from '../domain/batch.js';
import type {Seed} from '../domain/seed.js';
import {type SeedSpace, tierOf} from '../universe/seeds.js';
import {UserError} from '../util/errors.js';
import {fnv1a} from '../util/hash.js';

/** Batch names become file and session-id prefixes, so they stay short and path-safe. */
export function checkBatchName(name: string): string {
	if (!/^[a-z0-9][a-z0-9_-]{0,47}$/i.test(name)) throw new UserError(`Bad batch name '${name}': use up to 48 letters, digits, '-' or '_', starting with a letter or digit.`);
	return name;
}

/** Largest seed file read: 64 MB, ten times every seed id with comments. */
const MAX_SEED_FILE_BYTES = 64 * 1024 * 1024;

/** Seed ids from a file: one per line; blank lines and lines starting with # are ignored. */
export function readSeedFile(file: string, space: SeedSpace): Seed[] {
	if (!existsSync(file)) throw new UserError(`File not found: ${file}`);
	const seeds: Seed[] = [];
	const seen = new Set<string>();
	// Its type checked before it is opened, and read up to a limit: a folder, /dev/zero or a FIFO
	// without a writer is a clear error (they were an EISDIR internal error, an abort and a hang).
	readBoundedText(file, {what: 'seed file', maxBytes: MAX_SEED_FILE_BYTES, limitHint: 'all 146,160 seed ids take about 6 MB', followLinks: true})
		.split('\n')
		.forEach((raw, index) => {
			const line = raw.trim();
			if (!line || line.startsWith('#')) return;
			let seed: Seed;
			try {
				seed = space.get(line);
			} catch (error) {
				// A line may be anything (a 50 MB line was once echoed whole): the message quotes at most 200 characters.
				throw new UserError(`${file}:${index + 1}: ${(error as Error).message.length > 300 ? `${(error as Error).message.slice(0, 300)}…` : (error as Error).message}`);
			}
			if (seen.has(seed.id)) throw new UserError(`${file}:${index + 1}: seed ${seed.id} is listed twice.`);
			seen.add(seed.id);
			seeds.push(seed);
		});
	if (seeds.length === 0) throw new UserError(`${file} lists no seed ids (one <persona-id>:<template-id> per line).`);
	return seeds;
}

/**
 * The seeds of a selection. A sample is the first N seeds in a stable hash order keyed by
 * `sampleSeed`: the same flags draw the same seeds on any machine, and a larger N extends a smaller
 * one rather than reshuffling it.
 */
export function selectSeeds(space: SeedSpace, selection: BatchSelection): Seed[] {
	if (selection.seedFile || selection.sample === null) {
		const all = selection.seedFile ? readSeedFile(selection.seedFile, space) : [...space.iterate(selection.filter)];
		if (all.length === 0) throw new UserError('The selection matches no seeds: loosen the filters (see `npx cultureconverse seeds count` with the same flags).');
		if (selection.sample === null) return all;
		return sampleOf(all.map((seed) => seed.id), selection, space).map((id) => space.get(id));
	}
	// A sample of the whole space hashes ids only: seeds are built for the chosen ones.
	const ids = [...space.ids(selection.filter)];
	if (ids.length === 0) throw new UserError('The selection matches no seeds: loosen the filters (see `npx cultureconverse seeds count` with the same flags).');
	return sampleOf(ids, selection, space).map((id) => space.get(id));
}

/** The stratum of a seed id for `--balance`, from the id alone (persona and template are looked up). */
function stratumOf(balance: NonNullable<BatchSelection['balance']>, space: SeedSpace): (id: string) => string {
	const personaOf = (id: string) => space.persona(id.slice(0, id.indexOf(':')));
	switch (balance) {
		case 'identity':
			return (id) => personaOf(id).identityId;
		case 'region':
			return (id) => personaOf(id).region;
		case 'tier':
			return (id) => tierOf(id);
		case 'domain':
			return (id) => space.template(id.slice(id.indexOf(':') + 1)).domain;
	}
}

/**
 * The first `sample` ids in the stable hash order keyed by `sampleSeed` (ties by id). Balanced, the
 * strata take turns (in name order), each giving its next id in that hash order, so every stratum gets
 * the same count within one (a stratum with too few seeds gives all it has and the others fill in),
 * and a larger sample still extends a smaller one.
 */
function sampleOf(ids: readonly string[], selection: BatchSelection, space: SeedSpace): string[] {
	const keyed = ids.map((id) => ({id, key: fnv1a(`${selection.sampleSeed}:${id}`)}));
	keyed.sort((a, b) => a.key - b.key || (a.id < b.id ? -1 : a.id > b.id ? 1 : 0));
	const n = selection.sample ?? keyed.length;
	if (!selection.balance) return keyed.slice(0, n).map(({id}) => id);
	const stratum = stratumOf(selection.balance, space);
	const strata = new Map<string, string[]>();
	for (const {id} of keyed) {
		const key = stratum(id);
		const list = strata.get(key);
		if (list) list.push(id);
		else strata.set(key, [id]);
	}
	const queues = [...strata.entries()].sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0)).map(([, list]) => list);
	const out: string[] = [];
	for (let round = 0; out.length < n; round++) {
		let took = false;
		for (const queue of queues) {
			if (round < queue.length && out.length < n) {
				out.push(queue[round]!);
				took = true;
			}
		}
		if (!took) break;
	}
	return out;
}

/**
 * One pending item per seed, trial and variant, with the session id it will be saved under. In a
 * paired batch the first variant of each seed and trial makes the blueprint and shards, and the
 * others point at its session (`sharedFrom`) and run from them.
 */
export function planItems(name: string, seeds: readonly Seed[], trials: number, variants: readonly BatchVariant[] = []): BatchItem[] {
	const items: BatchItem[] = [];
	const width = String(seeds.length).length;
	const suffixes = variantSuffixes(variants);
	seeds.forEach((seed, index) => {
		for (let trial = 1; trial <= trials; trial++) {
			const base = `${name}-${String(index + 1).padStart(width, '0')}-${seed.personaId}${trials > 1 ? `-t${trial}` : ''}`;
			const each: ReadonlyArray<BatchVariant | null> = variants.length > 1 ? variants : [null];
			each.forEach((variant, v) => {
				items.push({
					key: `${seed.id}#${trial}${variant ? `#${variant.language}-${variant.mode}` : ''}`,
					seedId: seed.id,
					trial,
					...(variant ? {variant} : {}),
					...(variant && v > 0 ? {sharedFrom: `${base}${suffixes[0]}`} : {}),
					sessionId: `${base}${variant ? suffixes[v] : ''}`,
					status: 'pending',
					threeH: null,
					tdq: null,
					clean: null,
					errorFlag: null,
					termination: null,
					attempts: 0,
					updatedAt: null,
				});
			});
		}
	});
	return items;
}

/** Session-id suffixes of the variants: only what varies is named (-en / -native, -eval / -gold). */
function variantSuffixes(variants: readonly BatchVariant[]): string[] {
	const languages = new Set(variants.map((variant) => variant.language)).size > 1;
	const modes = new Set(variants.map((variant) => variant.mode)).size > 1;
	return variants.map((variant) => `${languages ? (variant.language === 'english' ? '-en' : '-native') : ''}${modes ? `-${variant.mode}` : ''}`);
}

/**
 * The variants of `--lang` and `--mode` lists (english,native × eval,gold), in the order given; one
 * variant when neither is a list. Repeats and unknown values are refused.
 */
export function variantsOf(lang: unknown, mode: unknown): BatchVariant[] {
	const list = (value: unknown, name: string, allowed: readonly string[], fallback: string) => {
		const values = value === undefined ? [fallback] : String(value).split(',').map((part) => part.trim()).filter(Boolean);
		for (const one of values) if (!allowed.includes(one)) throw new UserError(`--${name} must be ${allowed.join(' or ')} (or a comma list of them), got '${one}'.`);
		if (new Set(values).size !== values.length) throw new UserError(`--${name} lists '${String(value)}' with a repeat.`);
		if (values.length === 0) throw new UserError(`--${name} is empty.`);
		return values;
	};
	const languages = list(lang, 'lang', ['english', 'native'], 'english') as BatchVariant['language'][];
	const modes = list(mode, 'mode', ['eval', 'gold'], 'eval') as BatchVariant['mode'][];
	return languages.flatMap((language) => modes.map((one) => ({language, mode: one})));
}
