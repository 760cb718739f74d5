import assert from 'node:assert/strict';
import {appendFileSync, readFileSync, writeFileSync} from 'node:fs';
import path from 'node:path';
import {after, before, beforeEach, describe, it} from 'node:test';
import {z} from 'zod';
import type {ModelRole, RoleSettings} from '../src/domain/session.js';
import {createGateway} from '../src/llm/gateway.js';
import {RecordingLine, createRecorder} from '../src/llm/recorder.js';
import {ModelCallError, type ModelRequest} from '../src/llm/types.js';
import {DataError} from '../src/util/errors.js';
import {type FakeOpenAI, fakePrompt, fakeRoles, startFakeOpenAI} from './helpers/fakeOpenAI.js';
import {tempDir} from './helpers/tmp.js';

const Score = z.strictObject({score: z.number().int().min(1).max(5), rationale: z.string()});
const judge = (metric: string, step: number): ModelRequest<z.infer<typeof Score>> => ({
	role: 'judge',
	stage: `judge:${metric}`,
	prompt: fakePrompt(`Score ${metric} for this transcript`),
	schema: {name: 'score', schema: Score},
	mock: null,
	step,
});
const assistant = (text: string): ModelRequest<string> => ({role: 'assistant', stage: 'assistant', prompt: fakePrompt(text), mock: null, step: 1});

let fake: FakeOpenAI;
before(async () => (fake = await startFakeOpenAI()));
after(() => fake.close());
beforeEach(() => fake.reset());

function replayRoles(file: string): Record<ModelRole, RoleSettings> {
	return fakeRoles('http://127.0.0.1:9/unused', {provider: 'replay', model: `replay:${file}`, baseURL: null, replayFile: file});
}

function offline(file: string) {
	return createGateway({settings: replayRoles(file), workspaceDir: tempDir(), env: {}});
}

