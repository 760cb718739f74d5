import assert from 'node:assert/strict';
import {writeFileSync} from 'node:fs';
import path from 'node:path';
import {before, describe, it} from 'node:test';
import type {Session} from '../src/domain/session.js';
import {parseJson, runCli} from './helpers/cli.js';
import {sharedUniverse} from './helpers/episodeHarness.js';
import {baseSession, fixture, writeBatch, writeSessions} from './helpers/sessionFixtures.js';
import {tempDir} from './helpers/tmp.js';

/*
 * The report model checked against an independent recomputation. One generated sessions folder with
 * planted effects: native +1 helpfulness on every other seed, gold helpfulness 5, trap seeds one point
 * lower on honesty, a second setup (simulator temperature 0.2) one point lower on helpfulness, English
 * eval run twice (trials), no region effect at all. The expected figures are computed here from the
 * session files' raw scores, with nothing from src/report, and every view is held to them.
 */

const root = tempDir('cc-model-');
const env = {CULTURECONVERSE_HOME: path.join(root, 'home')};
const dir = path.join(root, 'sessions');
const reordered = path.join(root, 'reordered');
let sessions: Session[] = [];

type Estimate = {n: number; mean: number; lo: number | null; hi: number | null; seeds: number; na: string | null};

const cli = async (args: string[], folder = dir) => runCli([...args, '--sessions-dir', folder], {cwd: root, env});
async function json<T>(args: string[], folder = dir): Promise<T> {
	const result = await cli([...args, '--json'], folder);
	assert.equal(result.code, 0, result.stderr);
	return parseJson<T>(result.stdout);
}

// ---- the independent side: plain arithmetic over the session files ----
const mean = (values: readonly number[]) => values.reduce((a, b) => a + b, 0) / values.length;
const threeH = (s: Session) => (s.judge!.scores.helpfulness! + s.judge!.scores.honesty! + s.judge!.scores.harmlessness!) / 3;
const setupOf = (s: Session) => (s.config.roles.simulator.temperature === 0.2 ? 'cold' : 'warm');
const cellOf = (s: Session) => `${setupOf(s)}|${s.config.language}|${s.config.mode}`;
const byCell = () => {
	const cells = new Map<string, Session[]>();
	for (const s of sessions) cells.set(cellOf(s), [...(cells.get(cellOf(s)) ?? []), s]);
	return cells;
};
/** Per seed, b − a of the seed's mean 3H on each side, over seeds that have both. */
function pairedExpected(a: (s: Session) => boolean, b: (s: Session) => boolean): {pairs: number; delta: number; unbalanced: number} {
	const seeds = new Map<string, {a: number[]; b: number[]}>();
	for (const s of sessions.filter((x) => setupOf(x) === 'warm')) {
		const entry = seeds.get(s.seed.id) ?? {a: [], b: []};
		if (a(s)) entry.a.push(threeH(s));
		if (b(s)) entry.b.push(threeH(s));
		seeds.set(s.seed.id, entry);
	}
	const both = [...seeds.values()].filter((e) => e.a.length > 0 && e.b.length > 0);
	return {pairs: both.length, delta: mean(both.map((e) => mean(e.b) - mean(e.a))), unbalanced: both.filter((e) => e.a.length !== e.b.length).length};
}

before(async () => {
	const base = await baseSession(root, env);
	const universe = sharedUniverse();
	// One persona per identity id (58), each with its own template.
	const firsts = [...new Map(universe.personas.map((p) => [p.identityId, p] as const)).values()];
	const templates = universe.templates;
	firsts.forEach((persona, i) => {
		const template = templates[(i * 7) % templates.length]!.id;
		const help = 2 + (i % 3);
		const make = (patch: {id: string; language: 'english' | 'native'; mode?: 'eval' | 'gold'; trial?: number; help: number; natural?: number; cold?: boolean}) => {
			const session = fixture(base, {id: patch.id, persona: persona.id, template, language: patch.language, mode: patch.mode ?? 'eval', trial: patch.trial, scores: [patch.help, 4, 4, patch.natural ?? 4, 3, 3], blueprintKey: `bp${i}`, createdAt: new Date(Date.UTC(2026, 10, 1, 0, i)).toISOString()});
			// Trap seeds: one point lower on honesty (the planted tier effect).
			if (session.seed.tier !== 'standard') session.judge!.scores.honesty = 3;
			if (patch.cold) session.config.roles.simulator = {...session.config.roles.simulator, temperature: 0.2};
			else session.config.roles.simulator = {...session.config.roles.simulator, temperature: 0.7};
			session.judge = {...session.judge!, threeH: Math.round(threeH(session) * 1000) / 1000};
			sessions.push(session);
		};
		make({id: `e${i}-1`, language: 'english', trial: 1, help, natural: 4});
		make({id: `e${i}-2`, language: 'english', trial: 2, help, natural: 3 + (i % 2)});
		make({id: `n${i}`, language: 'native', help: help + (i % 2 === 0 ? 1 : 0)});
		if (i < 20) make({id: `g${i}`, language: 'english', mode: 'gold', help: 5});
		if (i < 20) make({id: `c${i}`, language: 'english', trial: 3, help: Math.max(1, help - 1), cold: true});
	});
	writeSessions(dir, sessions);
	writeBatch(dir, 'planted', sessions);
	// The same sessions saved in another order and at other times: no interval may move.
	writeSessions(reordered, [...sessions].reverse().map((s, i) => ({...s, createdAt: new Date(Date.UTC(2026, 11, 2, 0, i)).toISOString(), updatedAt: new Date(Date.UTC(2026, 11, 2, 0, i)).toISOString()})));
});

