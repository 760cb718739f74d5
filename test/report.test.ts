import assert from 'node:assert/strict';
import {setupFields} from './helpers/summaryFixture.js';
import {readFileSync, writeFileSync} from 'node:fs';
import path from 'node:path';
import {after, before, describe, it} from 'node:test';
import {METRICS} from '../src/domain/session.js';
import type {SessionSummary} from '../src/domain/sessionSummary.js';
import {runNoise} from '../src/report/noise.js';
import {distributionOf, trapGaps} from '../src/report/distribution.js';
import {buildReport as build, type Slice} from '../src/report/aggregate.js';
import {selectCells} from '../src/report/cells.js';
import {krippendorffInterval, pearson, spearman, weightedKappa} from '../src/report/agreement.js';
import {bootstrapMean, holm, seededRandom} from '../src/report/bootstrap.js';
import {fixed, signed, withInterval} from '../src/present/numbers.js';
import {parseJson, runCli} from './helpers/cli.js';
import {episodeHarness, type Harness} from './helpers/episodeHarness.js';
import {promptText, scriptedModel} from './helpers/scriptedModel.js';
import {tempDir} from './helpers/tmp.js';

describe('report: bootstrap intervals', () => {
	it('are reproducible, contain the mean, and narrow as the sample grows', () => {
		const random = seededRandom('data');
		const sample = (n: number) => Array.from({length: n}, () => (random() < 0.5 ? 1 : 0));
		const small = sample(25);
		const large = sample(400);
		const a = bootstrapMean(small, {seed: 's'})!;
		assert.deepEqual(bootstrapMean(small, {seed: 's'}), a, 'same data, same seed, same interval');
		assert.ok(a.lo! <= a.mean && a.mean <= a.hi!);
		const b = bootstrapMean(large, {seed: 's'})!;
		assert.ok(b.hi! - b.lo! < (a.hi! - a.lo!) / 2, `400 values (${(b.hi! - b.lo!).toFixed(3)}) give a much tighter interval than 25 (${(a.hi! - a.lo!).toFixed(3)})`);
		// For a proportion near 0.5 with n=400 the 95% interval is about ±0.05.
		assert.ok(Math.abs((b.hi! - b.lo!) / 2 - 0.049) < 0.015, `half-width ${((b.hi! - b.lo!) / 2).toFixed(3)}`);
		// Never a zero-width interval: one value, or values all equal, give n/a with the reason.
		assert.deepEqual(bootstrapMean([4]), {n: 1, mean: 4, lo: null, hi: null, seeds: 1, method: 'bootstrap', resamples: 2000, na: 'one value'});
		assert.equal(bootstrapMean([]), null);
		const constant = bootstrapMean([3, 3, 3, 3])!;
		assert.deepEqual([constant.lo, constant.hi, constant.na], [null, null, 'every value is 3']);
	});
});

const buildReport = (sessions: SessionSummary[], by: Slice[]) => build(selectCells(sessions, {judges: by.includes('judge')}), by);

const summary = (patch: Partial<SessionSummary>): SessionSummary => ({
	id: 'x',
	path: '/x.json',
	status: 'completed',
	createdAt: '2026-11-30T10:00:00.000Z',
	updatedAt: '2026-11-30T10:00:00.000Z',
	seedId: 'p:t',
	personaId: 'my-malay-muslim-a18-f',
	identity: 'Malay Muslim',
	region: 'MY',
	templateId: 'culinary.dietary-rules.01',
	tier: 'standard',
	split: 'train',
	language: 'english',
	mode: 'eval',
	assistant: 'llm',
	assistantModel: 'model-a',
	turns: 10,
	threeH: 4,
	tdq: 3,
	clean: true,
	scores: {helpfulness: 4, honesty: 4, harmlessness: 4, naturalness: 3, plausibility: 3, typicality: 3},
	judgeModel: 'judge-1',
	judgeMode: 'separate',
	rejudgeOf: null,
	errorFlag: null,
	termination: 'all_shards_passed',
	mock: false,
	...setupFields({assistantModel: patch.assistantModel, judgeModel: patch.judgeModel, judgeMode: patch.judgeMode, mock: patch.mock, language: patch.language, mode: patch.mode}),
	...patch,
});

