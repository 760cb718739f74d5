import assert from 'node:assert/strict';
import path from 'node:path';
import {describe, it} from 'node:test';
import {DOMAIN_IDS, REGION_CODES} from '../src/domain/universe.js';
import {loadKbSources} from '../src/kb/sources.js';
import {countSources} from '../src/kb/stats.js';
import {loadUniverse} from '../src/universe/load.js';
import {tempDir} from './helpers/tmp.js';

/**
 * The coverage the KB issue asks of the shipped sources (kb/cultural, kb/taboo): every file valid,
 * ids unique, at least 30 cultural passages and 30 taboo entries per region, all 7 domains covered in
 * every region, and every identity of Table 7 grounded by at least one entry of each kind.
 */
describe('kb: shipped sources', () => {
	const universe = loadUniverse();
	// Loading validates every line (schema, identity references, duplicate ids) and throws with all problems.
	const sources = loadKbSources({shippedDir: path.join(universe.root, 'kb'), userDir: tempDir('cc-kb-none-')}, {universe});
	const counts = countSources(sources);

	for (const region of REGION_CODES) {
		it(`${region}: at least 30 cultural and 30 taboo entries, all 7 domains`, () => {
			assert.ok(counts.cultural.byRegion[region] >= 30, `${region} has ${counts.cultural.byRegion[region]} cultural passages`);
			assert.ok(counts.taboo.byRegion[region] >= 30, `${region} has ${counts.taboo.byRegion[region]} taboo entries`);
			const culturalMissing = DOMAIN_IDS.filter((domain) => counts.cultural.byRegionDomain[region][domain] === 0);
			const tabooMissing = DOMAIN_IDS.filter((domain) => counts.taboo.byRegionCategory[region][domain] === 0);
			assert.deepEqual(culturalMissing, [], `${region}: no cultural passage for ${culturalMissing.join(', ')}`);
			assert.deepEqual(tabooMissing, [], `${region}: no taboo entry for ${tabooMissing.join(', ')}`);
		});
	}

	it('grounds every identity, minorities included, in both KBs', () => {
		const cultural = new Set(sources.cultural.flatMap(({entry}) => entry.tags.filter((tag) => tag.startsWith('identity:')).map((tag) => tag.slice(9))));
		const taboo = new Set(sources.taboo.flatMap(({entry}) => [...entry.identities, ...(entry.tags ?? []).filter((tag) => tag.startsWith('identity:')).map((tag) => tag.slice(9))]));
		assert.deepEqual(universe.identities.filter((identity) => !cultural.has(identity.id)).map((identity) => identity.id), []);
		assert.deepEqual(universe.identities.filter((identity) => !taboo.has(identity.id)).map((identity) => identity.id), []);
	});

	it('names a source for every entry and no URLs', () => {
		for (const {entry, file, line} of [...sources.cultural, ...sources.taboo]) {
			assert.ok(!/https?:\/\//.test(entry.source), `${file}:${line}: source holds a URL`);
		}
	});
});
