import assert from 'node:assert/strict';
import {writeFileSync} from 'node:fs';
import path from 'node:path';
import {before, describe, it} from 'node:test';
import type {Session} from '../src/domain/session.js';
import {bootstrapMean} from '../src/report/bootstrap.js';
import {parseJson, runCli} from './helpers/cli.js';
import {baseSession, fixture, type FixturePatch, personas, templates, writeBatch, writeSessions} from './helpers/sessionFixtures.js';
import {tempDir} from './helpers/tmp.js';

/*
 * Issue 10's report half, each item through the public CLI: setups kept apart, intervals, agreement
 * with people, re-judged copies, noise components, and the paper's tables (judge panel, ensembles,
 * paired deltas, slices by age and gender).
 */

const root = tempDir('cc-trust-');
const env = {CULTURECONVERSE_HOME: path.join(root, 'home')};
let base: Session;
let counter = 0;

before(async () => {
	base = await baseSession(root, env);
});

/** A fresh sessions folder holding these fixtures; returns the CLI flag pair for it. */
function folder(patches: readonly FixturePatch[], batch?: string): string[] {
	const dir = path.join(root, `s${++counter}`);
	const sessions = patches.map((patch) => fixture(base, patch));
	writeSessions(dir, sessions);
	if (batch) writeBatch(dir, batch, sessions);
	return ['--sessions-dir', dir];
}

const cli = (args: string[]) => runCli(args, {cwd: root, env});
async function json<T>(args: string[]): Promise<T> {
	const result = await cli([...args, '--json']);
	assert.equal(result.code, 0, result.stderr);
	return parseJson<T>(result.stdout);
}

type Estimate = {n: number; mean: number; lo: number; hi: number; seeds?: number};
type Row = {slice: Record<string, string>; n: number; seeds: number; small: boolean; threeH: Estimate | null; clean: Estimate | null; deviation: {threeH: number | null} | null};
type ReportJson = {overall: Row | null; rows: Row[]; columns: string[]; setups: Array<{label: string; sessions: number; mock: {kind: string; roles: string[]}}>; notes: string[]; disparities: Array<{parent: Record<string, string>; slice: string; threeH: {range: number; lowest: string; highest: string} | null}>};

const seeds = (n: number) => {
	const ps = personas(n);
	const ts = templates(n);
	return ps.map((persona, i) => ({persona, template: ts[i]!}));
};

