import assert from 'node:assert/strict';
import {existsSync} from 'node:fs';
import path from 'node:path';
import {describe, it} from 'node:test';
import {z} from 'zod';
import {CallRecord} from '../src/domain/session.js';
import {createGateway} from '../src/llm/gateway.js';
import {findMockGenerator, registerMockGenerator} from '../src/llm/mockProvider.js';
import {ModelCallError, type ModelRequest} from '../src/llm/types.js';
import {fakePrompt, fakeRoles} from './helpers/fakeOpenAI.js';
import {tempDir} from './helpers/tmp.js';

const Audit = z.strictObject({ok: z.boolean(), problems: z.array(z.string())});
const mockRoles = fakeRoles('http://127.0.0.1:9/never-called', {provider: 'mock', model: 'mock', baseURL: null});

function gateway(workspaceDir = tempDir()) {
	return createGateway({settings: mockRoles, workspaceDir, env: {}, retry: {baseDelayMs: 0, maxDelayMs: 0}});
}

registerMockGenerator('mt-audit', (input) => ({ok: (input as {ok: boolean}).ok, problems: []}));
registerMockGenerator('mt-judge:', () => ({ok: true, problems: ['prefix']}));
registerMockGenerator('mt-judge:special', () => ({ok: true, problems: ['exact']}));
registerMockGenerator('mt-broken', () => ({ok: 'yes'}));
registerMockGenerator('mt-assistant', (input) => `Hello ${(input as {name: string}).name}, here is a plan.`);

const audit = (stage: string, mock: unknown = {ok: true}): ModelRequest<z.infer<typeof Audit>> => ({role: 'validator', stage, prompt: fakePrompt('audit'), schema: {name: 'audit', schema: Audit}, mock, step: 1});

describe('llm mock provider', () => {
	it('builds structured replies from request.mock and records provider mock with estimated tokens', async () => {
		const workspace = tempDir();
		const {value, call} = await gateway(workspace).call(audit('mt-audit', {ok: false}));
		assert.deepEqual(value, {ok: false, problems: []});
		CallRecord.parse(call);
		assert.equal(call.provider, 'mock');
		assert.equal(call.model, 'mock');
		assert.ok(call.tokens.prompt > 0 && call.tokens.completion > 0);
		assert.equal(call.tokens.total, call.tokens.prompt + call.tokens.completion);
		assert.equal(call.cached, false);
		assert.equal(existsSync(path.join(workspace, 'cache')), false, 'mock calls are not cached');
	});

	it('dispatches exact stages before the longest prefix ending in ":"', async () => {
		assert.deepEqual((await gateway().call(audit('mt-judge:honesty'))).value.problems, ['prefix']);
		assert.deepEqual((await gateway().call(audit('mt-judge:special'))).value.problems, ['exact']);
		assert.equal(findMockGenerator('mt-judge'), undefined, 'a prefix pattern needs the colon');
	});

	it('streams free text word by word', async () => {
		const tokens: string[] = [];
		const {value} = await gateway().call<string>({role: 'assistant', stage: 'mt-assistant', prompt: fakePrompt('hi'), mock: {name: 'Aiko'}, step: 1, onToken: (delta) => tokens.push(delta)});
		assert.equal(value, 'Hello Aiko, here is a plan.');
		assert.deepEqual(tokens, ['Hello ', 'Aiko, ', 'here ', 'is ', 'a ', 'plan.']);
	});

	it('a schema-invalid mock output is a programming error (plain Error, not a model failure)', async () => {
		await assert.rejects(gateway().call(audit('mt-broken')), (error: unknown) => {
			assert.ok(error instanceof Error);
			assert.ok(!(error instanceof ModelCallError));
			assert.match(error.message, /mt-broken/);
			assert.match(error.message, /ok/);
			return true;
		});
	});

	it('a stage without a generator is an Error naming the stage', async () => {
		await assert.rejects(gateway().call(audit('mt-nothing-here')), /No mock generator for stage "mt-nothing-here"/);
	});
});

describe('llm mock provider pacing', () => {
	it('streams words over time when paced, and stops at once when aborted', async () => {
		const paced = createGateway({settings: mockRoles, workspaceDir: tempDir(), env: {}, mockTokenDelayMs: 15});
		const times: number[] = [];
		const start = Date.now();
		const {text} = await paced.call<string>({role: 'assistant', stage: 'mt-assistant', prompt: fakePrompt('hi'), mock: {name: 'Ana'}, step: 1, onToken: () => times.push(Date.now() - start)});
		assert.equal(text, 'Hello Ana, here is a plan.');
		assert.equal(times.length, 6);
		assert.ok(times.at(-1)! >= 5 * 15, `the last word came after ${times.at(-1)} ms`);
		const controller = new AbortController();
		setTimeout(() => controller.abort(), 20);
		await assert.rejects(paced.call<string>({role: 'assistant', stage: 'mt-assistant', prompt: fakePrompt('hi'), mock: {name: 'Bo'}, step: 1, onToken: () => undefined, signal: controller.signal}), (error: unknown) => error instanceof ModelCallError && error.kind === 'aborted');
	});
});