describe('report: number formats and statistics that never lie by rounding', () => {
	it('prints no signed zeros, n/a instead of zero-width intervals, and Holm-adjusts in step-down order', () => {
		assert.equal(fixed(-0.001), '0.00');
		assert.equal(signed(-0.004), '0.00');
		assert.equal(signed(0.004), '0.00');
		assert.equal(signed(0.006), '+0.01');
		assert.equal(signed(-0.3), '-0.30');
		assert.equal(withInterval(bootstrapMean([4])), '4.00 [n/a: one value]');
		assert.deepEqual(holm([0.01, 0.04, 0.03, null]), [0.03, 0.06, 0.06, null]);
		assert.equal(weightedKappa([3], [3]), null, 'one unit: no kappa, not 0');
		assert.equal(weightedKappa([2, 4, 3], [3, 3, 3]), null, 'one rater in one category: no kappa, not 0');
		const still = runNoise(selectCells([1, 2].flatMap((seed) => [1, 2].map((trial) => summary({id: `q${seed}-${trial}`, seedId: `p:${seed}`, threeH: 4, tdq: 3})))));
		assert.equal(still[0]!.threeH!.icc, null, 'no variance at all: no ICC, not 1');
		assert.equal(still[0]!.threeH!.iccNa, 'no variance at all');
	});
});

describe('report: agreement statistics', () => {
	it('match hand-computed values', () => {
		assert.equal(pearson([1, 2, 3], [2, 4, 6]), 1);
		assert.equal(pearson([1, 2, 3], [3, 3, 3]), null, 'no variance, no correlation');
		assert.equal(spearman([1, 2, 3, 4], [10, 20, 30, 1000]), 1, 'ranks, not values');
		assert.ok(Math.abs(spearman([1, 2, 2, 3], [1, 3, 2, 4])! - 0.9487) < 1e-3, 'ties share their mean rank');
		assert.equal(weightedKappa([1, 2, 3, 4, 5], [1, 2, 3, 4, 5]), 1);
		assert.equal(weightedKappa([1, 1, 5, 5], [5, 5, 1, 1]), -1);
		assert.equal(krippendorffInterval([[1, 1], [2, 2], [3, 3]]), 1);
		assert.ok(Math.abs(krippendorffInterval([[1, 3], [3, 1]])! + 0.5) < 1e-9, 'observed 4 / expected 8/3');
		assert.equal(krippendorffInterval([[2], [3]]), null, 'single values cannot disagree');
	});
});