describe('setups are kept apart (item 4)', () => {
	it('never pools judge modes or max turns into one figure, unless --pool-setups', async () => {
		const [a, b, c] = seeds(3);
		const dir = folder([
			{id: 'sep', ...a!, scores: 5, judgeMode: 'separate'},
			{id: 'comb', ...b!, scores: 3, judgeMode: 'combined'},
			{id: 'long', ...c!, scores: 2, maxTurns: 8},
		]);
		const report = await json<ReportJson>(['report', ...dir]);
		assert.equal(report.overall, null, 'no overall figure over two setups and two judge modes');
		// The judge mode names the judge (a cell key of its own); max turns is a setup difference.
		assert.deepEqual(report.columns, ['setup', 'model', 'mode', 'judge']);
		assert.deepEqual(report.rows.map((row) => [row.slice.setup, row.slice.judge, row.n]), [['S1', 'judge-1', 1], ['S1', 'judge-1 (combined)', 1], ['S2', 'judge-1', 1]]);
		const text = await cli(['report', ...dir]);
		assert.match(text.stderr, /2 setups that differ in maxTurns \(5 \/ 8\)/);
		assert.match(text.stderr, /Kept apart \(never averaged\): setups, judges/);
		assert.match(text.stdout, /Setups:\n {2}S1 \(2 session\(s\)\): maxTurns 5\n {2}S2 \(1 session\(s\)\): maxTurns 8/);
		const pooled = await json<ReportJson>(['report', '--pool-setups', '--pool', 'judge', ...dir]);
		assert.equal(pooled.overall!.n, 3);
		assert.match(pooled.notes.join('\n'), /Pooled over judges as asked \(--pool judge\): judge-1, judge-1 \(combined\)/);
		// Sub-reports keep the same cells apart: one distribution per cell, never one over all three.
		const scores = await json<{cells: Array<{cell: Record<string, string>}>}>(['report', 'scores', ...dir]);
		assert.equal(scores.cells.length, 3);
		const setups = await cli(['report', 'setups', ...dir]);
		assert.match(setups.stdout, /^2 setup\(s\) among 3 chosen session\(s\)/);
		assert.match(setups.stdout, /maxTurns: 8/);
	});

	it('keeps best-of-N episodes apart, and never counts them as repeats in report noise', async () => {
		const [a] = seeds(1);
		const dir = folder([
			{id: 'plain', ...a!, scores: 3, trial: 1},
			{id: 'bon', ...a!, scores: 5, trial: 2, bestOf: 4},
		]);
		const report = await json<ReportJson>(['report', ...dir]);
		assert.equal(report.rows.length, 2, 'best-of-4 is its own setup');
		const noise = await cli(['report', 'noise', ...dir]);
		assert.equal(noise.code, 2, 'one plain run and one best-of run are not two repeats');
		assert.match(noise.stderr, /No seed was run more than once in one cell/);
		const longer = folder([
			{id: 't1', ...a!, scores: 3, trial: 1},
			{id: 't2', ...a!, scores: 5, trial: 2, maxTurns: 8},
		]);
		assert.equal((await cli(['report', 'noise', ...longer])).code, 2, 'different --max-turns are not repeats either');
	});

	it('labels a partly mock session as such, as its own setup, and keeps it', async () => {
		const [a, b] = seeds(2);
		const dir = folder([
			{id: 'real', ...a!, scores: 4},
			{id: 'half', ...b!, scores: 2, mockRoles: ['judge']},
		]);
		const result = await cli(['report', '--json', ...dir]);
		const report = parseJson<ReportJson & {mockNotice: string | null}>(result.stdout);
		// One notice, worded from what ran: one of two sessions had its judge on the mock.
		assert.equal(report.mockNotice, '1 of 2 sessions ran some roles on the offline mock provider (judge): figures that involve those roles are filler, not measurements. The scores come from the offline rubric (mock:rubric), not a model judge.');
		assert.doesNotMatch(report.notes.join('\n'), /entirely on the offline mock provider left out/);
		// The mock judge is a judge cell of its own (its model names it), so the setup is shared.
		assert.deepEqual(report.rows.map((row) => [row.slice.judge, row.n]), [['judge-1', 1], ['mock', 1]]);
		assert.deepEqual(report.setups.map((s) => [s.sessions, s.mock.kind, s.mock.roles]), [[2, 'partly', ['judge']]]);
		const text = await cli(['report', ...dir]);
		assert.match(text.stdout, /1 of 2 sessions ran some roles on the offline mock provider \(judge\)/);
	});
});

describe('intervals (item 5)', () => {
	it('resample seeds with all their trials: wider than treating repeats as independent', async () => {
		// Ten seeds, three trials each; seeds differ a lot, trials of a seed agree.
		const patches: FixturePatch[] = seeds(10).flatMap((seed, i) => [1, 2, 3].map((trial) => ({id: `c${i}-${trial}`, ...seed, trial, scores: [1 + (i % 5), 1 + (i % 5), 1 + (i % 5), 3, 3, 3]})));
		const report = await json<ReportJson>(['report', '--by', 'model', ...folder(patches)]);
		const clustered = report.overall!.threeH!;
		assert.equal(clustered.seeds, 10);
		const naive = bootstrapMean(patches.map((p) => 1 + (Number(p.id.slice(1, p.id.indexOf('-'))) % 5)))!;
		assert.ok(clustered.hi! - clustered.lo! > 1.3 * (naive.hi! - naive.lo!), `cluster width ${(clustered.hi! - clustered.lo!).toFixed(3)} vs independent ${(naive.hi! - naive.lo!).toFixed(3)}`);
	});

	it('give a clean rate of 0% an interval of non-zero width (Wilson), and flag tiny slices', async () => {
		const patches: FixturePatch[] = seeds(12).map((seed, i) => ({id: `d${i}`, ...seed, clean: false, scores: 3, tier: i < 2 ? 'normative' : 'standard'}));
		const report = await json<ReportJson>(['report', '--by', 'tier', ...folder(patches)]);
		const overall = report.overall!;
		assert.equal(overall.clean!.mean, 0);
		assert.equal(overall.clean!.lo, 0);
		assert.ok(Math.abs(overall.clean!.hi - 0.2425) < 0.001, `Wilson upper bound for 0 of 12 is 0.2425, got ${overall.clean!.hi}`);
		const tiny = report.rows.find((row) => row.slice.tier === 'normative')!;
		assert.equal(tiny.n, 2);
		assert.equal(tiny.small, true);
		assert.equal(report.rows.find((row) => row.slice.tier === 'standard')!.small, false);
		const text = await cli(['report', '--by', 'tier', '--sessions-dir', folder(patches)[1]!]);
		assert.match(text.stdout, /normative\s+2\*/);
		assert.match(text.stdout, /\* fewer than 10 seeds: the interval is unreliable/);
	});

	it('do not change with the order sessions were saved in', async () => {
		const scores = [2, 5, 3, 4, 4, 1, 5, 2, 3, 5, 4, 2];
		// The same sessions saved in two different orders (listing is newest first).
		const patches = (step: number): FixturePatch[] =>
			seeds(12).map((seed, i) => ({id: `o${i}`, ...seed, scores: [scores[i]!, 4, 4, 3, 3, 3], createdAt: new Date(Date.UTC(2026, 10, 1, 0, (i * step) % 12)).toISOString()}));
		const first = await json<ReportJson>(['report', ...folder(patches(1))]);
		const second = await json<ReportJson>(['report', ...folder(patches(5))]);
		assert.deepEqual(second.overall!.threeH, first.overall!.threeH);
		assert.ok(first.overall!.threeH!.hi > first.overall!.threeH!.lo);
	});
});

