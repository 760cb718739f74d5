import assert from 'node:assert/strict';
import path from 'node:path';
import {describe, it} from 'node:test';
import {DOMAIN_IDS, REGION_CODES} from '../src/domain/universe.js';
import {loadKbSources} from '../src/kb/sources.js';
import {countSources} from '../src/kb/stats.js';
import {loadUniverse} from '../src/universe/load.js';
import {tempDir} from './helpers/tmp.js';

/**
 * The coverage the KB issues ask of the shipped sources (kb/cultural, kb/taboo): every file valid,
 * ids unique, all 7 domains covered in every region, every identity of Table 7 grounded in both KBs,
 * and issue 13's floors: a taboo KB of at least 962 entries (the paper's size) with at least 80 per
 * region and 8 per (region, category) and entries for every identity, at least 4 cultural passages
 * about every (identity, domain) pair, and subdomains on every entry (retrieval's topical prior).
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

	it('holds the taboo KB to the paper\'s size: 962 entries, 80 per region, 8 per (region, category)', () => {
		assert.ok(counts.taboo.total >= 962, `${counts.taboo.total} taboo entries`);
		const thinRegions = REGION_CODES.filter((region) => counts.taboo.byRegion[region] < 80).map((region) => `${region} ${counts.taboo.byRegion[region]}`);
		assert.deepEqual(thinRegions, [], 'regions under 80 taboo entries');
		const thinCells = REGION_CODES.flatMap((region) => DOMAIN_IDS.filter((domain) => counts.taboo.byRegionCategory[region][domain] < 8).map((domain) => `${region}/${domain} ${counts.taboo.byRegionCategory[region][domain]}`));
		assert.deepEqual(thinCells, [], '(region, category) cells under 8 taboo entries');
	});

	it('has identity-specific taboo entries for every identity', () => {
		const listed = new Map<string, number>();
		for (const {entry} of sources.taboo) for (const id of entry.identities) listed.set(id, (listed.get(id) ?? 0) + 1);
		assert.deepEqual(universe.identities.filter((identity) => !listed.has(identity.id)).map((identity) => identity.id), []);
	});

	it('has at least 4 cultural passages about every (identity, domain) pair, in the identity\'s region', () => {
		const perPair = new Map<string, number>();
		for (const {entry} of sources.cultural) {
			for (const tag of entry.tags) {
				if (!tag.startsWith('identity:')) continue;
				const identity = universe.identityById.get(tag.slice(9));
				if (identity && entry.regions.includes(identity.region)) perPair.set(`${identity.id}/${entry.domain}`, (perPair.get(`${identity.id}/${entry.domain}`) ?? 0) + 1);
			}
		}
		const thin = universe.identities.flatMap((identity) => DOMAIN_IDS.map((domain) => `${identity.id}/${domain}`)).filter((pair) => (perPair.get(pair) ?? 0) < 4);
		assert.deepEqual(thin, [], '(identity, domain) pairs with fewer than 4 passages');
	});

	it('names the subdomains of every entry, within its domain', () => {
		// Loading cross-checks each id against the universe and the entry's domain; here: none is missing.
		const missing = [...sources.cultural, ...sources.taboo].filter(({entry}) => !entry.subdomains || entry.subdomains.length === 0).map(({file, line}) => `${file}:${line}`);
		assert.deepEqual(missing, []);
	});

	it('names a source for every entry and no URLs', () => {
		for (const {entry, file, line} of [...sources.cultural, ...sources.taboo]) {
			assert.ok(!/https?:\/\//.test(entry.source), `${file}:${line}: source holds a URL`);
		}
	});
});
