/**
 * Retrieval quality benchmark (`npm run bench:retrieval`): K_W on the shipped KB, per embedder and
 * ranking. Prints figures; the goals of issue 13 are printed beside them, not asserted here.
 *
 *   nDCG@6, MRR@10, recall@6  on the judged seeds of test/fixtures/kb-retrieval (standard tier)
 *   domain share               K_W passages in the template's domain (judged seeds; sweeps)
 *   top passage share          the most frequent single passage across one persona's 420 K_W sets
 *
 * Options (env):
 *   BENCH_EMBEDDERS  comma-separated specs (default "hash,local:test/fixtures/tiny-model")
 *   BENCH_RANKINGS   comma-separated rankings (default "identity-boost,topic-first")
 *   BENCH_PERSONAS   how many personas to sweep (default: one per identity, 58)
 */
import {mkdtempSync, rmSync} from 'node:fs';
import {tmpdir} from 'node:os';
import path from 'node:path';
import {KnowledgeBase} from '../../src/kb/knowledgeBase.js';
import {RETRIEVAL_RANKINGS, type RetrievalRanking} from '../../src/kb/retrieve.js';
import {loadUniverse} from '../../src/universe/load.js';
import {type PersonaSweep, evaluateJudged, loadJudgements, sweepPersona, sweepPersonas} from './retrieval-eval.js';

const root = path.resolve(import.meta.dirname, '../..');
const embedders = (process.env['BENCH_EMBEDDERS'] ?? 'hash,local:test/fixtures/tiny-model').split(',').map((s) => s.trim()).filter(Boolean);
const rankings = (process.env['BENCH_RANKINGS'] ?? RETRIEVAL_RANKINGS.join(',')).split(',').map((s) => s.trim()) as RetrievalRanking[];
for (const ranking of rankings) if (!RETRIEVAL_RANKINGS.includes(ranking)) throw new Error(`BENCH_RANKINGS: unknown ranking '${ranking}' (use ${RETRIEVAL_RANKINGS.join(', ')})`);
const personaLimit = process.env['BENCH_PERSONAS'] ? Number(process.env['BENCH_PERSONAS']) : undefined;

const universe = loadUniverse();
const judgements = loadJudgements();
const personas = sweepPersonas(universe, personaLimit);
const named = ['my-tamil-hindu-a55-f', 'kr-secular-a18-f'];
console.log(`judgements: ${judgements.seeds.length} seeds, ${judgements.seeds.reduce((n, s) => n + Object.keys(s.relevant).length, 0)} (seed, passage) judgements; sweeps: ${personas.length} personas x ${universe.templates.length} templates`);
console.log('goals (issue 13): domain share >= 0.8, top passage share <= 0.2 for every persona, nDCG@6 up >= 30% relative to identity-boost\n');

const rows: string[][] = [['embedder', 'ranking', 'nDCG@6', 'MRR@10', 'recall@6', 'domain', 'sweep domain', 'worst top share', 'K_T in category', 's']];
const baseline = new Map<string, number>();
for (const spec of embedders) {
	const workspace = mkdtempSync(path.join(tmpdir(), 'cc-bench-ret-'));
	try {
		const kb = await KnowledgeBase.open({universe, workspace, embedder: spec.startsWith('local:') ? `local:${path.resolve(root, spec.slice(6))}` : spec, log: (m) => process.stderr.write(m)});
		await kb.build();
		for (const ranking of rankings) {
			const t0 = performance.now();
			const quality = await evaluateJudged({universe, kb, ranking, judgements});
			const sweeps: PersonaSweep[] = [];
			for (const persona of personas) sweeps.push(await sweepPersona({universe, kb, persona, ranking}));
			const worst = [...sweeps].sort((a, b) => b.topShare - a.topShare)[0]!;
			const sweepDomain = sweeps.reduce((sum, s) => sum + s.domainShare, 0) / sweeps.length;
			const taboo = sweeps.filter((s) => s.tabooCategoryShare !== null);
			const tabooShare = taboo.reduce((sum, s) => sum + s.tabooCategoryShare!, 0) / (taboo.length || 1);
			if (ranking === 'identity-boost') baseline.set(kb.embedderId, quality.ndcg6);
			const base = baseline.get(kb.embedderId);
			const lift = base && ranking !== 'identity-boost' ? ` (${quality.ndcg6 >= base ? '+' : ''}${Math.round(((quality.ndcg6 - base) / base) * 100)}%)` : '';
			rows.push([kb.embedderId, ranking, `${quality.ndcg6.toFixed(3)}${lift}`, quality.mrr10.toFixed(3), quality.recall6.toFixed(3), quality.domainShare.toFixed(3), sweepDomain.toFixed(3), `${worst.topShare.toFixed(3)} (${worst.topPassage} for ${worst.persona})`, tabooShare.toFixed(3), ((performance.now() - t0) / 1000).toFixed(0)]);
			for (const id of named) {
				const sweep = sweeps.find((s) => s.persona === id);
				if (sweep) console.log(`  ${kb.embedderId} ${ranking}: ${id}: top passage ${sweep.topPassage} in ${sweep.topCount}/${sweep.templates} K_W sets (${sweep.topShare}), domain share ${sweep.domainShare}`);
			}
		}
	} finally {
		rmSync(workspace, {recursive: true, force: true});
	}
}
console.log();
const widths = rows[0]!.map((_, c) => Math.max(...rows.map((row) => row[c]!.length)));
for (const row of rows) console.log(row.map((cell, c) => cell.padEnd(widths[c]!)).join('  '));
