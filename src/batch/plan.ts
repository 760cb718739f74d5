import {existsSync, readFileSync} from 'node:fs';
import type {BatchItem, BatchSelection} from '../domain/batch.js';
import type {Seed} from '../domain/seed.js';
import type {SeedSpace} from '../universe/seeds.js';
import {UserError} from '../util/errors.js';
import {fnv1a} from '../util/hash.js';

/** Batch names become file and session-id prefixes, so they stay short and path-safe. */
export function checkBatchName(name: string): string {
	if (!/^[a-z0-9][a-z0-9_-]{0,47}$/i.test(name)) throw new UserError(`Bad batch name '${name}': use up to 48 letters, digits, '-' or '_', starting with a letter or digit.`);
	return name;
}

/** Seed ids from a file: one per line; blank lines and lines starting with # are ignored. */
export function readSeedFile(file: string, space: SeedSpace): Seed[] {
	if (!existsSync(file)) throw new UserError(`File not found: ${file}`);
	const seeds: Seed[] = [];
	const seen = new Set<string>();
	readFileSync(file, 'utf8')
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
		if (all.length === 0) throw new UserError('The selection matches no seeds: loosen the filters (see `cultureconverse seeds count` with the same flags).');
		if (selection.sample === null) return all;
		return sampleOf(all.map((seed) => seed.id), selection).map((id) => space.get(id));
	}
	// A sample of the whole space hashes ids only: seeds are built for the chosen ones.
	const ids = [...space.ids(selection.filter)];
	if (ids.length === 0) throw new UserError('The selection matches no seeds: loosen the filters (see `cultureconverse seeds count` with the same flags).');
	return sampleOf(ids, selection).map((id) => space.get(id));
}

/** The first `sample` ids in the stable hash order keyed by `sampleSeed` (ties by id). */
function sampleOf(ids: readonly string[], selection: BatchSelection): string[] {
	const keyed = ids.map((id) => ({id, key: fnv1a(`${selection.sampleSeed}:${id}`)}));
	keyed.sort((a, b) => a.key - b.key || (a.id < b.id ? -1 : a.id > b.id ? 1 : 0));
	return keyed.slice(0, selection.sample ?? keyed.length).map(({id}) => id);
}

/** One pending item per seed and trial, with the session id it will be saved under. */
export function planItems(name: string, seeds: readonly Seed[], trials: number): BatchItem[] {
	const items: BatchItem[] = [];
	const width = String(seeds.length).length;
	seeds.forEach((seed, index) => {
		for (let trial = 1; trial <= trials; trial++) {
			items.push({
				key: `${seed.id}#${trial}`,
				seedId: seed.id,
				trial,
				sessionId: `${name}-${String(index + 1).padStart(width, '0')}-${seed.personaId}${trials > 1 ? `-t${trial}` : ''}`,
				status: 'pending',
				threeH: null,
				tdq: null,
				clean: null,
				errorFlag: null,
				termination: null,
				attempts: 0,
				updatedAt: null,
			});
		}
	});
	return items;
}
