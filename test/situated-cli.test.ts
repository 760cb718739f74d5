import assert from 'node:assert/strict';
import {existsSync, readFileSync, writeFileSync} from 'node:fs';
import path from 'node:path';
import {describe, it} from 'node:test';
import {Norm, RejectedRow, SituatedEval, SituatedItem} from '../src/domain/situated.js';
import {parseJson, runCli} from './helpers/cli.js';
import {startFakeOpenAI} from './helpers/fakeOpenAI.js';
import {tempDir} from './helpers/tmp.js';
import {chatTemplateProblems, datasetAttr, llamaFactoryPairwise, maybeExtractPrompt, openAiDpoProblems} from './helpers/trainerFormats.js';

/* `crisp` end to end on the offline mock: norms, build, resume, show, eval, report, pairs, calibrate. */

const FIXTURES = path.resolve(import.meta.dirname, 'fixtures');
// The real FORK data set, beside the repository (../shared/data/fork/, CC BY 4.0); tests that need it say so when it is absent.
const REAL_FORK = path.resolve(import.meta.dirname, '..', '..', 'shared', 'data', 'fork', 'fork.csv');

const lines = (file: string) => readFileSync(file, 'utf8').split('\n').filter(Boolean);

describe('crisp command (offline)', () => {
	const dir = tempDir('cc-crisp-');
	const cli = (...argv: string[]) => runCli(argv, {cwd: dir, env: {CULTURECONVERSE_HOME: path.join(dir, 'home')}});
	const itemsFile = path.join(dir, 'sessions', 'crisp', 'items.jsonl');
	const evalsFile = path.join(dir, 'sessions', 'crisp', 'evals.jsonl');

	it('lists norms from the taboo KB, filtered and spread over regions by --limit', async () => {
		const result = await cli('crisp', 'norms', '--region', 'jp', '--region', 'KR', '--limit', '6', '--json');
		assert.equal(result.code, 0, result.stderr);
		const norms = parseJson<Array<{id: string; region: string; type: string}>>(result.stdout);
		assert.equal(norms.length, 6);
		assert.deepEqual([...new Set(norms.map((norm) => norm.region))].sort(), ['JP', 'KR']);
		assert.equal(norms.filter((norm) => norm.region === 'JP').length, 3, 'regions take turns');
		assert.ok(norms.every((norm) => norm.type === 'proscriptive' && /^norm\.tab-(jp|kr)-/.test(norm.id)));
		const again = await cli('crisp', 'norms', '--region', 'jp', '--region', 'KR', '--limit', '6', '--json');
		assert.equal(again.stdout, result.stdout, 'the same selection every time');
	});

	it('builds items, saves each as a line, and a rerun builds nothing new', async () => {
		const result = await cli('crisp', 'build', '--region', 'JP', '--region', 'VN', '--limit', '8', '--chronotopes', '2', '--json');
		assert.equal(result.code, 0, result.stderr);
		const summary = parseJson<{built: number; trapNorms: number; byStatus: Record<string, number>; decisions: Record<string, number>}>(result.stdout);
		assert.equal(summary.built, 16);
		assert.equal(summary.trapNorms, 8, 'taboo KB norms are the ones that set the normative traps');
		assert.equal(lines(itemsFile).length, 16);
		const items = lines(itemsFile).map((line) => SituatedItem.parse(JSON.parse(line)));
		assert.ok(summary.byStatus['kept']! > 0);
		// The offline agents take every router path on some norms.
		assert.ok(summary.decisions['revise-question']! > 0 && summary.decisions['rerun-answer']! > 0, JSON.stringify(summary.decisions));
		for (const item of items) {
			const country = item.norm.region === 'JP' ? 'Japan' : 'Vietnam';
			assert.ok(item.norm.identities.length === 0 ? item.culture === country : item.culture.startsWith(`${country} (`), item.culture);
			assert.equal(item.status === 'kept', item.rounds.at(-1)!.decision === 'keep');
		}
		// Two settings per norm, structurally different.
		const settings = items.filter((item) => item.norm.id === items[0]!.norm.id).map((item) => item.chronotope.place);
		assert.equal(new Set(settings).size, 2);
		const rerun = await cli('crisp', 'build', '--region', 'JP', '--region', 'VN', '--limit', '8', '--chronotopes', '2', '--json');
		assert.equal(parseJson<{built: number; skipped: number}>(rerun.stdout).built, 0);
		assert.ok(parseJson<{usage: {calls: number}}>(result.stdout).usage.calls >= 16 * 4, 'every model call is counted');
		assert.equal(parseJson<{usage: {calls: number}}>(rerun.stdout).usage.calls, 0, 'a rerun with nothing to build calls nothing');
		assert.equal(parseJson<{built: number; skipped: number}>(rerun.stdout).skipped, 16);
	});

	it('recovers from a half-written last line: warns, rebuilds that item, and leaves a valid file', async () => {
		const text = readFileSync(itemsFile, 'utf8');
		const lastStart = text.slice(0, -1).lastIndexOf('\n') + 1;
		const lostId = (JSON.parse(text.slice(lastStart)) as {id: string}).id;
		writeFileSync(itemsFile, text.slice(0, lastStart + 40));
		const result = await cli('crisp', 'build', '--region', 'JP', '--region', 'VN', '--limit', '8', '--chronotopes', '2', '--json');
		assert.equal(result.code, 0, result.stderr);
		assert.match(result.stderr, /last line of .*items\.jsonl was cut off/);
		assert.equal(parseJson<{built: number}>(result.stdout).built, 1);
		const ids = lines(itemsFile).map((line) => SituatedItem.parse(JSON.parse(line)).id);
		assert.equal(ids.length, 16);
		assert.ok(ids.includes(lostId));
	});

	it('refuses a file damaged in the middle, naming the line, and does not touch it', async () => {
		const dir2 = tempDir('cc-crisp-bad-');
		const file = path.join(dir2, 'items.jsonl');
		const good = lines(itemsFile).slice(0, 2);
		writeFileSync(file, `${good[0]}\n{"broken": true}\n${good[1]}\n`);
		const before = readFileSync(file, 'utf8');
		const result = await cli('crisp', 'build', '--region', 'JP', '--limit', '1', '--items', file);
		assert.equal(result.code, 2);
		assert.match(result.stderr, /line 2/);
		assert.equal(readFileSync(file, 'utf8'), before);
	});

	it('shows one item round by round', async () => {
		const item = lines(itemsFile).map((line) => SituatedItem.parse(JSON.parse(line))).find((candidate) => candidate.rounds.length > 1)!;
		const result = await cli('crisp', 'show', item.id);
		assert.equal(result.code, 0, result.stderr);
		assert.match(result.stdout, new RegExp(`Round 1: ${item.rounds[0]!.decision}`));
		assert.match(result.stdout, /checks: actionCorrect=\d/);
		const unknown = await cli('crisp', 'show', `${item.id}x`);
		assert.equal(unknown.code, 2);
		assert.match(unknown.stderr, /Unknown item/);
	});

	it('evaluates kept items, then ranks the saved samples with a reward model, and reports its best-of-N against the oracle ceiling', async () => {
		const result = await cli('crisp', 'eval', '--best-of', '4', '--json');
		assert.equal(result.code, 0, result.stderr);
		const kept = lines(itemsFile).map((line) => SituatedItem.parse(JSON.parse(line))).filter((item) => item.status === 'kept');
		type Row = {selector: string | null; culture: string; items: number; outcome: {mean: number}; random: {mean: number}; bestOf: {mean: number; lo: number; hi: number} | null; oracle: {mean: number}; gap: {mean: number; lo: number; hi: number} | null; invalidRate: number};
		const summary = parseJson<{evaluated: number; rows: Row[]}>(result.stdout);
		assert.equal(summary.evaluated, kept.length);
		assert.ok(summary.rows.every((row) => row.selector === null && row.bestOf === null), 'no reward model, no best-of-N figure');
		const ranked = await cli('crisp', 'eval', '--best-of', '4', '--reward-model', 'mock', '--json');
		assert.equal(ranked.code, 0, ranked.stderr);
		const rankedSummary = parseJson<{evaluated: number; completed: number; usage: {byRole?: unknown; calls: number}; rows: Row[]; calibrations: Array<{selector: string; n: number}>}>(ranked.stdout);
		assert.deepEqual([rankedSummary.evaluated, rankedSummary.completed], [0, kept.length], 'the saved samples are scored, not sampled again');
		const evals = lines(evalsFile).map((line) => SituatedEval.parse(JSON.parse(line)));
		const latest = [...new Map(evals.map((evaluation) => [evaluation.itemId, evaluation])).values()];
		assert.ok(latest.every((evaluation) => evaluation.samples.length === 4 && evaluation.selectors[0]?.id === 'model:mock'));
		const all = rankedSummary.rows.find((row) => row.culture === 'all')!;
		assert.equal(all.items, kept.length);
		assert.equal(all.selector, 'model:mock');
		assert.ok(all.bestOf!.mean > all.random.mean, 'the offline reward model beats a random pick');
		assert.ok(all.bestOf!.mean <= all.oracle.mean, 'and cannot beat the oracle ceiling');
		assert.ok(all.gap!.mean > 0 && all.gap!.lo <= all.gap!.mean && all.gap!.mean <= all.gap!.hi, 'the offline reward model is fooled on some items: the gap shows it');
		assert.ok(all.invalidRate > 0, 'the mock breaks the contract on some samples');
		assert.equal(rankedSummary.calibrations[0]!.selector, 'model:mock');
		const again = await cli('crisp', 'eval', '--best-of', '4', '--reward-model', 'mock', '--json');
		assert.deepEqual([parseJson<{evaluated: number; completed: number}>(again.stdout).evaluated, parseJson<{completed: number}>(again.stdout).completed], [0, 0]);
		const report = await cli('crisp', 'report');
		assert.equal(report.code, 0, report.stderr);
		assert.match(report.stdout, /OUTCOME@1 \[95% CI\]\s+RANDOM\s+BoN \(RM PICK\)\s+ORACLE PICK \(CEILING\)\s+GAP/);
		assert.match(report.stdout, /\nmock\s+mock\s+model:mock\s+Japan\s+\d+/);
		assert.match(report.stdout, /model:mock: calibrated on its own \d+ score\(s\)/);
		const both = await cli('crisp', 'eval', '--reward-model', 'mock', '--reward-endpoint', 'http://127.0.0.1:9/score');
		assert.equal(both.code, 2);
		assert.match(both.stderr, /not both/);
	});

	it('exports preference pairs TRL, LLaMA-Factory and OpenAI read as intended, with only the public question as prompt', async () => {
		const items = new Map(lines(itemsFile).map((line) => SituatedItem.parse(JSON.parse(line))).map((item) => [item.id, item]));
		const trl = path.join(dir, 'pairs.jsonl');
		const result = await cli('crisp', 'pairs', '--split', 'any', '--out', trl);
		assert.equal(result.code, 0, result.stderr);
		assert.match(result.stderr, /answers by grade 5:\d+ 4:\d+ 3:\d+ 2:\d+ 1:\d+, balanced to at most \d+ per grade/);
		const rows = lines(trl).map((line) => JSON.parse(line) as Record<string, unknown> & {prompt: Array<{role: string; content: string}>; metadata: {itemId: string; chosen: {outcome: number}; rejected: {outcome: number}}});
		assert.ok(rows.length > 0);
		const perItem = new Map<string, number>();
		for (const row of rows) {
			assert.deepEqual(maybeExtractPrompt(row), row, 'TRL keeps the prompt');
			assert.deepEqual(chatTemplateProblems(row), []);
			assert.ok(row.metadata.chosen.outcome > row.metadata.rejected.outcome);
			perItem.set(row.metadata.itemId, (perItem.get(row.metadata.itemId) ?? 0) + 1);
			const item = items.get(row.metadata.itemId)!;
			const prompt = row.prompt.map((message) => message.content).join('\n');
			assert.ok(prompt.includes(item.draft!.scenario));
			assert.ok(!prompt.includes(item.draft!.hiddenExpectedAnswer) && !prompt.includes(item.norm.text));
		}
		assert.ok([...perItem.values()].every((n) => n <= 8), 'at most eight pairs per question');
		const sharegpt = path.join(dir, 'pairs-sharegpt.jsonl');
		const shared = await cli('crisp', 'pairs', '--split', 'any', '--format', 'sharegpt', '--out', sharegpt);
		const info = JSON.parse(/dataset_info\.json: (\{.*\})/.exec(shared.stderr)![1]!) as Record<string, {ranking: boolean; columns: Record<string, string>; file_name: string}>;
		const attr = datasetAttr(Object.values(info)[0]!);
		assert.equal(Object.values(info)[0]!.file_name, 'pairs-sharegpt.jsonl');
		const kept = lines(sharegpt).map((line) => llamaFactoryPairwise(JSON.parse(line) as Record<string, unknown>, attr));
		assert.equal(kept.length, rows.length);
		assert.ok(kept.every((outcome) => 'kept' in outcome), 'LLaMA-Factory keeps every row');
		const openai = path.join(dir, 'pairs-openai.jsonl');
		await cli('crisp', 'pairs', '--split', 'any', '--format', 'openai-dpo', '--out', openai);
		assert.ok(lines(openai).every((line) => openAiDpoProblems(JSON.parse(line) as Record<string, unknown>).length === 0));
		const bad = await cli('crisp', 'pairs', '--format', 'dpo');
		assert.equal(bad.code, 2);
		assert.match(bad.stderr, /Unknown pair format 'dpo'/);
	});

	it('exports rejection-sampled SFT: only best-of-N answers at the score floor, prompt without the norm', async () => {
		const result = await cli('crisp', 'sft', '--split', 'any');
		assert.equal(result.code, 0, result.stderr);
		const examples = result.stdout.trim().split('\n').filter(Boolean).map((line) => JSON.parse(line) as {messages: Array<{role: string; content: string}>; metadata: {outcome: number; normMatch: number; itemId: string}});
		assert.ok(examples.length > 0);
		const items = new Map(lines(itemsFile).map((line) => SituatedItem.parse(JSON.parse(line))).map((item) => [item.id, item]));
		for (const example of examples) {
			assert.equal(example.metadata.outcome, 5);
			assert.equal(example.metadata.normMatch, 2);
			assert.deepEqual(example.messages.map((message) => message.role), ['system', 'user', 'assistant']);
			assert.deepEqual(Object.keys(JSON.parse(example.messages[2]!.content) as object).sort(), ['answer', 'reasoning']);
			assert.ok(!example.messages[1]!.content.includes(items.get(example.metadata.itemId)!.norm.text));
		}
		assert.match(result.stderr, /left out: .*outcome below the minimum/);
		const looser = await cli('crisp', 'sft', '--split', 'any', '--min-outcome', '4', '--min-match', '0');
		assert.ok(looser.stdout.trim().split('\n').length > examples.length);
		const bad = await cli('crisp', 'sft', '--min-match', '3');
		assert.equal(bad.code, 2);
	});

	it('hands every valid answer to an external reward model and scores its best-of-N picks', async () => {
		const samplesFile = path.join(dir, 'samples.jsonl');
		const written = await cli('crisp', 'samples', '--out', samplesFile);
		assert.equal(written.code, 0, written.stderr);
		const forScoring = lines(samplesFile).map((line) => JSON.parse(line) as {id: string; culture: string; scenario: string; question: string; answer: string});
		// The latest record per item: a reward model's scores were appended as a completed copy.
		const evals = [...new Map(lines(evalsFile).map((line) => SituatedEval.parse(JSON.parse(line))).map((evaluation) => [evaluation.itemId, evaluation])).values()];
		const valid = evals.flatMap((evaluation) => evaluation.samples.filter((sample) => sample.answer));
		assert.equal(forScoring.length, valid.length, 'one line per valid answer');
		assert.ok(forScoring.every((sample) => sample.scenario && sample.question && sample.answer && !('outcome' in sample)), 'what a reward model reads, and no grades');
		// A perfect reward model (its reward is the true outcome) always reaches the ceiling; a perverse one does not.
		const outcomeOf = new Map<string, number>(evals.flatMap((evaluation) => evaluation.samples.map((sample) => [`${evaluation.itemId}#${evaluation.policyModel}#${sample.sample}`, sample.outcome?.score ?? 0] as const)));
		const rewardsFile = path.join(dir, 'rewards.jsonl');
		const rate = (sign: number) => writeFileSync(rewardsFile, forScoring.map((sample) => JSON.stringify({id: sample.id, reward: sign * outcomeOf.get(sample.id)!})).join('\n'));
		rate(1);
		type Interval = {mean: number; lo: number | null; hi: number | null; na: string | null};
		const perfect = parseJson<Array<{rewardModel: Interval; oracle: Interval; gap: Interval; hitsCeiling: Interval; first: Interval; norms: number; judgeModel: string}>>((await cli('crisp', 'bon', '--rewards', rewardsFile, '--json')).stdout)[0]!;
		assert.equal(perfect.hitsCeiling.mean, 1);
		assert.ok(perfect.hitsCeiling.lo !== null && perfect.hitsCeiling.lo < 1, 'a share of 100% still has a Wilson interval below 1');
		assert.equal(perfect.gap.lo, null, 'a gap of 0 on every item has no interval, and says why');
		assert.match(perfect.gap.na ?? '', /every value is 0/);
		// The one interval engine: the first answer's outcome over the same items, clustered by norm, is the
		// same figure and the same interval in `crisp bon` and `crisp report`.
		const summary = parseJson<{rows: Array<{culture: string; judgeModel: string; outcome: Interval; norms: number}>}>((await cli('crisp', 'report', '--json')).stdout);
		const all = summary.rows.find((row) => row.culture === 'all' && row.judgeModel === perfect.judgeModel)!;
		assert.deepEqual([perfect.first.mean, perfect.first.lo, perfect.first.hi, perfect.norms], [all.outcome.mean, all.outcome.lo, all.outcome.hi, all.norms]);
		const reseeded = parseJson<Array<{first: Interval}>>((await cli('crisp', 'bon', '--rewards', rewardsFile, '--json', '--seed', 'other')).stdout)[0]!;
		assert.equal(reseeded.first.mean, perfect.first.mean);
		assert.equal(perfect.rewardModel.mean, perfect.oracle.mean);
		assert.equal(perfect.gap.mean, 0);
		rate(-1);
		const perverse = parseJson<Array<{rewardModel: {mean: number}; oracle: {mean: number}}>>((await cli('crisp', 'bon', '--rewards', rewardsFile, '--json')).stdout)[0]!;
		assert.ok(perverse.rewardModel.mean < perfect.rewardModel.mean);
		const firstOnly = parseJson<Array<{n: number; rewardModel: {mean: number}; first: {mean: number}}>>((await cli('crisp', 'bon', '--rewards', rewardsFile, '--n', '1', '--json')).stdout)[0]!;
		assert.equal(firstOnly.n, 1);
		const table = await cli('crisp', 'bon', '--rewards', rewardsFile);
		assert.match(table.stdout, /REWARD MODEL\s+ORACLE PICK \(CEILING\)\s+GAP/);
		assert.match(table.stdout, /GRADER/);
		assert.match(table.stdout, /clustered by norm .*2000 resamples, seed "cultureconverse"/);
		writeFileSync(rewardsFile, `${JSON.stringify({id: forScoring[0]!.id, reward: 1})}\n{"id": "x"}\n`);
		const bad = await cli('crisp', 'bon', '--rewards', rewardsFile);
		assert.equal(bad.code, 2);
		assert.match(bad.stderr, /line 2: needs a string "id" and a numeric "reward"/);
		writeFileSync(rewardsFile, `${JSON.stringify({id: 'nothing#here#0', reward: 1})}\n`);
		const stray = await cli('crisp', 'bon', '--rewards', rewardsFile);
		assert.equal(stray.code, 2);
		assert.match(stray.stderr, /crisp samples/);
	});

	it('calibrates raw rewards from a file and rejects a bad one', async () => {
		const file = path.join(dir, 'rewards.txt');
		writeFileSync(file, ['-20', '-7.5', '-2.078125', '1.7891', '9', '{"reward": 0}'].join('\n'));
		const result = await cli('crisp', 'calibrate', '--rewards', file, '--json');
		assert.equal(result.code, 0, result.stderr);
		const fit = parseJson<{median: number; scale: number; n: number; points: Array<{q: number; raw: number; calibrated: number}>}>(result.stdout);
		assert.equal(fit.n, 6);
		assert.ok(fit.scale > 0);
		// The quantile rows use the fit's own rule: the 0.5 row is the fitted median (the mean of the
		// two middle values of six, -1.0390625) and calibrates to 0.5; the quartile rows span the IQR.
		const row = (q: number) => fit.points.find((point) => point.q === q)!;
		assert.equal(fit.median, -1.0390625);
		assert.equal(row(0.5).raw, fit.median);
		assert.equal(row(0.5).calibrated, 0.5);
		assert.ok(Math.abs((row(0.75).raw - row(0.25).raw) / 1.349 - fit.scale) < 1e-9);
		writeFileSync(file, '1\n2\nabc\n4\n5\n');
		const bad = await cli('crisp', 'calibrate', '--rewards', file);
		assert.equal(bad.code, 2);
		assert.match(bad.stderr, /line\(s\) 3 hold no number/);
	});

	it('gives clear errors for unknown subcommands, regions and norms', async () => {
		const sub = await cli('crisp', 'bulid');
		assert.equal(sub.code, 2);
		assert.match(sub.stderr, /build/);
		const region = await cli('crisp', 'norms', '--region', 'XX');
		assert.equal(region.code, 2);
		assert.match(region.stderr, /Unknown region/);
		const norm = await cli('crisp', 'build', '--norm', 'norm.tab-jp-0011');
		assert.equal(norm.code, 2);
		assert.match(norm.stderr, /norm\.tab-jp-001/);
		const empty = await runCli(['crisp', 'eval'], {cwd: tempDir(), env: {CULTURECONVERSE_HOME: path.join(dir, 'home')}});
		assert.equal(empty.code, 2);
		assert.match(empty.stderr, /crisp build/);
	});
});

