/**
 * Retrieval quality on the labelled query set in test/fixtures/kb-eval (a snapshot of the shipped MY,
 * JP and TH cultural passages): dense (the KB's Vectra search), BM25 alone, and hybrid (RRF of both).
 * Used by test/kb-retrieval.test.ts, and runnable on its own to print the table:
 *   CULTURECONVERSE_EMBEDDER=hash node --import tsx test/bench/kb-eval.ts
 */
import {readFileSync} from 'node:fs';
import {mkdtempSync, rmSync} from 'node:fs';
import {tmpdir} from 'node:os';
import path from 'node:path';
import type {RegionCode} from '../../src/domain/universe.js';
import {Bm25Index} from '../../src/kb/bm25.js';
import {KnowledgeBase, type SearchMode} from '../../src/kb/knowledgeBase.js';
import {culturalQueryText, queryContext} from '../../src/kb/queries.js';
import {loadKbSources} from '../../src/kb/sources.js';
import {loadUniverse, type Universe} from '../../src/universe/load.js';

export const EVAL_DIR = path.resolve(import.meta.dirname, '../fixtures/kb-eval');

type LabelledSet = {
	search: Array<{q: string; region: RegionCode; relevant: string[]}>;
	seeds: Array<{persona: string; template: string; relevant: string[]}>;
	persona: Array<{q: string; region: RegionCode; personas: Record<string, string>}>;
};

export function labelledSet(): LabelledSet {
	return JSON.parse(readFileSync(path.join(EVAL_DIR, 'queries.json'), 'utf8')) as LabelledSet;
}

export type Labelled = {q: string; region: RegionCode; relevant: string[]};

/** The `search` queries plus the `seeds` turned into queries exactly as retrieveEvidence builds them. */
export function labelledQueries(universe: Universe): Labelled[] {
	const set = labelledSet();
	const seeds = set.seeds.map((seed) => {
		const persona = universe.personaById.get(seed.persona)!;
		const template = universe.templateById.get(seed.template)!;
		return {q: culturalQueryText(queryContext(universe, persona, template)), region: persona.region, relevant: seed.relevant};
	});
	return [...set.search, ...seeds];
}

export type Metrics = {queries: number; mrr10: number; recall5: number; hit1: number};

export function score(rankings: ReadonlyArray<{ids: readonly string[]; relevant: readonly string[]}>): Metrics {
	let mrr = 0;
	let recall = 0;
	let hit1 = 0;
	for (const {ids, relevant} of rankings) {
		const first = ids.slice(0, 10).findIndex((id) => relevant.includes(id));
		if (first >= 0) mrr += 1 / (first + 1);
		recall += relevant.filter((id) => ids.slice(0, 5).includes(id)).length / relevant.length;
		if (first === 0) hit1++;
	}
	const n = rankings.length;
	const round = (x: number) => Math.round((x / n) * 1000) / 1000;
	return {queries: n, mrr10: round(mrr), recall5: round(recall), hit1: round(hit1)};
}

/** Dense, BM25-only and hybrid metrics over the labelled set, in a throwaway workspace. */
export async function evaluateRetrieval(options: {embedder?: string; workspace?: string} = {}): Promise<Record<SearchMode | 'bm25', Metrics>> {
	const universe = loadUniverse();
	const workspace = options.workspace ?? mkdtempSync(path.join(tmpdir(), 'cc-kb-eval-'));
	try {
		const kb = await KnowledgeBase.open({kbDir: EVAL_DIR, workspace, embedder: options.embedder ?? 'hash', universe});
		const queries = labelledQueries(universe);
		const out = {} as Record<SearchMode | 'bm25', Metrics>;
		for (const mode of ['dense', 'hybrid'] as const) {
			const rankings = [];
			for (const query of queries) {
				// No de-duplication and no persona: this measures the ranking itself.
				const hits = await kb.search(query.q, {kind: 'cultural', topK: 10, filter: {region: query.region}, mode, dedupeThreshold: null});
				rankings.push({ids: hits.map((hit) => hit.id), relevant: query.relevant});
			}
			out[mode] = score(rankings);
		}
		const entries = loadKbSources({shippedDir: EVAL_DIR, userDir: path.join(workspace, 'kb')}).cultural.map(({entry}) => entry);
		const bm25 = new Bm25Index(entries.map((entry) => `${entry.title}. ${entry.text}`));
		out.bm25 = score(queries.map((query) => ({ids: bm25.search(query.q, 10, (i) => entries[i]!.regions.includes(query.region)).map((hit) => entries[hit.index]!.id), relevant: query.relevant})));
		return out;
	} finally {
		if (!options.workspace) rmSync(workspace, {recursive: true, force: true});
	}
}

