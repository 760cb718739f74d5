import assert from 'node:assert/strict';
import {existsSync, readFileSync, readdirSync, writeFileSync} from 'node:fs';
import path from 'node:path';
import {after, before, beforeEach, describe, it} from 'node:test';
import {z} from 'zod';
import {cacheKey, createFileCache} from '../src/llm/cache.js';
import {type GatewayOptions, createGateway} from '../src/llm/gateway.js';
import type {ModelRequest} from '../src/llm/types.js';
import {type FakeOpenAI, fakePrompt, fakeRoles, startFakeOpenAI} from './helpers/fakeOpenAI.js';
import {tempDir} from './helpers/tmp.js';

const Plan = z.strictObject({steps: z.array(z.string()).min(2)});
const request: ModelRequest<z.infer<typeof Plan>> = {role: 'generator', stage: 'shards', prompt: fakePrompt('Plan the phases'), schema: {name: 'plan', schema: Plan}, mock: null, step: 2};
const SECRET = 'sk-test-SECRET-do-not-store-4242';

let fake: FakeOpenAI;
before(async () => (fake = await startFakeOpenAI()));
after(() => fake.close());
beforeEach(() => fake.reset());

function gateway(workspaceDir: string, patch: Partial<GatewayOptions> = {}) {
	return createGateway({settings: fakeRoles(fake.baseURL), workspaceDir, env: {OPENAI_API_KEY: SECRET}, retry: {baseDelayMs: 1, maxDelayMs: 1}, ...patch});
}

/** Every file under `dir`, recursively. */
function filesUnder(dir: string): string[] {
	if (!existsSync(dir)) return [];
	return readdirSync(dir, {recursive: true, withFileTypes: true})
		.filter((entry) => entry.isFile())
		.map((entry) => path.join(entry.parentPath, entry.name));
}

describe('llm response cache', () => {
	it('a repeated call is answered from the cache without an HTTP request', async () => {
		const workspace = tempDir();
		const first = await gateway(workspace).call(request);
		const second = await gateway(workspace).call(request);
		assert.equal(fake.chatRequests().length, 1);
		assert.deepEqual(second.value, first.value);
		assert.equal(first.call.cached, false);
		assert.equal(second.call.cached, true);
		const files = filesUnder(path.join(workspace, 'cache'));
		assert.equal(files.length, 1);
		assert.match(path.relative(workspace, files[0]!), /^cache\/([0-9a-f]{2})\/\1[0-9a-f]{62}\.json$/);
	});

	it('cache: false (--no-cache) calls the endpoint every time and writes nothing', async () => {
		const workspace = tempDir();
		await gateway(workspace, {cache: false}).call(request);
		await gateway(workspace, {cache: false}).call(request);
		assert.equal(fake.chatRequests().length, 2);
		assert.equal(existsSync(path.join(workspace, 'cache')), false);
	});

	it('the key covers model, messages and sampling settings', async () => {
		const workspace = tempDir();
		await gateway(workspace).call(request);
		await gateway(workspace).call({...request, prompt: fakePrompt('Plan the phases again')});
		await gateway(workspace, {settings: fakeRoles(fake.baseURL, {temperature: 0.2})}).call(request);
		await gateway(workspace, {settings: fakeRoles(fake.baseURL, {model: 'other-model'})}).call(request);
		assert.equal(fake.chatRequests().length, 4);
	});

	it('a failed call caches nothing, so a rerun asks again', async () => {
		const workspace = tempDir();
		fake.setHandler(() => ({json: {steps: ['only one']}}));
		await assert.rejects(gateway(workspace, {validationRetries: 0}).call(request));
		assert.equal(filesUnder(path.join(workspace, 'cache')).length, 0);
	});

	it('a call that needed a re-ask replays the whole conversation from the cache', async () => {
		const workspace = tempDir();
		fake.enqueue({json: {steps: ['only one']}}, {json: {steps: ['one', 'two']}});
		const first = await gateway(workspace).call(request);
		const again = await gateway(workspace).call(request);
		assert.equal(fake.chatRequests().length, 2);
		assert.deepEqual(again.value, first.value);
		assert.equal(again.call.cached, true);
		assert.equal(again.call.validationRetries, 1);
	});

	it('free text served from the cache still reaches onToken', async () => {
		const workspace = tempDir();
		const free = {role: 'assistant' as const, stage: 'assistant', prompt: fakePrompt('hello'), mock: null, step: 1};
		const first = await gateway(workspace).call<string>(free);
		const tokens: string[] = [];
		const second = await gateway(workspace).call<string>({...free, onToken: (delta) => tokens.push(delta)});
		assert.equal(second.call.cached, true);
		assert.equal(tokens.join(''), first.value);
	});

	it('never writes the API key into cache or recording files', async () => {
		const workspace = tempDir();
		const record = path.join(workspace, 'run.jsonl');
		await gateway(workspace, {record}).call(request);
		await gateway(workspace, {record}).call<string>({role: 'assistant', stage: 'assistant', prompt: fakePrompt('hi'), mock: null, step: 1, onToken: () => {}});
		assert.equal(fake.chatRequests()[0]!.headers['authorization'], `Bearer ${SECRET}`, 'the key was really used');
		const files = filesUnder(workspace);
		assert.ok(files.length >= 3, files.join(', '));
		for (const file of files) {
			const text = readFileSync(file, 'utf8');
			assert.equal(text.includes(SECRET), false, file);
			assert.equal(/authorization|bearer/i.test(text), false, file);
		}
	});

	it('an unreadable entry is a miss, not a crash', () => {
		const dir = tempDir();
		const cache = createFileCache(dir);
		const key = cacheKey({provider: 'openai', baseURL: null, model: 'm', messages: [], format: {type: 'text'}, temperature: null, maxTokens: null});
		cache.set({key, createdAt: 'now', model: 'm', text: 'hi', usage: null});
		assert.equal(cache.get(key)?.text, 'hi');
		const file = filesUnder(dir)[0]!;
		writeFileSync(file, '{broken');
		assert.equal(cache.get(key), null);
	});
});