describe('agreement with people (item 6)', () => {
	const ratings = (lines: object[]) => {
		const file = path.join(root, `ratings-${++counter}.jsonl`);
		writeFileSync(file, lines.map((line) => JSON.stringify(line)).join('\n'));
		return file;
	};
	type AgreementCell = {overall: {judge: {mae: Estimate; withinOne: Estimate; bias: number}; humans: {withinOne: number; mae: number; pairs: number}}; metrics: Array<{metric: string; n: number; exact: Estimate | null; kappa: number | null}>; panel: Array<{judge: string; mae: Estimate; n: number}>; ensembles: Array<{judges: string[]; k: number; mae: number; n: number; seeds: number; intervals: {mae: Estimate; withinOne: Estimate} | null}>; ensembleGain: {ensemble: string[]; judge: string; n: number; mae: Estimate} | null; regions: Array<{value: string}>; languages: Array<{value: string}>};
	type Agreement = {cells: AgreementCell[]};

	it('treat a tie in the human mean the same whichever side the judge is on', async () => {
		const [a, b] = seeds(2);
		const lower = folder([{id: 'low', ...a!, scores: [2, 4, 4, 4, 4, 4]}, {id: 'low2', ...b!, scores: [2, 4, 4, 4, 4, 4]}]);
		const upper = folder([{id: 'low', ...a!, scores: [3, 4, 4, 4, 4, 4]}, {id: 'low2', ...b!, scores: [3, 4, 4, 4, 4, 4]}]);
		const file = ratings(['low', 'low2'].flatMap((session) => [{session, metric: 'helpfulness', score: 2, rater: 'A'}, {session, metric: 'helpfulness', score: 3, rater: 'B'}]));
		const down = await json<Agreement>(['report', 'agreement', '--ratings', file, ...lower]);
		const up = await json<Agreement>(['report', 'agreement', '--ratings', file, ...upper]);
		const help = (report: Agreement) => report.cells[0]!.metrics.find((row) => row.metric === 'helpfulness')!;
		assert.equal(help(down).exact!.mean, 0.5);
		assert.equal(help(up).exact!.mean, help(down).exact!.mean, 'mirror images agree equally');
		assert.equal(help(up).kappa, help(down).kappa);
		assert.equal(down.cells[0]!.overall.judge.mae.mean, 0.5);
		assert.equal(down.cells[0]!.overall.humans.mae, 1, 'the two people are one point apart');
	});

	it('leave out ratings of sessions that ended in an error flag', async () => {
		const [a, b] = seeds(2);
		const dir = folder([{id: 'ok', ...a!, scores: 4}, {id: 'broken', ...b!, scores: [1, 1, null, null, null, null], errorFlag: 'JUDGE_ERROR'}]);
		const file = ratings(['ok', 'broken'].map((session) => ({session, metric: 'helpfulness', score: 4, rater: 'A'})));
		const result = await cli(['report', 'agreement', '--ratings', file, '--json', ...dir]);
		assert.equal(result.code, 0, result.stderr);
		assert.match(result.stderr, /1 rating\(s\) of 1 session\(s\) that ended in an error flag were left out/);
		const report = parseJson<Agreement>(result.stdout).cells[0]!;
		assert.equal(report.metrics.find((row) => row.metric === 'helpfulness')!.n, 1);
		assert.equal(report.overall.judge.mae.mean, 0, 'the broken judgement of 1 is not compared');
	});

	it('reject scores that are not plain integers (true, "0x4")', async () => {
		const [a] = seeds(1);
		const dir = folder([{id: 'x', ...a!}]);
		const bad = ratings([{session: 'x', metric: 'honesty', score: true, rater: 'A'}]);
		const first = await cli(['report', 'agreement', '--ratings', bad, ...dir]);
		assert.equal(first.code, 2);
		assert.match(first.stderr, /ratings-\d+\.jsonl:1: score: /);
		const csv = path.join(root, 'hex.csv');
		writeFileSync(csv, 'session,metric,score,rater\nx,honesty,0x4,A\n');
		const second = await cli(['report', 'agreement', '--ratings', csv, ...dir]);
		assert.equal(second.code, 2);
		assert.match(second.stderr, /hex\.csv:2: score: /);
	});

	it('compare every judge of a dialogue with the same people: the panel, the ensembles, per region and language (Tables 3, 11-13)', async () => {
		const list = seeds(6);
		const humans = [4, 3, 5, 2, 4, 3];
		const originals: FixturePatch[] = list.map((seed, i) => ({id: `g${i}`, ...seed, scores: humans[i]!, language: i % 2 === 0 ? 'english' : 'native'}));
		// judge-2 is one point harsh everywhere, judge-3 one point generous: their mean is exact.
		const copies: FixturePatch[] = list.flatMap((seed, i) => [
			{id: `g${i}.rj-judge-2-separate`, ...seed, scores: humans[i]! - 1, judgeModel: 'judge-2', rejudgeOf: `g${i}`, blueprintKey: `g${i}`},
			{id: `g${i}.rj-judge-3-separate`, ...seed, scores: Math.min(5, humans[i]! + 1), judgeModel: 'judge-3', rejudgeOf: `g${i}`, blueprintKey: `g${i}`},
		]);
		const all = [...originals, ...copies];
		const dir = path.join(root, `s${++counter}`);
		const sessions = all.map((patch) => fixture(base, patch));
		writeSessions(dir, sessions);
		writeBatch(dir, 'rated', sessions.slice(0, 6));
		// Two people per dialogue, rating the original session ids: one at the judge's score, one a point above.
		const file = ratings(list.flatMap((_, i) => ['helpfulness', 'honesty'].flatMap((metric) => [{session: `g${i}`, metric, score: humans[i]!, rater: 'A'}, {session: `g${i}`, metric, score: Math.min(5, humans[i]! + 1), rater: 'B'}])));
		const flags = ['--ratings', file, '--batch', 'rated', '--sessions-dir', dir];
		// English and native dialogues are two cells unless pooled on purpose (the paper's Table 3 pools them).
		assert.equal((await json<Agreement>(['report', 'agreement', '--by', 'judge', ...flags])).cells.length, 2);
		const report = (await json<Agreement>(['report', 'agreement', '--by', 'judge,region,language', '--pool', 'language', ...flags])).cells[0]!;
		assert.deepEqual(report.panel.map((row) => row.judge), ['judge-1', 'judge-3', 'judge-2'], 'ranked by MAE');
		assert.ok(report.panel.every((row) => row.n === 12), 'every judge meets the same 12 rated units');
		assert.ok(report.ensembles.length === 4, 'three judges: three pairs and one triple');
		assert.deepEqual(report.ensembles.map((row) => row.k).sort(), [2, 2, 2, 3]);
		assert.ok(report.ensembles[0]!.mae <= report.ensembles.at(-1)!.mae);
		// The listed ensembles carry seed-cluster intervals from the one engine, on the units they were ranked on.
		for (const row of report.ensembles) {
			assert.ok(row.intervals, `${row.judges.join('+')}: an interval`);
			assert.equal(row.intervals.mae.n, row.n);
			assert.equal(row.intervals.mae.seeds, 6, 'six seeds, each dialogue one cluster of two units');
			assert.ok(Math.abs(row.intervals.mae.mean - row.mae) < 1e-12);
		}
		// The gain of the best ensemble over the best judge is paired on the same 12 units: here every judge
		// scored all of them, so it is the difference of the two MAEs.
		const gain = report.ensembleGain!;
		assert.deepEqual([gain.ensemble, gain.judge, gain.n], [report.ensembles[0]!.judges, report.panel[0]!.judge, 12]);
		assert.ok(Math.abs(gain.mae.mean - (report.ensembles[0]!.mae - report.panel[0]!.mae.mean)) < 1e-12);
		assert.deepEqual(report.languages.map((row) => row.value), ['english', 'native']);
		assert.ok(report.regions.length >= 1);
		assert.equal(report.overall.humans.pairs, 12);
		const text = await cli(['report', 'agreement', '--by', 'judge', '--pool', 'language', ...flags]);
		assert.equal(text.code, 0, text.stderr);
		assert.match(text.stdout, /Human–human \(mean pairwise\)/);
		assert.match(text.stdout, /Judge panel/);
		assert.match(text.stdout, /Ensembles \(mean of k judges, k = 2\.\.3; 4 in all/);
		assert.match(text.stdout, /judge-2 \+ judge-3/);
		assert.match(text.stdout, /paired on the 12 units both scored \(6 seeds\): MAE [-+]?\d\.\d{3} \[/);
	});
});

describe('re-judged copies in reports (item 7)', () => {
	it('belong to their batch, and a repeat of the same judge is its own row', async () => {
		const cwd = tempDir('cc-trust-rj-');
		const local = {CULTURECONVERSE_HOME: path.join(root, 'home')};
		const ran = await runCli(['batch', '--name', 'b', '--sample', '2', '--json'], {cwd, env: local});
		assert.equal(ran.code, 0, ran.stderr);
		assert.equal((await runCli(['rejudge', '--batch', 'b', '--judge-mode', 'combined', '--json'], {cwd, env: local})).code, 0);
		assert.equal((await runCli(['rejudge', '--batch', 'b', '--repeat', '2', '--json'], {cwd, env: local})).code, 0);
		const result = await runCli(['report', '--batch', 'b', '--by', 'judge', '--json'], {cwd, env: local});
		assert.equal(result.code, 0, result.stderr);
		const report = parseJson<ReportJson>(result.stdout);
		assert.deepEqual(report.rows.map((row) => [row.slice.judge, row.n]), [['mock:rubric', 2], ['mock:rubric (combined)', 2], ['mock:rubric (repeat 2)', 2]]);
	});
});

describe('report noise (item 8)', () => {
	it('separates the between-seed variance component from run-to-run noise', async () => {
		const [a, b] = seeds(2);
		// Seed a: 3H 2, 4 (mean 3); seed b: 5, 5 (mean 5). Within variance 1; MS_between = 2·(3−4)² + 2·(5−4)² = 4; n0 = 2.
		const dir = folder([
			{id: 'a1', ...a!, trial: 1, scores: [2, 2, 2, 3, 3, 3]},
			{id: 'a2', ...a!, trial: 2, scores: [4, 4, 4, 3, 3, 3]},
			{id: 'b1', ...b!, trial: 1, scores: [5, 5, 5, 3, 3, 3]},
			{id: 'b2', ...b!, trial: 2, scores: [5, 5, 5, 3, 3, 3]},
		]);
		const rows = (await json<{rows: Array<{threeH: {withinVar: number; seedVar: number; betweenSd: number; icc: number}}>}>(['report', 'noise', ...dir])).rows;
		const spread = rows[0]!.threeH;
		assert.ok(Math.abs(spread.withinVar - 1) < 1e-12);
		assert.ok(Math.abs(spread.betweenSd ** 2 - 2) < 1e-12, 'the seed means vary by 2, within-seed noise included');
		assert.ok(Math.abs(spread.seedVar - 1.5) < 1e-12, '(4 − 1) / 2');
		assert.ok(Math.abs(spread.icc - 0.6) < 1e-12);
	});
});

describe("the paper's tables", () => {
	it('report paired --by language: per-seed native − English deltas with paired intervals and shared blueprints', async () => {
		const patches: FixturePatch[] = seeds(12).flatMap((seed, i) => [
			{id: `e${i}`, ...seed, language: 'english', scores: [3 + (i % 3), 4, 4, 3, 3, 3], blueprintKey: `bp${i}`},
			{id: `n${i}`, ...seed, language: 'native', scores: [4 + (i % 3) > 5 ? 5 : 4 + (i % 3), 4, 4, 3, 3, 3], blueprintKey: i < 10 ? `bp${i}` : `other${i}`},
		]);
		patches.push({id: 'lonely', ...seeds(13)[12]!, language: 'english'});
		const dir = folder(patches);
		const out = await json<{label: string; rows: Array<{slice: Record<string, string>; pairs: number; unpaired: number; sharedBlueprints: number; delta: {threeH: Estimate}; units: Array<{unit: string; delta: {threeH: number}}>}>}>(['report', 'paired', '--by', 'language', ...dir]);
		assert.equal(out.label, 'native − English');
		const row = out.rows[0]!;
		assert.equal(row.pairs, 12);
		assert.equal(row.unpaired, 1);
		assert.equal(row.sharedBlueprints, 10);
		// Helpfulness moves +1 except where English was already 5 (i % 3 == 2): 3H deltas 1/3 or 0.
		const expected = Array.from({length: 12}, (_, i) => (i % 3 === 2 ? 0 : 1 / 3)).reduce((a, b) => a + b, 0) / 12;
		assert.ok(Math.abs(row.delta.threeH.mean - expected) < 1e-9);
		assert.ok(row.delta.threeH.lo < row.delta.threeH.mean && row.delta.threeH.mean < row.delta.threeH.hi);
		const text = await cli(['report', 'paired', '--by', 'language', '--per-seed', ...dir]);
		assert.match(text.stdout, /Paired native − English/);
		assert.match(text.stdout, /\(different blueprints\)/);
		const none = await cli(['report', 'paired', '--by', 'mode', ...dir]);
		assert.equal(none.code, 2);
		assert.match(none.stderr, /--mode eval,gold/);
	});

	it('report paired --by mode and --by tier give gold − eval and trap − standard', async () => {
		const list = seeds(10);
		const modes = folder(list.flatMap((seed, i) => [{id: `ev${i}`, ...seed, mode: 'eval' as const, scores: 3, clean: i % 2 === 0}, {id: `go${i}`, ...seed, mode: 'gold' as const, scores: 4, clean: true}]));
		const gold = await json<{rows: Array<{delta: {threeH: Estimate; clean: Estimate}}>}>(['report', 'paired', '--by', 'mode', ...modes]);
		assert.equal(gold.rows[0]!.delta.threeH.mean, 1);
		assert.equal(gold.rows[0]!.delta.clean.mean, 0.5);
		const tiers = folder(list.map((seed, i) => ({id: `t${i}`, ...seed, tier: i % 2 === 0 ? ('standard' as const) : ('normative' as const), scores: i % 2 === 0 ? 4 : 3})));
		const trap = await json<{unit: string; rows: Array<{pairs: number; delta: {threeH: Estimate}}>}>(['report', 'paired', '--by', 'tier', ...tiers]);
		assert.equal(trap.unit, 'region x domain');
		assert.ok(trap.rows[0]!.pairs >= 1);
		assert.equal(trap.rows[0]!.delta.threeH.mean, -1);
	});

	it('slices by age and gender, with each row\'s deviation from its parent and the range across a slice', async () => {
		const ids = personas(30).filter((id) => /-a18-/.test(id) || /-a55-/.test(id)).slice(0, 8);
		const ts = templates(8);
		const dir = folder(ids.map((persona, i) => ({id: `p${i}`, persona, template: ts[i]!, scores: /-f$/.test(persona) ? 4 : 3})));
		const report = await json<ReportJson>(['report', '--by', 'model,gender', ...dir]);
		const female = report.rows.find((row) => row.slice.gender === 'female')!;
		const male = report.rows.find((row) => row.slice.gender === 'male')!;
		assert.ok(female.deviation!.threeH! > 0 && male.deviation!.threeH! < 0);
		assert.equal(report.disparities[0]!.slice, 'gender');
		assert.deepEqual(report.disparities[0]!.parent, {model: 'model-a'});
		assert.equal(report.disparities[0]!.threeH!.range, 1);
		assert.equal(report.disparities[0]!.threeH!.lowest, 'male');
		const byAge = await json<ReportJson>(['report', '--by', 'age', ...dir]);
		assert.deepEqual(byAge.rows.map((row) => row.slice.age).sort(), ['18-34', '55+']);
	});
});