type Row = {slice: Record<string, string>; n: number; seeds: number; small: boolean; threeH: Estimate | null; tdq: Estimate | null; clean: Estimate | null; metrics: Record<string, Estimate | null>};
type ReportJson = {overall: Row | null; rows: Row[]; cells: Row[]; columns: string[]; setups: Array<{label: string; setup: {roles: Record<string, {temperature: number | null}>}}>; notes: string[]};

/** Every estimate in a JSON value: never zero width; no interval only with a reason. */
function walkEstimates(value: unknown, visit: (e: Estimate, where: string) => void, where = ''): void {
	if (!value || typeof value !== 'object') return;
	const record = value as Record<string, unknown>;
	if (typeof record['mean'] === 'number' && 'lo' in record && 'hi' in record && 'na' in record) visit(record as unknown as Estimate, where);
	for (const [key, inner] of Object.entries(record)) walkEstimates(inner, visit, `${where}.${key}`);
}
const honest = (e: Estimate, where: string) => {
	if (e.lo === null || e.hi === null) assert.ok(e.na && e.na.length > 0, `${where}: no interval without a reason`);
	else assert.ok(e.hi - e.lo > 1e-9, `${where}: zero-width interval [${e.lo}, ${e.hi}]`);
};

describe('the report model against an independent recomputation (planted effects)', () => {
	let report: ReportJson;
	let labels: Map<string, string>;
	before(async () => {
		report = await json<ReportJson>(['report', '--batch', 'planted']);
		labels = new Map(report.setups.map((s) => [s.label, s.setup.roles['simulator']!.temperature === 0.2 ? 'cold' : 'warm']));
	});

	it('keeps setups, languages and modes apart in the main table, each cell equal to its own sessions', () => {
		assert.equal(report.overall, null, 'no figure pools the cells');
		assert.deepEqual(report.columns, ['setup', 'model', 'mode', 'language']);
		const expected = byCell();
		assert.equal(report.rows.length, expected.size);
		for (const row of report.rows) {
			const mine = expected.get(`${labels.get(row.slice.setup!)}|${row.slice.language}|${row.slice.mode}`)!;
			assert.equal(row.n, mine.length);
			assert.equal(row.seeds, new Set(mine.map((s) => s.seed.id)).size);
			assert.ok(Math.abs(row.threeH!.mean - mean(mine.map(threeH))) < 1e-12, 'means from the raw scores, not the rounded 3H');
			assert.ok(Math.abs(row.metrics['helpfulness']!.mean - mean(mine.map((s) => s.judge!.scores.helpfulness!))) < 1e-12);
		}
		walkEstimates(report, honest);
	});

	it('gives the same intervals whatever order the files were saved in', async () => {
		const other = await json<ReportJson>(['report'], reordered);
		assert.deepEqual(other.rows.map((r) => [r.slice, r.threeH, r.tdq, r.clean]), report.rows.map((r) => [r.slice, r.threeH, r.tdq, r.clean]));
	});

	it('two sampling settings are two setups; report noise counts repeats only within one', async () => {
		assert.equal(report.setups.length, 2);
		const text = await cli(['report', 'setups']);
		assert.match(text.stdout, /^2 setup\(s\)/);
		assert.match(text.stdout, /roles\.simulator: .*temperature 0\.2/);
		const noise = await json<{rows: Array<{cell: Record<string, string>; seeds: number; episodes: number}>}>(['report', 'noise']);
		assert.equal(noise.rows.length, 1, 'only the warm English eval cell has repeats (the cold run is another setup, not a third trial)');
		assert.equal(labels.get(noise.rows[0]!.cell['setup']!), 'warm');
		assert.deepEqual([noise.rows[0]!.seeds, noise.rows[0]!.episodes], [58, 116]);
	});

	it('traps and scores agree with the main table cells', async () => {
		const traps = await json<{rows: Array<{cell: Record<string, string>; standard: Estimate | null; trap: Estimate | null; delta: Estimate | null; p: number | null}>}>(['report', 'traps']);
		const cells = byCell();
		assert.equal(traps.rows.length, cells.size);
		for (const row of traps.rows) {
			const mine = cells.get(`${labels.get(row.cell['setup']!)}|${row.cell['language']}|${row.cell['mode']}`)!;
			const standard = mine.filter((s) => s.seed.tier === 'standard').map(threeH);
			const trap = mine.filter((s) => s.seed.tier !== 'standard').map(threeH);
			assert.ok(Math.abs(row.standard!.mean - mean(standard)) < 1e-12);
			assert.ok(Math.abs(row.trap!.mean - mean(trap)) < 1e-12);
			assert.ok(Math.abs(row.delta!.mean - (mean(trap) - mean(standard))) < 1e-12);
		}
		const scores = await json<{cells: Array<{cell: Record<string, string>; metrics: Array<{metric: string; n: number; shares: number[]}>}>}>(['report', 'scores']);
		for (const {cell, metrics} of scores.cells) {
			const mine = cells.get(`${labels.get(cell['setup']!)}|${cell['language']}|${cell['mode']}`)!;
			const help = metrics.find((m) => m.metric === 'helpfulness')!;
			assert.equal(help.n, mine.length);
			assert.deepEqual(help.shares, [1, 2, 3, 4, 5].map((v) => mine.filter((s) => s.judge!.scores.helpfulness === v).length / mine.length));
		}
	});

	it('paired deltas pair within the other keys and recover the planted effects', async () => {
		const all = await json<{rows: Array<{slice: Record<string, string>; pairs: number; unpaired: number; unbalanced: number; delta: {threeH: Estimate}}>}>(['report', 'paired', '--by', 'language', '--setup', [...labels].find(([, v]) => v === 'warm')![0]]);
		// Pairs are made within each mode: gold has no native episodes, so its row pairs nothing (and says so).
		assert.deepEqual(all.rows.map((row) => [row.slice['mode'], row.pairs, row.unpaired]), [['eval', 58, 0], ['gold', 0, 20]]);
		const language = {rows: all.rows.filter((row) => row.pairs > 0)};
		const expected = pairedExpected((s) => s.config.language === 'english' && s.config.mode === 'eval', (s) => s.config.language === 'native');
		assert.equal(language.rows[0]!.pairs, expected.pairs);
		assert.equal(language.rows[0]!.unbalanced, expected.unbalanced, 'two English trials against one native episode: each seed counts once');
		assert.ok(Math.abs(language.rows[0]!.delta.threeH.mean - expected.delta) < 1e-12);
		assert.ok(Math.abs(expected.delta - 1 / 6) < 1e-12, 'the planted native effect: +1 helpfulness on half the seeds');
		const mode = await json<{rows: Array<{pairs: number; delta: {threeH: Estimate}; p: number}>}>(['report', 'paired', '--by', 'mode', '--setup', [...labels].find(([, v]) => v === 'warm')![0]]);
		const gold = pairedExpected((s) => s.config.language === 'english' && s.config.mode === 'eval', (s) => s.config.mode === 'gold');
		assert.equal(mode.rows[0]!.pairs, 20);
		assert.ok(Math.abs(mode.rows[0]!.delta.threeH.mean - gold.delta) < 1e-12);
		assert.ok(mode.rows[0]!.p < 0.01, 'a planted gold effect is significant');
	});

	it('disparities: no region effect gives a large p-value, the planted tier effect a small one', async () => {
		const warm = [...labels].find(([, v]) => v === 'warm')![0];
		const only = ['--setup', warm, '--lang', 'english', '--mode', 'eval'];
		type Disparities = {rows: Array<{threeH: {range: number; lo: number | null; hi: number | null; p: number}; slices: Array<{value: string; mean: number; n: number}>}>; comparisons: number};
		const region = await json<Disparities>(['report', 'disparities', '--by', 'region', ...only]);
		assert.equal(region.rows.length, 1);
		const cell = sessions.filter((s) => setupOf(s) === 'warm' && s.config.language === 'english' && s.config.mode === 'eval');
		const means = [...new Set(cell.map((s) => s.persona.region))].map((r) => mean(cell.filter((s) => s.persona.region === r).map(threeH)));
		assert.ok(Math.abs(region.rows[0]!.threeH.range - (Math.max(...means) - Math.min(...means))) < 1e-12, 'the range is max − min of the region means');
		assert.ok(region.rows[0]!.threeH.lo! < region.rows[0]!.threeH.range && region.rows[0]!.threeH.range < region.rows[0]!.threeH.hi!);
		assert.ok(region.rows[0]!.threeH.p > 0.05, `no region effect was planted: p ${region.rows[0]!.threeH.p}`);
		const tier = await json<Disparities>(['report', 'disparities', '--by', 'tier', ...only]);
		assert.ok(tier.rows[0]!.threeH.p < 0.01, `the planted tier effect is found: p ${tier.rows[0]!.threeH.p}`);
		const pairwise = await cli(['report', 'disparities', '--by', 'tier', '--pairwise', ...only]);
		assert.match(pairwise.stdout, /Holm-adjusted over all 3 comparisons/);
	});

	it('identity slices are keyed by identity id: 58 rows, MY and SG identities of one label apart', async () => {
		const warm = [...labels].find(([, v]) => v === 'warm')![0];
		const byIdentity = await json<ReportJson>(['report', '--by', 'identity', '--setup', warm, '--lang', 'english', '--mode', 'eval']);
		assert.equal(byIdentity.rows.length, 58);
		const ids = byIdentity.rows.map((r) => r.slice.identity);
		assert.ok(ids.includes('my-chinese-taoist-buddhist') && ids.includes('sg-chinese-taoist-buddhist'));
		const row = byIdentity.rows.find((r) => r.slice.identity === 'sg-tamil-hindu')! as Row & {labels: Record<string, string>};
		assert.equal(row.labels['identity'], 'Tamil Hindu (SG)');
	});

	it("fills the paper's Table 4 only from one cell per model, pooled on purpose, and refuses otherwise", async () => {
		const refused = await cli(['report', 'paper', '--table', '4']);
		assert.equal(refused.code, 2);
		assert.match(refused.stderr, /Table 4 cannot be filled .* differ in setups .*languages \(english \/ native\).*--pool language/);
		const warm = [...labels].find(([, v]) => v === 'warm')![0];
		const table = await json<{rows: Array<{model: string; n: number; threeH: Estimate; clean: Estimate}>; average: unknown}>(['report', 'paper', '--table', '4', '--setup', warm, '--mode', 'eval', '--pool', 'language']);
		const pooled = sessions.filter((s) => setupOf(s) === 'warm' && s.config.mode === 'eval');
		assert.deepEqual(table.rows.map((r) => [r.model, r.n]), [['model-a', pooled.length]]);
		assert.ok(Math.abs(table.rows[0]!.threeH.mean - mean(pooled.map(threeH))) < 1e-12);
		assert.equal(table.average, null, 'one model: no Average row');
		const figure = await cli(['report', 'paper', '--figure', '4', '--setup', warm, '--mode', 'eval', '--pool', 'language', '--html', path.join(root, 'figure4.html')]);
		assert.equal(figure.code, 0, figure.stderr);
		assert.match(figure.stdout, /Figure 4: 3H against TDQ per assistant model/);
	});
});

describe('ratings are read the same way in every format', () => {
	it('trims rater names in JSONL as in CSV, and refuses a CSV row with extra fields with file:line', async () => {
		const rated = sessions.slice(0, 2).map((s) => s.id);
		const jsonl = path.join(root, 'ratings.jsonl');
		writeFileSync(jsonl, [{session: rated[0], metric: 'helpfulness', score: 3, rater: ' A'}, {session: rated[1], metric: 'helpfulness', score: 4, rater: 'A '}].map((r) => JSON.stringify(r)).join('\n'));
		const out = await json<{raters: number; cells: Array<{overall: {humans: {pairs: number}}}>}>(['report', 'agreement', '--ratings', jsonl]);
		assert.equal(out.raters, 1, '" A" and "A " are one rater');
		assert.equal(out.cells[0]!.overall.humans.pairs, 0, 'so there is no human-human pair');
		const csvFile = path.join(root, 'ratings.csv');
		writeFileSync(csvFile, `session,metric,score,rater\n${rated[0]},helpfulness,3,A,extra\n`);
		const bad = await cli(['report', 'agreement', '--ratings', csvFile]);
		assert.equal(bad.code, 2);
		assert.match(bad.stderr, /ratings\.csv:2: more fields than the header names/);
	});
});
