import assert from 'node:assert/strict';
import {readSession} from '../src/store/sessionStore.js';
import {readFileSync, writeFileSync} from 'node:fs';
import path from 'node:path';
import {after, before, describe, it} from 'node:test';
import {Session} from '../src/domain/session.js';
import {SftExample} from '../src/export/sft.js';
import {SeedSpace} from '../src/universe/seeds.js';
import {parseJson, runCli} from './helpers/cli.js';
import {episodeHarness, type Harness, sharedUniverse} from './helpers/episodeHarness.js';
import {scriptedModel} from './helpers/scriptedModel.js';
import {tempDir} from './helpers/tmp.js';
import {chatTemplateProblems, datasetAttr, llamaFactoryPairwise, maybeExtractPrompt, openAiDpoProblems} from './helpers/trainerFormats.js';

let h: Harness;
before(async () => (h = await episodeHarness()));
after(() => h.close());

const CANARY = {private: 'CANARY-PRIVATE-5521', oracle: 'CANARY-ORACLE-7734'};

describe('export sft', () => {
	it('turns gold, train-split, judged episodes into chat examples without the oracle briefing', async () => {
		h.fake.setHandler(scriptedModel({canary: CANARY}));
		const space = new SeedSpace(sharedUniverse());
		const train = space.list({region: 'PH', split: 'train', domain: 'culinary'}, {limit: 2}).map((seed) => seed.id);
		const test = space.list({region: 'PH', split: 'test'}, {limit: 1}).map((seed) => seed.id);
		const seeds = path.join(h.cwd, 'gold-seeds.txt');
		writeFileSync(seeds, [...train, ...test].join('\n'));
		const base = ['--sessions-dir', h.sessionsDir];
		const gold = await runCli(['batch', '--name', 'gold', '--seed-file', seeds, '--mode', 'gold', ...base], {env: h.env, cwd: h.cwd});
		assert.equal(gold.code, 0, gold.stderr);
		const evalRun = await runCli(['run', '--seed', train[0]!, ...base], {env: h.env, cwd: h.cwd});
		assert.equal(evalRun.code, 0, evalRun.stderr);
		// The gold assistant really was briefed with the oracle (its requests carry the canary)...
		assert.ok(h.fake.chatRequests().some((request) => request.stage === 'assistant' && JSON.stringify(request.body).includes(CANARY.oracle)));

		const result = await runCli(['export', 'sft', ...base], {env: h.env, cwd: h.cwd});
		assert.equal(result.code, 0, result.stderr);
		assert.match(result.stderr, /Exported 2 of 4 session\(s\); left out: (mode eval 1, test split 1|test split 1, mode eval 1)\./);
		const lines = result.stdout.trim().split('\n');
		const examples = lines.map((line) => SftExample.parse(JSON.parse(line)));
		assert.deepEqual(examples.map((example) => example.metadata.seedId).sort(), [...train].sort());
		// ...but the training data carries none of it: the system prompt is the eval one.
		for (const line of lines) {
			assert.equal(line.includes(CANARY.oracle), false, 'no oracle text in training data');
			assert.equal(line.includes(CANARY.private), false, 'no private text in training data');
		}
		for (const example of examples) {
			const session = readSession(path.join(h.sessionsDir, `${example.metadata.id}.json`));
			assert.equal(session.config.mode, 'gold');
			assert.equal(example.messages[0]!.role, 'system');
			assert.equal(example.messages[0]!.content, readFileSync('prompts/assistant/system.md', 'utf8').trim());
			const chat = example.messages.slice(1);
			assert.equal(chat.at(-1)!.role, 'assistant', 'an example ends on the assistant');
			chat.forEach((message, index) => assert.equal(message.role, index % 2 === 0 ? 'user' : 'assistant'));
			const turns = session.turns.filter((turn) => !turn.closing);
			assert.deepEqual(chat.map((message) => message.content), turns.slice(0, chat.length).map((turn) => turn.content));
			// Summaries carry 3H from the raw scores; the session stores it rounded to three decimals.
			assert.ok(Math.abs(example.metadata.threeH! - session.judge!.threeH!) < 5e-4);
		}

		const withTest = await runCli(['export', 'sft', '--split', 'any', '--out', 'all.jsonl', '--json', ...base], {env: h.env, cwd: h.cwd});
		const summary = parseJson<{examples: number; out: string}>(withTest.stdout);
		assert.equal(summary.examples, 3);
		assert.equal(readFileSync(path.join(h.cwd, 'all.jsonl'), 'utf8').trim().split('\n').length, 3);
		const strict = await runCli(['export', 'sft', '--min-threeh', '4.9', ...base], {env: h.env, cwd: h.cwd});
		assert.equal(strict.stdout, '');
		assert.match(strict.stderr, /left out: .*3H below the minimum 2/);

		for (const [args, pattern] of [[['sft', '--mode', 'best'], /--mode must be one of gold, eval, any/], [['sft', '--min-tdq', '9'], /--min-tdq must be a number from 1 to 5/], [['sfft'], /Unknown export kind 'sfft'\. Did you mean: sft/]] as const) {
			const bad = await runCli(['export', ...args, ...base], {env: h.env, cwd: h.cwd});
			assert.equal(bad.code, 2, args.join(' '));
			assert.match(bad.stderr, pattern);
		}
	});
});

describe('export pairs: trainer layouts', () => {
	it('writes best-of-N pairs that TRL keeps whole, LLaMA-Factory keeps as multi-turn rankings, and OpenAI reads as DPO', async () => {
		const cwd = tempDir('cc-export-pairs-');
		const env = {CULTURECONVERSE_HOME: path.join(cwd, 'home')};
		const base = ['--sessions-dir', path.join(cwd, 'sessions')];
		const run = await runCli(['run', '--seed', 'ph-tagalog-catholic-a35-f:culinary.dietary-rules.01', '--best-of', '3', ...base, '--json'], {env, cwd});
		assert.equal(run.code, 0, run.stderr);
		const read = async (format: string) => {
			// --min-margin 0: a pair for every best-of-N turn whose candidates differ, however the offline rubric rated them (this test is about layouts).
			const result = await runCli(['export', 'pairs', '--split', 'any', '--include-mock', '--min-margin', '0', '--format', format, ...base], {env, cwd});
			assert.equal(result.code, 0, result.stderr);
			return {rows: result.stdout.trim().split('\n').map((line) => JSON.parse(line) as Record<string, unknown>), stderr: result.stderr};
		};
		const trl = (await read('trl')).rows;
		assert.ok(trl.length >= 2, 'one pair per best-of-N turn');
		for (const row of trl) {
			assert.deepEqual(maybeExtractPrompt(row), row);
			assert.deepEqual(chatTemplateProblems(row), []);
		}
		const sharegpt = await read('sharegpt');
		const info = JSON.parse(/dataset_info\.json: (\{.*\})/.exec(sharegpt.stderr)![1]!) as Record<string, {ranking: boolean; columns: Record<string, string>}>;
		const attr = datasetAttr(Object.values(info)[0]!);
		sharegpt.rows.forEach((row, index) => {
			const outcome = llamaFactoryPairwise(row, attr);
			assert.ok('kept' in outcome, JSON.stringify(outcome));
			// The n-th pair answers the n-th user turn: 2n - 1 earlier messages after the system prompt.
			const prompt = (trl[index]!['prompt'] as unknown[]).length - 1;
			assert.equal(outcome.kept.prompt.length, prompt);
		});
		for (const row of (await read('openai-dpo')).rows) assert.deepEqual(openAiDpoProblems(row), []);
	});
});