describe('report: tables', () => {
	it('slices, scores only completed episodes, and counts errors apart', () => {
		const sessions = [
			summary({id: 'a', region: 'MY', threeH: 4, clean: true}),
			summary({id: 'b', region: 'MY', threeH: 2, clean: false}),
			summary({id: 'c', region: 'TH', threeH: 5, clean: true}),
			summary({id: 'd', region: 'TH', status: 'error', threeH: null, tdq: null, clean: null, scores: null, errorFlag: 'JUDGE_ERROR'}),
			summary({id: 'e', region: 'TH', status: 'running', threeH: null, tdq: null, clean: null, scores: null}),
		];
		const report = buildReport(sessions, ['region']);
		assert.deepEqual(report.rows.map((row) => [row.slice.region, row.n, row.errors, row.unfinished, row.threeH?.mean, row.clean?.mean]), [
			['MY', 2, 0, 0, 3, 0.5],
			['TH', 1, 1, 1, 5, 1],
		]);
		assert.equal(report.overall!.n, 3);
		assert.equal(report.overall!.errors, 1);
		assert.ok(Math.abs(report.overall!.threeH!.mean - 11 / 3) < 1e-9, 'the error is not a zero');
		assert.deepEqual(report.notes, ['3 row(s) rest on fewer than 10 seeds (marked *): their intervals are unreliable.'], 'the two region rows and the overall row: every marked row is counted');
	});

	it('keeps mock filler out of model results, and says when different judges are mixed', () => {
		const mixed = buildReport([summary({id: 'a'}), summary({id: 'm', mock: true, threeH: 1, assistantModel: 'mock'})], ['model']);
		assert.deepEqual(mixed.rows.map((row) => row.slice.model), ['model-a']);
		assert.match(mixed.notes.join('\n'), /1 session\(s\) that ran entirely on the offline mock provider left out/);
		const allMock = buildReport([summary({id: 'm', mock: true})], []);
		assert.equal(allMock.mock, true);
		assert.match(allMock.mockNotice ?? '', /Every role of this session ran on the offline mock provider .*deterministic filler, not measurements/);
		const judges = buildReport([summary({id: 'a'}), summary({id: 'b', judgeModel: 'judge-2'})], ['model']);
		// The judge is a cell key: two judges are two columns' worth of rows, never one figure, and not two setups.
		assert.match(judges.notes.join('\n'), /Kept apart \(never averaged\): judges, each a column.*--pool judge/);
		assert.match(judges.notes.join('\n'), /The judges scored different dialogue sets \(judge-1: 1, judge-2: 1 of 2 dialogues\)/);
		assert.equal(judges.overall, null, 'two judges are not pooled into one figure');
		assert.deepEqual(judges.columns, ['model', 'judge']);
		assert.deepEqual(judges.rows.map((row) => [row.slice.judge, row.n]), [['judge-1', 1], ['judge-2', 1]]);
		assert.equal(judges.setups.length, 1, 'the judge is not a setup difference');
		assert.deepEqual(buildReport([summary({id: 'a'}), summary({id: 'b', judgeModel: 'judge-2'})], ['judge']).rows.map((row) => row.slice), [{judge: 'judge-1'}, {judge: 'judge-2'}]);
		// A re-judged copy repeats its original's dialogue: left out unless judges are compared.
		const copies = [summary({id: 'a', threeH: 4}), summary({id: 'a.rj-judge-2-separate', judgeModel: 'judge-2', rejudgeOf: 'a', threeH: 2})];
		const plain = buildReport(copies, ['model']);
		assert.equal(plain.overall!.n, 1);
		assert.match(plain.notes.join('\n'), /1 re-judged copy left out.*--by judge/);
		const compared = buildReport(copies, ['judge']);
		assert.deepEqual(compared.rows.map((row) => [row.slice.judge, row.n]), [['judge-1', 1], ['judge-2', 1]]);
		assert.equal(buildReport([summary({id: 'c', judgeMode: 'combined'})], ['judge']).rows[0]!.slice.judge, 'judge-1 (combined)');
	});
});