export type PersonaMetrics = {
	cases: number;
	/** Cases whose top hit is written about the asking identity, with and without --persona. */
	top1With: number;
	top1Without: number;
	/** Cases where the first identity-matched hit ranks lower with --persona than without (should be 0). */
	worse: number;
	/** Template+persona queries: share of relevant passages within K_W (top 6), with and without persona re-ranking. */
	seedRecall6With: number;
	seedRecall6Without: number;
};

/** Persona re-ranking on the labelled `persona` and `seeds` sets, with the KB's default mode. */
export async function evaluatePersona(kb: KnowledgeBase, universe: Universe): Promise<PersonaMetrics> {
	const set = labelledSet();
	const out: PersonaMetrics = {cases: 0, top1With: 0, top1Without: 0, worse: 0, seedRecall6With: 0, seedRecall6Without: 0};
	for (const query of set.persona) {
		const plain = await kb.search(query.q, {kind: 'cultural', topK: 10, filter: {region: query.region}});
		for (const [personaId, identity] of Object.entries(query.personas)) {
			const hits = await kb.search(query.q, {kind: 'cultural', topK: 10, filter: {region: query.region}, persona: universe.personaById.get(personaId)!});
			const first = (list: typeof hits) => {
				const at = list.findIndex((hit) => hit.tags.includes(`identity:${identity}`));
				return at < 0 ? 99 : at;
			};
			out.cases++;
			if (first(hits) === 0) out.top1With++;
			if (first(plain) === 0) out.top1Without++;
			if (first(hits) > first(plain)) out.worse++;
		}
	}
	for (const seed of set.seeds) {
		const persona = universe.personaById.get(seed.persona)!;
		const q = culturalQueryText(queryContext(universe, persona, universe.templateById.get(seed.template)!));
		const recall = (ids: string[]) => seed.relevant.filter((id) => ids.includes(id)).length / seed.relevant.length;
		out.seedRecall6With += recall((await kb.search(q, {kind: 'cultural', topK: 6, filter: {region: persona.region}, persona})).map((hit) => hit.id));
		out.seedRecall6Without += recall((await kb.search(q, {kind: 'cultural', topK: 6, filter: {region: persona.region}})).map((hit) => hit.id));
	}
	out.seedRecall6With = Math.round((out.seedRecall6With / set.seeds.length) * 1000) / 1000;
	out.seedRecall6Without = Math.round((out.seedRecall6Without / set.seeds.length) * 1000) / 1000;
	return out;
}

if (process.argv[1] && path.resolve(process.argv[1]) === path.resolve(import.meta.filename)) {
	const embedder = process.env['CULTURECONVERSE_EMBEDDER'] ?? 'hash';
	const results = await evaluateRetrieval({embedder});
	console.log(`labelled set: ${results.dense.queries} queries (test/fixtures/kb-eval), embedder ${embedder}`);
	console.log('mode      MRR@10  Recall@5  Hit@1');
	for (const [mode, m] of Object.entries(results)) console.log(`${mode.padEnd(8)}  ${m.mrr10.toFixed(3)}   ${m.recall5.toFixed(3)}     ${m.hit1.toFixed(3)}`);
	const workspace = mkdtempSync(path.join(tmpdir(), 'cc-kb-eval-'));
	try {
		const universe = loadUniverse();
		const kb = await KnowledgeBase.open({kbDir: EVAL_DIR, workspace, embedder, universe});
		const p = await evaluatePersona(kb, universe);
		console.log(`persona re-ranking (${kb.embedderId}, default mode): asking identity first in ${p.top1With}/${p.cases} with --persona, ${p.top1Without}/${p.cases} without; worse in ${p.worse}`);
		console.log(`template+persona queries, relevant passages within K_W (top 6): ${p.seedRecall6With} with persona re-ranking, ${p.seedRecall6Without} without`);
	} finally {
		rmSync(workspace, {recursive: true, force: true});
	}
}
