import assert from 'node:assert/strict';
import {readFileSync, writeFileSync} from 'node:fs';
import path from 'node:path';
import {describe, it} from 'node:test';
import {SituatedEval, SituatedItem} from '../src/domain/situated.js';
import {parseJson, runCli} from './helpers/cli.js';
import {startFakeOpenAI} from './helpers/fakeOpenAI.js';
import {tempDir} from './helpers/tmp.js';

/* `crisp` end to end on the offline mock: build, resume, show, eval, report, pairs, calibrate. */

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
		const summary = parseJson<{built: number; byStatus: Record<string, number>; decisions: Record<string, number>}>(result.stdout);
		assert.equal(summary.built, 16);
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

	it('evaluates kept items best-of-N, resumes, and reports with CIs per region', async () => {
		const result = await cli('crisp', 'eval', '--best-of', '3', '--json');
		assert.equal(result.code, 0, result.stderr);
		const kept = lines(itemsFile).map((line) => SituatedItem.parse(JSON.parse(line))).filter((item) => item.status === 'kept');
		const summary = parseJson<{evaluated: number; rows: Array<{region: string; items: number; outcome: {mean: number}; outcomeBestOf: {mean: number}; invalidRate: number}>}>(result.stdout);
		assert.equal(summary.evaluated, kept.length);
		const evals = lines(evalsFile).map((line) => SituatedEval.parse(JSON.parse(line)));
		assert.ok(evals.every((evaluation) => evaluation.samples.length === 3));
		const all = summary.rows.find((row) => row.region === 'all')!;
		assert.equal(all.items, kept.length);
		assert.ok(all.outcomeBestOf.mean >= all.outcome.mean, 'best-of-N never does worse than one answer');
		assert.ok(all.invalidRate > 0, 'the mock breaks the contract on some samples');
		const again = await cli('crisp', 'eval', '--best-of', '3', '--json');
		assert.equal(parseJson<{evaluated: number; skipped: number}>(again.stdout).evaluated, 0);
		const report = await cli('crisp', 'report');
		assert.equal(report.code, 0, report.stderr);
		assert.match(report.stdout, /OUTCOME@1 \[95% CI\]/);
		assert.match(report.stdout, /\n\S+\s+JP\s+\d+/);
	});

	it('exports preference pairs whose prompt holds only the public question', async () => {
		const out = path.join(dir, 'pairs.jsonl');
		const result = await cli('crisp', 'pairs', '--out', out);
		assert.equal(result.code, 0, result.stderr);
		const pairs = lines(out).map((line) => JSON.parse(line) as {itemId: string; prompt: Array<{content: string}>; chosen: string; rejected: string; scores: {chosen: {outcome: number}; rejected: {outcome: number}}});
		assert.ok(pairs.length > 0);
		const items = new Map(lines(itemsFile).map((line) => SituatedItem.parse(JSON.parse(line))).map((item) => [item.id, item]));
		for (const pair of pairs) {
			assert.ok(pair.scores.chosen.outcome - pair.scores.rejected.outcome >= 1);
			const item = items.get(pair.itemId)!;
			const prompt = pair.prompt.map((message) => message.content).join('\n');
			assert.ok(prompt.includes(item.draft!.scenario));
			assert.ok(!prompt.includes(item.draft!.hiddenExpectedAnswer) && !prompt.includes(item.norm.text));
		}
	});

	it('exports rejection-sampled SFT: only best-of-N answers at the score floor, prompt without the norm', async () => {
		const result = await cli('crisp', 'sft');
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
		const looser = await cli('crisp', 'sft', '--min-outcome', '4', '--min-match', '0');
		assert.ok(looser.stdout.trim().split('\n').length > examples.length);
		const bad = await cli('crisp', 'sft', '--min-match', '3');
		assert.equal(bad.code, 2);
	});

	it('hands every valid answer to an external reward model and scores its best-of-N picks', async () => {
		const samplesFile = path.join(dir, 'samples.jsonl');
		const written = await cli('crisp', 'samples', '--out', samplesFile);
		assert.equal(written.code, 0, written.stderr);
		const forScoring = lines(samplesFile).map((line) => JSON.parse(line) as {id: string; culture: string; scenario: string; question: string; answer: string});
		const evals = lines(evalsFile).map((line) => SituatedEval.parse(JSON.parse(line)));
		const valid = evals.flatMap((evaluation) => evaluation.samples.filter((sample) => sample.answer));
		assert.equal(forScoring.length, valid.length, 'one line per valid answer');
		assert.ok(forScoring.every((sample) => sample.scenario && sample.question && sample.answer && !('outcome' in sample)), 'what a reward model reads, and no grades');
		// A perfect reward model (its reward is the true outcome) always reaches the ceiling; a perverse one does not.
		const outcomeOf = new Map<string, number>(evals.flatMap((evaluation) => evaluation.samples.map((sample) => [`${evaluation.itemId}#${evaluation.policyModel}#${sample.sample}`, sample.outcome?.score ?? 0] as const)));
		const rewardsFile = path.join(dir, 'rewards.jsonl');
		const rate = (sign: number) => writeFileSync(rewardsFile, forScoring.map((sample) => JSON.stringify({id: sample.id, reward: sign * outcomeOf.get(sample.id)!})).join('\n'));
		rate(1);
		const perfect = parseJson<Array<{rewardModel: {mean: number}; ceiling: {mean: number}; hitsCeiling: number; first: {mean: number}}>>((await cli('crisp', 'bon', '--rewards', rewardsFile, '--json')).stdout)[0]!;
		assert.equal(perfect.hitsCeiling, 1);
		assert.equal(perfect.rewardModel.mean, perfect.ceiling.mean);
		rate(-1);
		const perverse = parseJson<Array<{rewardModel: {mean: number}; ceiling: {mean: number}; hitsCeiling: number}>>((await cli('crisp', 'bon', '--rewards', rewardsFile, '--json')).stdout)[0]!;
		assert.ok(perverse.rewardModel.mean < perfect.rewardModel.mean);
		const firstOnly = parseJson<Array<{n: number; rewardModel: {mean: number}; first: {mean: number}}>>((await cli('crisp', 'bon', '--rewards', rewardsFile, '--n', '1', '--json')).stdout)[0]!;
		assert.equal(firstOnly.n, 1);
		const table = await cli('crisp', 'bon', '--rewards', rewardsFile);
		assert.match(table.stdout, /REWARD MODEL\s+JUDGE\s+CEILING/);
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
		const fit = parseJson<{median: number; scale: number; n: number}>(result.stdout);
		assert.equal(fit.n, 6);
		assert.ok(fit.scale > 0);
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