describe('report: from a batch run over HTTP', () => {
	let h: Harness;
	before(async () => (h = await episodeHarness()));
	after(() => h.close());

	it('gives each region the mean of its own session files, in text, JSON, markdown and CSV', async () => {
		const script = scriptedModel();
		// The judge is harsher on helpfulness for the Thai episodes (the judge sees the persona).
		h.fake.setHandler((request) => (request.stage === 'judge:helpfulness' && /Thailand/.test(promptText(request)) ? {json: {rationale: 'Scripted: misses the point in turn 1.', score: 2}} : script(request)));
		const env = h.env;
		const base = ['--sessions-dir', h.sessionsDir];
		const ran = await runCli(['batch', '--name', 'rep', '--persona', 'th-isan-a35-f', '--domain', 'culinary', '--sample', '2', ...base], {env, cwd: h.cwd});
		assert.equal(ran.code, 0, ran.stderr);
		const ran2 = await runCli(['batch', '--name', 'rep2', '--persona', 'vn-kinh-buddhist-a35-f', '--domain', 'culinary', '--sample', '2', ...base], {env, cwd: h.cwd});
		assert.equal(ran2.code, 0, ran2.stderr);

		type Row = {slice: {region?: string}; n: number; metrics: {helpfulness: {mean: number} | null}; threeH: {mean: number; lo: number; hi: number}};
		const json = parseJson<{rows: Row[]; overall: Row; mock: boolean}>((await runCli(['report', '--by', 'region', '--json', ...base], {env, cwd: h.cwd})).stdout);
		assert.equal(json.mock, false);
		assert.deepEqual(json.rows.map((row) => [row.slice.region, row.n, row.metrics.helpfulness?.mean]), [['TH', 2, 2], ['VN', 2, 4]]);
		const th = json.rows[0]!;
		assert.ok(Math.abs(th.threeH.mean - (2 + 5 + 5) / 3) < 0.01);
		assert.equal(json.overall.n, 4);

		const onlyBatch = parseJson<{overall: Row}>((await runCli(['report', '--batch', 'rep', '--json', ...base], {env, cwd: h.cwd})).stdout);
		assert.equal(onlyBatch.overall.n, 2);
		const text = await runCli(['report', '--by', 'region', '--metrics', ...base], {env, cwd: h.cwd});
		assert.match(text.stdout, /^4 scored episode\(s\), 0 ended in an error flag/);
		assert.match(text.stdout, /TH\s+2\*\s+2\s+0\s+4\.00 \[n\/a: every value is 4\]/, 'never a zero-width interval');
		const markdown = await runCli(['report', '--by', 'region', '--format', 'markdown', ...base], {env, cwd: h.cwd});
		assert.match(markdown.stdout, /^\| REGION \| N \| SEEDS \| ERR \| 3H \| TDQ \| CLEAN \| Δ3H \| p\(Holm\) \|\n\| --- \| ---: /);
		const csv = (await runCli(['report', '--by', 'region', '--format', 'csv', ...base], {env, cwd: h.cwd})).stdout.trim().split('\n');
		assert.equal(csv[0]!.split(',').slice(0, 11).join(','), 'region,row,n,seeds,small,errors,unfinished,threeH_mean,threeH_lo,threeH_hi,threeH_na');
		assert.deepEqual(csv.map((line) => line.split(',')[0]), ['region', 'TH', 'VN', 'all']);

		for (const [args, pattern] of [[['--by', 'regoin'], /Unknown slice 'regoin'\. Did you mean: region/], [['--format', 'xlsx'], /Unknown format 'xlsx'/], [['--batch', 'nope'], /Unknown batch 'nope'/], [['--region', 'BN'], /No saved session matches the filters/]] as const) {
			const bad = await runCli(['report', ...args, ...base], {env, cwd: h.cwd});
			assert.equal(bad.code, 2, args.join(' '));
			assert.match(bad.stderr, pattern);
		}
	});

	it('measures the judge against human ratings of the same sessions', async () => {
		const env = h.env;
		const base = ['--sessions-dir', h.sessionsDir];
		type Row = {metric: string; n: number; pearson: {mean: number} | null; exact: {mean: number} | null; withinOne: {mean: number} | null; bias: {mean: number} | null; humanAlpha: {mean: number} | null};
		const sessions = parseJson<Array<{id: string; region: string}>>((await runCli(['sessions', '--json', ...base], {env, cwd: h.cwd})).stdout);
		assert.equal(sessions.length, 4);
		// Two raters: A agrees with the judge (TH 2, VN 4 on helpfulness), B is one point kinder.
		const lines: string[] = [];
		for (const session of sessions) {
			const judged = session.region === 'TH' ? 2 : 4;
			lines.push(JSON.stringify({session: session.id, metric: 'helpfulness', score: judged, rater: 'A'}), JSON.stringify({session: session.id, metric: 'helpfulness', score: judged + 1, rater: 'B'}));
		}
		lines.push(JSON.stringify({session: 'not-a-session', metric: 'helpfulness', score: 3, rater: 'A'}));
		const file = path.join(h.cwd, 'ratings.jsonl');
		writeFileSync(file, `${lines.join('\n')}\n`);
		const result = await runCli(['report', 'agreement', '--ratings', file, '--json', ...base], {env, cwd: h.cwd});
		assert.equal(result.code, 0, result.stderr);
		assert.match(result.stderr, /ratings of 1 session\(s\) not among the judged sessions chosen were ignored \(not-a-session\)/);
		const out = parseJson<{ratings: number; raters: number; cells: Array<{metrics: Row[]}>}>(result.stdout);
		assert.equal(out.ratings, 8);
		assert.equal(out.raters, 2);
		assert.equal(out.cells.length, 1);
		const helpfulness = out.cells[0]!.metrics.find((row) => row.metric === 'helpfulness')!;
		assert.equal(helpfulness.n, 4);
		assert.ok(Math.abs(helpfulness.pearson!.mean - 1) < 1e-9, 'the judge orders sessions as people do');
		assert.equal(helpfulness.exact!.mean, 0.5, 'human means 2.5 and 4.5 lie halfway: each counts half, whichever way rounding would go');
		assert.equal(helpfulness.withinOne!.mean, 1);
		assert.equal(helpfulness.bias!.mean, -0.5, 'the judge is half a point harsher than the people');
		assert.ok(helpfulness.humanAlpha!.mean > 0.6, `raters agree well with each other (alpha ${helpfulness.humanAlpha!.mean})`);
		assert.equal(out.cells[0]!.metrics.find((row) => row.metric === 'honesty')!.n, 0, 'nobody rated honesty');

		const csv = path.join(h.cwd, 'ratings.csv');
		writeFileSync(csv, `session,metric,score,rater\n${sessions.map((session) => `${session.id},helpfulness,3,C`).join('\n')}\n`);
		const text = await runCli(['report', 'agreement', '--ratings', csv, ...base], {env, cwd: h.cwd});
		assert.equal(text.code, 0, text.stderr);
		assert.match(text.stdout, /^4 rating\(s\) by 1 rater\(s\) of 4 session\(s\)/);
		assert.match(text.stdout, /helpfulness\s+4\*\s/);

		const broken: Array<[string, string, RegExp]> = [
			['bad.jsonl', `${lines[0]}\n{"session": "x", "metric": "kindness", "score": 3, "rater": "A"}\n`, /bad\.jsonl:2: metric: Invalid option/],
			['twice.jsonl', `${lines[0]}\n${lines[0]}\n`, /twice\.jsonl:2: A already rated helpfulness of .* on line 1/],
			['score.csv', 'session,metric,score,rater\nx,honesty,7,A\n', /score\.csv:2: score: Too big/],
			['header.csv', 'id,metric,value\n', /header\.csv:1: the header needs the columns session, metric, score, rater/],
		];
		for (const [name, content, pattern] of broken) {
			writeFileSync(path.join(h.cwd, name), content);
			const bad = await runCli(['report', 'agreement', '--ratings', path.join(h.cwd, name), ...base], {env, cwd: h.cwd});
			assert.equal(bad.code, 2, name);
			assert.match(bad.stderr, pattern);
		}
		const none = await runCli(['report', 'agreement', ...base], {env, cwd: h.cwd});
		assert.match(none.stderr, /report agreement needs --ratings FILE/);
		assert.ok(readFileSync(file, 'utf8').length > 0);
	});
});

