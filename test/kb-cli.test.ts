import assert from 'node:assert/strict';
import {cpSync, existsSync, rmSync} from 'node:fs';
import path from 'node:path';
import {describe, it} from 'node:test';
import type {Evidence, EvidenceHit} from '../src/domain/kb.js';
import {loadUniverse} from '../src/universe/load.js';
import {SeedSpace} from '../src/universe/seeds.js';
import {parseJson, runCli} from './helpers/cli.js';
import {copyKb, tempDir} from './helpers/tmp.js';

const FIXTURES = path.resolve(import.meta.dirname, 'fixtures');

describe('cli: kb', () => {
	// The shipped universe and templates, with the small fixture KB in place of the shipped sources.
	// Made in the suite body (not a hook) so the temp folders live until the suite ends.
	const kbDir = copyKb();
	for (const kind of ['cultural', 'taboo']) {
		rmSync(path.join(kbDir, kind), {recursive: true, force: true});
		cpSync(path.join(FIXTURES, 'kb-eval', kind), path.join(kbDir, kind), {recursive: true});
	}
	const home = tempDir('cc-kb-cli-');
	const env: NodeJS.ProcessEnv = {CULTURECONVERSE_KB_DIR: kbDir, CULTURECONVERSE_HOME: home, CULTURECONVERSE_EMBEDDER: 'hash'};

	it('kb stats --json counts entries per region, domain and category and names the embedder', async () => {
		const result = await runCli(['kb', 'stats', '--json'], {env});
		assert.equal(result.code, 0, result.stderr);
		const stats = parseJson<{cultural: {total: number; byRegion: Record<string, number>; byDomain: Record<string, number>}; taboo: {total: number; byRegion: Record<string, number>; byCategory: Record<string, number>}; embedder: {id: string}; index: Array<{status: string}>}>(result.stdout);
		assert.equal(stats.cultural.total, 192);
		assert.deepEqual(Object.keys(stats.cultural.byRegion), ['BN', 'CN', 'ID', 'JP', 'KR', 'MY', 'PH', 'SG', 'TH', 'VN']);
		assert.equal(stats.cultural.byRegion['MY'], 70);
		assert.equal(stats.taboo.byRegion['MY'], stats.taboo.total);
		assert.equal(Object.keys(stats.cultural.byDomain).length, 7);
		assert.equal(Object.keys(stats.taboo.byCategory).length, 7);
		assert.equal(stats.embedder.id, 'hash:v1:384');
		assert.ok(stats.index.length === 20);
		// Sizes next to the paper's KB (180,992 Wikipedia passages; 962 taboo entries, 103 from NormAd; 420 templates).
		const paper = (stats as unknown as {paper: {paper: {wikipediaPassages: number; taboo: number}; ours: {culturalPassages: number; taboo: number; templates: number}; share: {cultural: number}}}).paper;
		assert.deepEqual([paper.paper.wikipediaPassages, paper.paper.taboo], [180_992, 962]);
		assert.deepEqual([paper.ours.culturalPassages, paper.ours.taboo, paper.ours.templates], [192, stats.taboo.total, 420]);
		assert.equal(paper.share.cultural, Math.round((192 / 180_992) * 1000) / 1000);
		const text = await runCli(['kb', 'stats'], {env});
		assert.match(text.stdout, /^REGION\s+CULTURAL\s+DOMAINS\s+TABOO/m);
		assert.match(text.stdout, /embedder: hash:v1:384/);
		assert.match(text.stdout, /^paper: +180,992 Wikipedia passages; 962 taboo entries \(103 from NormAd\); 420 templates/m);
		assert.match(text.stdout, /^this KB: +192 cultural passages \(0\.1% of the paper's; 0 imported from Wikipedia\)/m);
		assert.match(text.stdout, /kb import FILE --format wikipedia/);
	});

	it('kb build builds with a progress line per region on stderr, then finds everything up to date', async () => {
		const first = await runCli(['kb', 'build', '--json'], {env});
		assert.equal(first.code, 0, first.stderr);
		const report = parseJson<{built: Array<{kind: string; region: string}>; upToDate: number}>(first.stdout);
		assert.ok(report.built.length >= 4);
		assert.match(first.stderr, /indexing cultural\/MY\s+70 entries in/);
		assert.ok(existsSync(path.join(home, 'index', 'hash_v1_384', 'cultural', 'MY', 'index.ccv')), 'indexes go to the workspace');
		const again = parseJson<{built: unknown[]; upToDate: number}>((await runCli(['kb', 'build', '--json'], {env})).stdout);
		assert.deepEqual(again.built, []);
		assert.equal(again.upToDate, report.built.length);
	});

	it('kb search --region returns only that region, as JSON hits with provenance', async () => {
		const result = await runCli(['kb', 'search', 'halal food for a wedding', '--region', 'my', '--k', '7', '--json'], {env});
		assert.equal(result.code, 0, result.stderr);
		const hits = parseJson<EvidenceHit[]>(result.stdout);
		assert.equal(hits.length, 7);
		for (const hit of hits) {
			assert.ok(hit.regions.includes('MY'));
			for (const key of ['id', 'kind', 'regions', 'score', 'text', 'source', 'rank']) assert.ok(key in hit, key);
		}
		assert.deepEqual(hits.map((hit) => hit.rank), [1, 2, 3, 4, 5, 6, 7]);
		assert.ok(new Set(hits.map((hit) => hit.kind)).size === 2, 'both kinds without --kind');
		const taboo = parseJson<EvidenceHit[]>((await runCli(['kb', 'search', 'serving pork', '--category', 'culinary', '--json'], {env})).stdout);
		assert.ok(taboo.length > 0 && taboo.every((hit) => hit.kind === 'taboo' && hit.domain === 'culinary'));
		const plain = await runCli(['kb', 'search', 'Songkran water festival', '--region', 'TH', '--kind', 'cultural'], {env});
		assert.match(plain.stdout, /^RANK\s+SCORE\s+COSINE\s+KIND\s+ID/m);
		assert.match(plain.stdout, /cul-th-017/);
	});

	it('kb search --persona re-ranks towards the persona\'s identity', async () => {
		const hits = parseJson<EvidenceHit[]>((await runCli(['kb', 'search', 'traditional home food', '--region', 'JP', '--kind', 'cultural', '--persona', 'jp-ainu-a35-f', '--json'], {env})).stdout);
		assert.ok(hits[0]!.tags.includes('identity:jp-ainu'), hits[0]!.id);
		const bad = await runCli(['kb', 'search', 'food', '--persona', 'jp-ainu-a35'], {env});
		assert.equal(bad.code, 2);
		assert.match(bad.stderr, /Unknown persona 'jp-ainu-a35'. Did you mean: jp-ainu-a35-f, jp-ainu-a35-m/);
	});

	it('kb evidence gives K_T for a normative seed and none for a standard one', async () => {
		const space = new SeedSpace(loadUniverse({kbDir: env['CULTURECONVERSE_KB_DIR']}));
		const pick = (tier: 'normative' | 'standard') => space.iterate({region: 'MY', tier}).next().value!.id;
		const normative = await runCli(['kb', 'evidence', pick('normative'), '--json'], {env});
		assert.equal(normative.code, 0, normative.stderr);
		const evidence = parseJson<Evidence>(normative.stdout);
		assert.ok(evidence.taboo.length > 0);
		assert.ok(evidence.cultural.length > 0);
		const standard = parseJson<Evidence>((await runCli(['kb', 'evidence', pick('standard'), '--json'], {env})).stdout);
		assert.deepEqual(standard.taboo, []);
		const text = await runCli(['kb', 'evidence', pick('standard')], {env});
		assert.match(text.stdout, /K_T \(taboo\)\n\(none\)/);
		const unknown = await runCli(['kb', 'evidence', 'my-malay-muslim-a18-f:culinary.dietary-rules.99'], {env});
		assert.equal(unknown.code, 2);
		assert.match(unknown.stderr, /Unknown template/);
		// The ranking before issue 13 stays reachable for comparison; its query names the persona.
		const legacy = parseJson<Evidence>((await runCli(['kb', 'evidence', pick('standard'), '--ranking', 'identity-boost', '--json'], {env})).stdout);
		assert.notEqual(legacy.queries.cultural, standard.queries.cultural);
		const badRanking = await runCli(['kb', 'evidence', pick('standard'), '--ranking', 'topic'], {env});
		assert.equal(badRanking.code, 2);
		assert.match(badRanking.stderr, /ranking 'topic'.*topic-first/s);
	});

	it('kb import reports per-region counts and each bad row with file:line, and --json gives the summary', async () => {
		const csv = path.join(FIXTURES, 'normad', 'normad_sample.csv');
		const result = await runCli(['kb', 'import', csv, '--format', 'normad'], {env});
		assert.equal(result.code, 0, result.stderr);
		assert.match(result.stdout, /Imported 8 taboo entries from 18 rows/);
		assert.match(result.stdout, /by region: CN 1 {2}ID 1 {2}JP 1 {2}KR 1 {2}MY 1 {2}SG 1 {2}TH 1 {2}VN 1/);
		assert.match(result.stdout, /normad_sample\.csv:41: expected 10 fields, got 9/);
		assert.match(result.stdout, /Skipped 10 rows: 4 invalid, 5 out of scope, 1 duplicate/);
		const json = parseJson<{imported: number; byRegion: Record<string, number>; skips: Array<{line: number}>}>((await runCli(['kb', 'import', csv, '--format', 'normad', '--json'], {env})).stdout);
		assert.equal(json.imported, 8);
		assert.equal(json.skips.length, 10);
		const stats = parseJson<{taboo: {byRegion: Record<string, number>}}>((await runCli(['kb', 'stats', '--json'], {env})).stdout);
		assert.equal(stats.taboo.byRegion['JP'], 1, 'imported entries join the KB');
	});

	it('rejects bad usage with near matches', async () => {
		const bare = await runCli(['kb'], {env});
		assert.equal(bare.code, 2);
		assert.match(bare.stderr, /kb search "query"/);
		const typo = await runCli(['kb', 'serch', 'x'], {env});
		assert.equal(typo.code, 2);
		assert.match(typo.stderr, /Unknown kb subcommand 'serch'. Did you mean: search/);
		const region = await runCli(['kb', 'search', 'x', '--region', 'XX'], {env});
		assert.match(region.stderr, /Unknown region 'XX'/);
		const format = await runCli(['kb', 'import', 'x.csv', '--format', 'normadd'], {env});
		assert.match(format.stderr, /Unknown import format 'normadd'. Did you mean: normad/);
		const flag = await runCli(['kb', 'search', 'x', '--regoin', 'MY'], {env});
		assert.match(flag.stderr, /Did you mean: --region/);
	});
});
