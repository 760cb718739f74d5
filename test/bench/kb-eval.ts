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
import {culturalQueryText, queryContext} from '../../src/kb/retrieve.js';
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

if (process.argv[1] && path.resolve(process.argv[1]) === path.resolve(import.meta.filename)) {
	const embedder = process.env['CULTURECONVERSE_EMBEDDER'] ?? 'hash';
	const results = await evaluateRetrieval({embedder});
	console.log(`labelled set: ${results.dense.queries} queries (test/fixtures/kb-eval), embedder ${embedder}`);
	console.log('mode      MRR@10  Recall@5  Hit@1');
	for (const [mode, m] of Object.entries(results)) console.log(`${mode.padEnd(8)}  ${m.mrr10.toFixed(3)}   ${m.recall5.toFixed(3)}     ${m.hit1.toFixed(3)}`);
}