describe('llm record and replay', () => {
	it('records every exchange as one JSONL line and replays the responses offline', async () => {
		const dir = tempDir();
		const file = path.join(dir, 'run.jsonl');
		fake.enqueue({json: {score: 7, rationale: 'out of range'}}, {json: {score: 4, rationale: 'good'}}, {content: 'Terima kasih, here is help.'}, {json: {score: 2, rationale: 'weak'}});
		const live = createGateway({settings: fakeRoles(fake.baseURL), workspaceDir: dir, cache: false, record: file, env: {OPENAI_API_KEY: 'sk-x'}});
		const a = await live.call(judge('honesty', 5));
		const b = await live.call(assistant('help me'));
		const c = await live.call(judge('helpfulness', 6));

		const lines = readFileSync(file, 'utf8').trim().split('\n').map((line) => RecordingLine.parse(JSON.parse(line)));
		assert.equal(lines.length, 4, 'the invalid first reply is its own line');
		assert.deepEqual(lines.map((line) => line.stage), ['judge:honesty', 'judge:honesty', 'assistant', 'judge:helpfulness']);
		assert.deepEqual(lines[0]!.request.schemaName, 'score');
		assert.equal(lines[0]!.request.responseFormat, 'json_schema');
		assert.equal(lines[2]!.request.responseFormat, 'text');
		assert.equal(lines[0]!.model, 'fake-model');
		assert.ok(lines[0]!.response.usage);

		const requestsBefore = fake.requests.length;
		const replay = offline(file);
		const ra = await replay.call(judge('honesty', 5));
		const tokens: string[] = [];
		const rb = await replay.call({...assistant('help me'), onToken: (delta) => tokens.push(delta)});
		const rc = await replay.call(judge('helpfulness', 6));
		assert.deepEqual(ra.value, a.value);
		assert.equal(ra.call.validationRetries, 1, 'the re-ask is replayed too');
		assert.equal(rb.value, b.value);
		assert.equal(tokens.join(''), b.value);
		assert.deepEqual(rc.value, c.value);
		assert.equal(ra.call.provider, 'replay');
		assert.equal(ra.call.model, 'fake-model');
		assert.equal(fake.requests.length, requestsBefore, 'no HTTP during replay');
	});

	it('fails loudly with replay_exhausted, showing the stage and the request', async () => {
		const file = path.join(tempDir(), 'short.jsonl');
		const line: RecordingLine = {stage: 'judge:honesty', role: 'judge', model: 'm', request: {messages: [], responseFormat: 'json_schema', schemaName: 'score'}, response: {text: '{"score":3,"rationale":"ok"}', usage: null}};
		writeFileSync(file, `${JSON.stringify(line)}\n`);
		const replay = offline(file);
		await replay.call(judge('honesty', 1));
		await assert.rejects(replay.call(judge('honesty', 2)), (error: unknown) => {
			assert.ok(error instanceof ModelCallError);
			assert.equal(error.kind, 'replay_exhausted');
			assert.match(error.message, /judge:honesty/);
			assert.match(error.message, /Score honesty for this transcript/);
			assert.match(error.message, /short\.jsonl/);
			assert.equal(error.call.ok, false);
			assert.equal(error.call.attempts, 1, 'running out is not retried');
			return true;
		});
	});

	it('shares one recording across roles and hands lines out per stage in file order', async () => {
		const file = path.join(tempDir(), 'mixed.jsonl');
		const mk = (stage: string, role: ModelRole, text: string): RecordingLine => ({stage, role, model: 'm', request: {messages: [], responseFormat: 'text', schemaName: null}, response: {text, usage: null}});
		writeFileSync(file, [mk('simulator', 'simulator', 'user 1'), mk('assistant', 'assistant', 'reply 1'), mk('simulator', 'simulator', 'user 2'), mk('assistant', 'assistant', 'reply 2')].map((line) => JSON.stringify(line)).join('\n'));
		const replay = offline(file);
		const sim = (n: number): ModelRequest<string> => ({role: 'simulator', stage: 'simulator', prompt: fakePrompt(`turn ${n}`), mock: null, step: n});
		// Out of order on purpose (as concurrent calls may finish): each stage still gets its own lines in order.
		assert.equal((await replay.call(assistant('a'))).value, 'reply 1');
		assert.equal((await replay.call(sim(1))).value, 'user 1');
		assert.equal((await replay.call(sim(2))).value, 'user 2');
		assert.equal((await replay.call(assistant('b'))).value, 'reply 2');
	});

	it('a malformed recording line is an error naming the file and the line', async () => {
		const file = path.join(tempDir(), 'bad.jsonl');
		const good: RecordingLine = {stage: 'assistant', role: 'assistant', model: 'm', request: {messages: [], responseFormat: 'text', schemaName: null}, response: {text: 'hi', usage: null}};
		writeFileSync(file, `${JSON.stringify(good)}\n`);
		appendFileSync(file, '{"stage": "assistant", "role": "assistant"}\n');
		await assert.rejects(offline(file).call(assistant('x')), (error: unknown) => {
			assert.ok(error instanceof DataError);
			assert.match(error.message, /bad\.jsonl/);
			assert.match(error.message, /line 2/);
			assert.match(error.message, /model/);
			return true;
		});
		writeFileSync(file, 'not json\n');
		await assert.rejects(offline(file).call(assistant('x')), /bad\.jsonl:1: not a readable recording line/);
	});

	it('a recording cut by a crash keeps its whole exchanges: the cut one is dropped when read, and healed before the next is appended', async () => {
		const file = path.join(tempDir(), 'cut.jsonl');
		const line = (text: string): RecordingLine => ({stage: 'assistant', role: 'assistant', model: 'm', request: {messages: [], responseFormat: 'text', schemaName: null}, response: {text, usage: null}});
		writeFileSync(file, `${JSON.stringify(line('whole'))}\n${JSON.stringify(line('cut')).slice(0, 40)}`);
		assert.equal((await offline(file).call(assistant('x'))).value, 'whole');
		const healed: string[] = [];
		createRecorder(file, {onHealed: (message) => healed.push(message)}).append(line('next'));
		assert.match(healed.join(''), /cut off by an interrupted write/);
		assert.deepEqual(readFileSync(file, 'utf8').split('\n').filter(Boolean).map((text) => (JSON.parse(text) as RecordingLine).response.text), ['whole', 'next']);
	});

	it('a missing recording is a clear error', async () => {
		await assert.rejects(offline(path.join(tempDir(), 'none.jsonl')).call(assistant('x')), /none\.jsonl: recording file is missing/);
	});
});
