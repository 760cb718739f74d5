/**
 * K_W retrieval quality on the shipped KB, measured on the judgements in
 * test/fixtures/kb-retrieval/judgements.json and on whole-persona sweeps (issue 13's figures):
 *
 * - nDCG@6 (gain 2^grade - 1) and MRR@10 over the judged seeds, retrieved as standard seeds so K_W
 *   is the persona's own region (the judgements cover that region only);
 * - domain share: the share of K_W passages whose domain is the template's domain;
 * - the most frequent single passage across one persona's 420 K_W sets (the issue's 20% rule),
 *   with each seed's own tier, as the blueprint stage would retrieve it.
 *
 * Used by `npm run bench:retrieval` (test/bench/retrieval.bench.ts) and by test/kb-retrieval.test.ts.
 */
import {readFileSync} from 'node:fs';
import path from 'node:path';
import type {Seed} from '../../src/domain/seed.js';
import type {Persona} from '../../src/domain/universe.js';
import type {KnowledgeBase} from '../../src/kb/knowledgeBase.js';
import {type RetrievalRanking, retrieveEvidence} from '../../src/kb/retrieve.js';
import type {Universe} from '../../src/universe/load.js';
import {makeSeed} from '../../src/universe/seeds.js';

export const JUDGEMENTS_FILE = path.resolve(import.meta.dirname, '../fixtures/kb-retrieval/judgements.json');

export type Judgement = {seed: string; relevant: Record<string, number>};
export type Judgements = {version: 1; cultureSourcesSha256: string; seeds: Judgement[]};

export function loadJudgements(file = JUDGEMENTS_FILE): Judgements {
	return JSON.parse(readFileSync(file, 'utf8')) as Judgements;
}

export type QualityMetrics = {
	/** Judged seeds with at least one relevant passage (the others cannot be scored). */
	seeds: number;
	ndcg6: number;
	mrr10: number;
	/** Share of the judged relevant passages (grade >= 1) that appear in K_W (top 6). */
	recall6: number;
	/** Share of K_W passages in the template's domain, over the judged seeds. */
	domainShare: number;
};

/** nDCG at `k` with gains 2^grade - 1; the ideal ranking puts the judged grades in descending order. */
export function ndcgAt(ranked: readonly string[], relevant: Readonly<Record<string, number>>, k: number): number {
	const gain = (grade: number) => 2 ** grade - 1;
	const dcg = ranked.slice(0, k).reduce((sum, id, i) => sum + gain(relevant[id] ?? 0) / Math.log2(i + 2), 0);
	const ideal = Object.values(relevant).sort((a, b) => b - a).slice(0, k).reduce((sum, grade, i) => sum + gain(grade) / Math.log2(i + 2), 0);
	return ideal === 0 ? 0 : dcg / ideal;
}

export function reciprocalRankAt(ranked: readonly string[], relevant: Readonly<Record<string, number>>, k: number): number {
	const at = ranked.slice(0, k).findIndex((id) => (relevant[id] ?? 0) > 0);
	return at < 0 ? 0 : 1 / (at + 1);
}

const round3 = (x: number) => Math.round(x * 1000) / 1000;

function judgedSeed(universe: Universe, id: string): {seed: Seed; persona: Persona; domain: string} {
	const [personaId, templateId] = id.split(':') as [string, string];
	const persona = universe.personaById.get(personaId);
	const template = universe.templateById.get(templateId);
	if (!persona || !template) throw new Error(`${JUDGEMENTS_FILE}: unknown seed '${id}'`);
	return {seed: {...makeSeed(persona, template), tier: 'standard'}, persona, domain: template.domain};
}

/** Quality of K_W on the judged seeds. */
export async function evaluateJudged(options: {universe: Universe; kb: KnowledgeBase; ranking?: RetrievalRanking; judgements?: Judgements}): Promise<QualityMetrics> {
	const {universe, kb} = options;
	const judgements = options.judgements ?? loadJudgements();
	let n = 0;
	let ndcg = 0;
	let mrr = 0;
	let recall = 0;
	let inDomain = 0;
	let hits = 0;
	for (const judgement of judgements.seeds) {
		const relevantCount = Object.values(judgement.relevant).filter((grade) => grade > 0).length;
		if (relevantCount === 0) continue;
		const {seed, persona} = judgedSeed(universe, judgement.seed);
		const evidence = await retrieveEvidence({universe, seed, kb, persona, k: {cultural: 10, taboo: 0}, ranking: options.ranking});
		const ids = evidence.cultural.map((hit) => hit.id);
		const domain = universe.templateById.get(seed.templateId)!.domain;
		n++;
		ndcg += ndcgAt(ids, judgement.relevant, 6);
		mrr += reciprocalRankAt(ids, judgement.relevant, 10);
		recall += ids.slice(0, 6).filter((id) => (judgement.relevant[id] ?? 0) > 0).length / relevantCount;
		for (const hit of evidence.cultural.slice(0, 6)) {
			hits++;
			if (hit.domain === domain) inDomain++;
		}
	}
	return {seeds: n, ndcg6: round3(ndcg / n), mrr10: round3(mrr / n), recall6: round3(recall / n), domainShare: round3(inDomain / hits)};
}

export type PersonaSweep = {
	persona: string;
	templates: number;
	/** The passage found in most of this persona's K_W sets, and in how many. */
	topPassage: string;
	topCount: number;
	topShare: number;
	domainShare: number;
	/** Normative seeds only: share of K_T entries in the template's category. */
	tabooCategoryShare: number | null;
};

/** K_W (and K_T for normative seeds) for every template with one persona, each seed with its own tier. */
export async function sweepPersona(options: {universe: Universe; kb: KnowledgeBase; persona: Persona; ranking?: RetrievalRanking}): Promise<PersonaSweep> {
	const {universe, kb, persona} = options;
	const counts = new Map<string, number>();
	let hits = 0;
	let inDomain = 0;
	let taboo = 0;
	let tabooInCategory = 0;
	for (const template of universe.templates) {
		const seed = makeSeed(persona, template);
		const evidence = await retrieveEvidence({universe, seed, kb, persona, template, ranking: options.ranking});
		for (const hit of evidence.cultural) {
			counts.set(hit.id, (counts.get(hit.id) ?? 0) + 1);
			hits++;
			if (hit.domain === template.domain) inDomain++;
		}
		for (const hit of evidence.taboo) {
			taboo++;
			if (hit.domain === template.domain) tabooInCategory++;
		}
	}
	const [topPassage, topCount] = [...counts.entries()].sort((a, b) => b[1] - a[1] || (a[0] < b[0] ? -1 : 1))[0] ?? ['(none)', 0];
	const templates = universe.templates.length;
	return {persona: persona.id, templates, topPassage, topCount, topShare: round3(topCount / templates), domainShare: round3(inDomain / hits), tabooCategoryShare: taboo === 0 ? null : round3(tabooInCategory / taboo)};
}

/**
 * One persona per identity (its first persona in the universe), plus the two personas the issue names,
 * so the sweep covers every identity's tagged passages.
 */
export function sweepPersonas(universe: Universe, limit?: number): Persona[] {
	const chosen = new Map<string, Persona>();
	for (const id of ['my-tamil-hindu-a55-f', 'kr-secular-a18-f']) {
		const persona = universe.personaById.get(id);
		if (persona) chosen.set(persona.identityId, persona);
	}
	for (const persona of universe.personas) if (!chosen.has(persona.identityId)) chosen.set(persona.identityId, persona);
	const list = [...chosen.values()];
	return limit === undefined ? list : list.slice(0, limit);
}