describe('report noise', () => {
	it('pools within-seed spread, compares seeds, and estimates pass^k for the clean flag', () => {
		const runs = [
			...[4, 5, 3].map((threeH, index) => summary({id: `s1-${index}`, seedId: 'p:t1', threeH, tdq: 3, clean: index < 2})),
			...[2, 2, 2].map((threeH, index) => summary({id: `s2-${index}`, seedId: 'p:t2', threeH, tdq: 3, clean: true})),
			summary({id: 'single', seedId: 'p:t3', threeH: 1}),
			summary({id: 's1-0.rj-x-separate', seedId: 'p:t1', threeH: 1, rejudgeOf: 's1-0', judgeModel: 'x'}),
			summary({id: 'other-model', seedId: 'p:t1', threeH: 5, assistantModel: 'other'}),
		];
		const rows = runNoise(selectCells(runs));
		assert.equal(rows.length, 1, 'the single run of another model and the re-judged copy form no row');
		const row = rows[0]!;
		assert.equal(row.seeds, 2);
		assert.equal(row.episodes, 6);
		assert.ok(Math.abs(row.threeH!.withinSd - Math.SQRT1_2) < 1e-12, String(row.threeH!.withinSd));
		assert.ok(Math.abs(row.threeH!.betweenSd - Math.SQRT2) < 1e-12);
		assert.ok(Math.abs(row.threeH!.minDifference - 1.96 / Math.SQRT2) < 1e-12);
		assert.equal(row.tdq!.withinSd, 0);
		const pass = row.passK.map((p) => Math.round(p.value * 10_000) / 10_000);
		assert.deepEqual(pass, [0.8333, 0.6667, 0.5]);
	});
});