describe('crisp with cultures outside the ten regions (offline)', () => {
	const dir = tempDir('cc-crisp-cult-');
	const cli = (...argv: string[]) => runCli(argv, {cwd: dir, env: {CULTURECONVERSE_HOME: path.join(dir, 'home')}});
	const normsFile = path.join(dir, 'sessions', 'crisp', 'norms.jsonl');

	it('extracts one norm per FORK row with the generator role, of every country, and a rerun asks nothing again', async () => {
		const result = await cli('crisp', 'norms', 'extract', '--from', path.join(FIXTURES, 'fork', 'sample.csv'), '--format', 'fork', '--json');
		assert.equal(result.code, 0, result.stderr);
		const summary = parseJson<{rows: number; extracted: number; rejected: number; cultures: Record<string, number>; usage: {calls: number}}>(result.stdout);
		assert.deepEqual([summary.rows, summary.extracted, summary.rejected, summary.usage.calls], [6, 6, 0, 6]);
		const norms = lines(normsFile).map((line) => Norm.parse(JSON.parse(line)));
		const usa = norms.find((norm) => norm.culture === 'USA')!;
		assert.deepEqual([usa.country, usa.region], ['US', null]);
		assert.match(usa.text, /^\[mock\] In USA, .*ask the server/, 'the keyed answer, as a sentence');
		assert.ok(norms.every((norm) => norm.source.startsWith('FORK t-00')));
		const again = parseJson<{extracted: number; skipped: number; usage: {calls: number}}>((await cli('crisp', 'norms', 'extract', '--from', path.join(FIXTURES, 'fork', 'sample.csv'), '--format', 'fork', '--json')).stdout);
		assert.deepEqual([again.extracted, again.skipped, again.usage.calls], [0, 6, 0]);
	});

	it('records rows without a norm as rejected, with line and reason, and adopts full norms as written', async () => {
		const source = path.join(dir, 'mine.jsonl');
		const german: Norm = {id: 'norm.de-gift', culture: 'Germany', country: 'DE', region: null, identities: [], text: 'A gift handed over at a farewell is opened at once, in front of everyone.', type: 'prescriptive', category: 'gift_giving', source: 'mine'};
		writeFileSync(source, [JSON.stringify(german), '{"culture": "Germany", "text": "People arrive on time for appointments, even informal ones."}', '{"culture": "Germany", "text": "Berlin is the capital [no norm]."}', '{"culture": "Germany"}'].join('\n'));
		const out = path.join(dir, 'german.jsonl');
		const result = await cli('crisp', 'norms', 'extract', '--from', source, '--format', 'jsonl', '--out', out);
		assert.equal(result.code, 0, result.stderr);
		assert.match(result.stderr, /rejected mine\.jsonl line 3 .*found no norm/);
		assert.match(result.stderr, /rejected mine\.jsonl line 4 .*no "text"/);
		assert.deepEqual(lines(out).map((line) => Norm.parse(JSON.parse(line)).id).length, 2);
		const rejected = lines(out.replace(/\.jsonl$/, '.rejected.jsonl')).map((line) => RejectedRow.parse(JSON.parse(line)));
		assert.deepEqual(rejected.map((row) => [row.line, row.byModel]).sort(), [[3, true], [4, false]]);
		const wrong = await cli('crisp', 'norms', 'extract', '--from', source, '--format', 'fork');
		assert.equal(wrong.code, 2);
		assert.match(wrong.stderr, /not a fork file: missing column/);
	});

	it('builds, evaluates and reports items of a culture outside the ten regions (USA, Germany)', async () => {
		const german = path.join(dir, 'german.jsonl');
		writeFileSync(normsFile, readFileSync(normsFile, 'utf8') + readFileSync(german, 'utf8'));
		const listed = parseJson<Array<{culture: string}>>((await cli('crisp', 'norms', '--norms', normsFile, '--culture', 'us', '--culture', 'DE', '--json')).stdout);
		assert.deepEqual([...new Set(listed.map((norm) => norm.culture))].sort(), ['Germany', 'USA']);
		const built = await cli('crisp', 'build', '--norms', normsFile, '--culture', 'United States', '--culture', 'germany', '--chronotopes', '2', '--json');
		assert.equal(built.code, 0, built.stderr);
		assert.equal(parseJson<{trapNorms: number}>(built.stdout).trapNorms, 0, 'no taboo KB norms here');
		const items = lines(path.join(dir, 'sessions', 'crisp', 'items.jsonl')).map((line) => SituatedItem.parse(JSON.parse(line)));
		assert.deepEqual([...new Set(items.map((item) => item.culture))].sort(), ['Germany', 'USA']);
		assert.ok(items.every((item) => item.chronotope.tension && item.chronotope.activation && item.chronotope.difference));
		const evaluated = await cli('crisp', 'eval', '--best-of', '4', '--reward-model', 'mock', '--json');
		assert.equal(evaluated.code, 0, evaluated.stderr);
		const report = await cli('crisp', 'report', '--culture', 'DE', '--json');
		const rows = parseJson<{rows: Array<{culture: string; items: number; bestOf: unknown}>}>(report.stdout).rows;
		assert.deepEqual(rows.map((row) => row.culture), ['all', 'Germany']);
		assert.ok(rows.every((row) => row.bestOf !== null));
		const text = await cli('crisp', 'report');
		assert.match(text.stdout, /\nmock\s+mock\s+model:mock\s+USA\s+\d+/);
	});

	it('on the real FORK file keeps every row that states a norm, USA and India included', {skip: existsSync(REAL_FORK) ? false : `needs ${REAL_FORK}`}, async () => {
		const out = path.join(dir, 'fork-norms.jsonl');
		const result = await cli('crisp', 'norms', 'extract', '--from', REAL_FORK, '--format', 'fork', '--out', out, '--json');
		assert.equal(result.code, 0, result.stderr);
		const summary = parseJson<{rows: number; extracted: number; rejected: number; cultures: Record<string, number>}>(result.stdout);
		assert.deepEqual([summary.rows, summary.extracted, summary.rejected], [184, 184, 0]);
		assert.equal(summary.cultures['USA'], 58);
		assert.equal(summary.cultures['India'], 17);
		assert.equal(summary.cultures['China'], 66);
	});
});

