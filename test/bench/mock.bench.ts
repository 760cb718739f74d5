/**
 * `npm run bench:mock`: what the offline default produces, over a stratified sample of seeds (region x
 * domain x tier, round-robin in stable hash order; issue 23). Blueprints are built as the blueprint
 * stage asks the mock for them (first attempt, hash-embedder evidence, no episode); then the dialogue
 * and judge figures of test/bench/mockDialogue.ts follow.
 *
 * BENCH_SEEDS sets the sample size (default 2,000; at least 2,000 for the issue's figures).
 */
import {loadUniverse} from '../../src/universe/load.js';
import {dialogueFigures} from './mockDialogue.js';
import path from 'node:path';
import {kbTitles, mockBlueprints, mockFigures, scratchKb, stratifiedSeeds} from './mockBlueprints.js';

const size = Number(process.env['BENCH_SEEDS'] ?? 2000);
const universe = loadUniverse();
const seeds = stratifiedSeeds(universe, size);
const strata = new Set(seeds.map((id) => {
	const [personaId, templateId] = id.split(':') as [string, string];
	return `${universe.personaById.get(personaId)!.region}|${universe.templateById.get(templateId)!.domain}`;
}));
console.log(`bench:mock: ${seeds.length} seeds over ${strata.size} region x domain strata (x 3 tiers)\n`);

const started = performance.now();
const {kb, close} = await scratchKb(universe);
let figures;
try {
	const rows = await mockBlueprints(universe, kb, seeds);
	figures = mockFigures(rows, kbTitles(path.join(universe.root, 'kb')));
} finally {
	close();
}
const seconds = (performance.now() - started) / 1000;
const share = (n: number, of: number) => `${n}/${of} (${((100 * n) / Math.max(1, of)).toFixed(1)}%)`;
const rows: Array<[string, string]> = [
	['blueprints', String(figures.blueprints)],
	['slots filled from the lexicon', share(figures.lexiconSlots, figures.slots)],
	['slots holding a KB title (target 0)', share(figures.kbTitleSlots, figures.slots)],
	['persona contradictions per 1,000 blueprints (target 0)', ((1000 * figures.contradictions) / Math.max(1, figures.blueprints)).toFixed(2)],
	['native/English openers agreeing (numbers + script)', share(figures.openersAgree, figures.blueprints)],
	['blueprints failing the code checks on the first attempt', share(figures.codeCheckFailures, figures.blueprints)],
	['readability problems in opening requests (target 0)', `${figures.readabilityProblems} in ${share(figures.unreadableRequests, figures.blueprints)}`],
	['blueprint build time', `${seconds.toFixed(1)} s`],
];
rows.push(...(await dialogueFigures(seeds)));
const width = Math.max(...rows.map(([label]) => label.length));
for (const [label, value] of rows) console.log(`${label.padEnd(width)}  ${value}`);
for (const [title, examples] of [['contradictions', figures.contradictionExamples], ['opener disagreements', figures.openerExamples], ['code-check failures', figures.codeCheckExamples], ['readability problems', figures.readabilityExamples]] as const) {
	if (examples.length > 0) console.log(`\n${title} (first ${examples.length}):\n${examples.map((line) => `  ${line}`).join('\n')}`);
}