describe('report noise (CLI, offline)', () => {
	it('shows repeats of a --trials batch, and explains how to get repeats when there are none', async () => {
		const cwd = tempDir('cc-noise-');
		const env = {CULTURECONVERSE_HOME: path.join(cwd, 'home')};
		const batch = await runCli(['batch', '--name', 'rep', '--sample', '2', '--trials', '3', '--json'], {cwd, env});
		assert.equal(batch.code, 0, batch.stderr);
		const plain = await runCli(['report'], {cwd, env});
		assert.match(plain.stderr, /report noise/);
		const noise = await runCli(['report', 'noise', '--json'], {cwd, env});
		assert.equal(noise.code, 0, noise.stderr);
		const rows = parseJson<{rows: Array<{seeds: number; episodes: number; passK: Array<{k: number}>}>}>(noise.stdout).rows;
		assert.equal(rows[0]!.seeds, 2);
		assert.equal(rows[0]!.episodes, 6);
		assert.deepEqual(rows[0]!.passK.map((p) => p.k), [1, 2, 3]);
		const dist = await runCli(['report', 'scores', '--json'], {cwd, env});
		assert.equal(dist.code, 0, dist.stderr);
		assert.deepEqual(parseJson<{cells: Array<{metrics: Array<{metric: string; n: number}>}>}>(dist.stdout).cells[0]!.metrics.map((row) => [row.metric, row.n]), METRICS.map((metric) => [metric, 6]));
		const gap = await runCli(['report', 'traps'], {cwd, env});
		assert.equal(gap.code, 0, gap.stderr);
		assert.match(gap.stdout, /STANDARD 3H\s+TRAP 3H\s+Δ 3H/);
		const once = tempDir('cc-noise-once-');
		await runCli(['batch', '--name', 'one', '--sample', '1', '--json'], {cwd: once, env});
		const none = await runCli(['report', 'noise'], {cwd: once, env});
		assert.equal(none.code, 2);
		assert.match(none.stderr, /--trials 3/);
	});
});

describe('report scores and traps', () => {
	const scores = (helpfulness: number) => ({helpfulness, honesty: 5, harmlessness: 5, naturalness: 4, plausibility: 4, typicality: 4});
	it('gives each metric\'s mean, sd, median and share of every score', () => {
		const rows = distributionOf([1, 3, 3, 5].map((h, index) => summary({id: `d${index}`, scores: scores(h)})));
		const helpfulness = rows.find((row) => row.metric === 'helpfulness')!;
		assert.equal(helpfulness.n, 4);
		assert.equal(helpfulness.mean!.mean, 3);
		assert.ok(Math.abs(helpfulness.sd! - Math.sqrt(8 / 3)) < 1e-12);
		assert.equal(helpfulness.median, 3);
		assert.deepEqual(helpfulness.shares, [0.25, 0, 0.5, 0, 0.25]);
		assert.deepEqual(rows.find((row) => row.metric === 'honesty')!.shares, [0, 0, 0, 0, 1]);
	});

	it('compares standard with trap seeds per model, with an interval on the gap', () => {
		const rows = trapGaps(selectCells([
			...[4, 4.2, 3.8].map((threeH, index) => summary({id: `s${index}`, seedId: `p:s${index}`, tier: 'standard', threeH})),
			...[3, 3.4, 3.2].map((threeH, index) => summary({id: `t${index}`, seedId: `p:t${index}`, tier: index === 0 ? 'contextual' : 'normative', threeH})),
			summary({id: 'other', assistantModel: 'other', tier: 'standard', threeH: 5}),
		])).rows;
		assert.deepEqual(rows.map((row) => row.cell.model), ['model-a', 'other']);
		const a = rows[0]!;
		assert.equal(a.standard!.n, 3);
		assert.equal(a.trap!.n, 3);
		assert.ok(Math.abs(a.delta!.mean - -0.8) < 1e-12);
		assert.ok(a.delta!.lo! <= a.delta!.mean && a.delta!.mean <= a.delta!.hi! && a.delta!.hi! < 0, JSON.stringify(a.delta));
		assert.equal(rows[1]!.delta, null, 'no trap seeds, no gap');
	});
});