describe('crisp build, interrupted', () => {
	it('stops on Ctrl-C with exit 130, keeping every finished item as a whole line', async () => {
		// Every agent answers after 60 ms with a schema-valid filler value: 40 norms at two in flight take
		// at least 4.8 s (four calls per item at the fewest), so the abort at 2 s lands mid-run, and the
		// first item (about 0.25 s) is saved long before it even on a loaded machine.
		const fake = await startFakeOpenAI({handler: () => ({delayMs: 60})});
		try {
			const dir = tempDir('cc-crisp-int-');
			const controller = new AbortController();
			const items = path.join(dir, 'items.jsonl');
			setTimeout(() => controller.abort(), 2_000);
			const result = await runCli(['crisp', 'build', '--region', 'TH', '--limit', '40', '--chronotopes', '1', '--max-rounds', '2', '--parallel', '2', '--items', items, '--model', 'fake-model'], {cwd: dir, signal: controller.signal, env: {OPENAI_BASE_URL: fake.baseURL, OPENAI_API_KEY: 'sk-test', CULTURECONVERSE_HOME: path.join(dir, 'home')}});
			assert.equal(result.code, 130, result.stderr);
			assert.match(result.stdout, /interrupted: run the same command again/);
			const saved = lines(items).map((line) => SituatedItem.parse(JSON.parse(line)));
			assert.ok(saved.length > 0 && saved.length < 40, `${saved.length} item(s) saved`);
			assert.ok(!readFileSync(items, 'utf8').includes('sk-test'), 'the API key is never written');
		} finally {
			await fake.close();
		}
	});
});
