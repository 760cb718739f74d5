import assert from 'node:assert/strict';
import {after, before, beforeEach, describe, it} from 'node:test';
import OpenAI from 'openai';
import {z} from 'zod';
import {CallRecord} from '../src/domain/session.js';
import {type GatewayOptions, createGateway} from '../src/llm/gateway.js';
import {chatBody} from '../src/llm/openaiProvider.js';
import {type CallEvent, ModelCallError, type ModelRequest} from '../src/llm/types.js';
import {type FakeOpenAI, fakePrompt, fakeRoles, startFakeOpenAI} from './helpers/fakeOpenAI.js';
import {tempDir} from './helpers/tmp.js';

const Verdict = z.strictObject({
	score: z.number().int().min(1).max(5),
	reason: z.string().min(3),
	note: z.string().nullable(),
});
type Verdict = z.infer<typeof Verdict>;

let fake: FakeOpenAI;
before(async () => (fake = await startFakeOpenAI()));
after(() => fake.close());
beforeEach(() => fake.reset());

function gateway(patch: Partial<GatewayOptions> = {}, roles = fakeRoles(fake.baseURL)) {
	return createGateway({settings: roles, workspaceDir: tempDir(), cache: false, env: {OPENAI_API_KEY: 'sk-test'}, retry: {baseDelayMs: 1, maxDelayMs: 2}, ...patch});
}

function verdictRequest(patch: Partial<ModelRequest<Verdict>> = {}): ModelRequest<Verdict> {
	return {role: 'judge', stage: 'judge:honesty', prompt: fakePrompt('Score this.', 'You judge.', 'judge/honesty'), schema: {name: 'verdict', schema: Verdict}, mock: null, step: 3, ...patch};
}

describe('llm gateway: structured calls (json_schema)', () => {
	it('sends a strict json_schema response_format built from the zod schema and parses the reply', async () => {
		fake.enqueue({json: {score: 4, reason: 'grounded and kind', note: null}});
		const result = await gateway().call(verdictRequest());
		assert.deepEqual(result.value, {score: 4, reason: 'grounded and kind', note: null});

		const [request] = fake.chatRequests();
		const format = request!.body.response_format!;
		assert.equal(format.type, 'json_schema');
		assert.equal(format.json_schema!.name, 'verdict');
		assert.equal(format.json_schema!.strict, true);
		const schema = format.json_schema!.schema;
		assert.deepEqual(schema.required, ['score', 'reason', 'note']);
		assert.equal(schema['additionalProperties'], false);
		assert.deepEqual(schema.properties!['score'], {type: 'integer', minimum: 1, maximum: 5});
		assert.equal(request!.body.model, 'fake-model');
		assert.notEqual(request!.body.stream, true);
		assert.equal('temperature' in request!.body, false, 'temperature omitted when null');
		assert.equal(request!.headers['x-cultureconverse-role'], 'judge');
		assert.equal(request!.headers['x-cultureconverse-stage'], 'judge:honesty');
		assert.equal(request!.headers['authorization'], 'Bearer sk-test');
	});

	it('returns a complete call record', async () => {
		const events: CallEvent[] = [];
		const gw = gateway();
		gw.onEvent((event) => events.push(event));
		fake.enqueue({content: JSON.stringify({score: 2, reason: 'misses the taboo', note: 'x'}), usage: {prompt_tokens: 11, completion_tokens: 7, total_tokens: 18}});
		const {call} = await gw.call(verdictRequest());
		CallRecord.parse(call);
		assert.equal(call.ok, true);
		assert.equal(call.error, null);
		assert.equal(call.provider, 'openai');
		assert.equal(call.model, 'fake-model');
		assert.equal(call.role, 'judge');
		assert.equal(call.stage, 'judge:honesty');
		assert.equal(call.step, 3);
		assert.equal(call.prompt, 'judge/honesty');
		assert.equal(call.promptHash, fakePrompt('Score this.', 'You judge.', 'judge/honesty').hash);
		assert.equal(call.responseFormat, 'json_schema');
		assert.equal(call.attempts, 1);
		assert.deepEqual(call.retries, []);
		assert.deepEqual(call.tokens, {prompt: 11, completion: 7, total: 18});
		assert.equal(call.cached, false);
		assert.equal(call.request.length, 2);
		assert.match(call.response!, /misses the taboo/);
		assert.deepEqual(events.map((event) => event.type), ['call_started', 'call_done']);
	});

	it('re-asks with the validation problems when a reply breaks the schema, then accepts the fixed reply', async () => {
		fake.enqueue({json: {score: 9, reason: 'too high', note: null}}, {json: {score: 5, reason: 'fixed now', note: null}});
		const {value, call} = await gateway().call(verdictRequest());
		assert.equal(value.score, 5);
		assert.equal(call.validationRetries, 1);
		const [first, second] = fake.chatRequests();
		assert.equal(first!.body.messages!.length, 2);
		const messages = second!.body.messages!;
		assert.equal(messages.length, 4);
		assert.equal(messages[2]!.role, 'assistant');
		assert.match(messages[2]!.content, /"score":9/);
		assert.equal(messages[3]!.role, 'user');
		assert.match(messages[3]!.content, /score: Too big/i);
		assert.equal(call.request.length, 4, 'the record keeps the whole conversation');
	});

	it('feeds request.validate problems back like schema problems', async () => {
		fake.enqueue({json: {score: 3, reason: 'no evidence cited', note: null}}, {json: {score: 3, reason: 'cites T1', note: null}});
		const validate = (value: Verdict) => (value.reason.includes('T1') ? [] : ['reason must cite a tripwire id such as T1']);
		const {value} = await gateway().call(verdictRequest({validate}));
		assert.equal(value.reason, 'cites T1');
		assert.match(fake.chatRequests()[1]!.body.messages!.at(-1)!.content, /must cite a tripwire id/);
	});

	it('fails with invalid_output once the validation budget is spent', async () => {
		fake.setHandler(() => ({content: 'not json at all'}));
		await assert.rejects(gateway({validationRetries: 1}).call(verdictRequest()), (error: unknown) => {
			assert.ok(error instanceof ModelCallError);
			assert.equal(error.kind, 'invalid_output');
			assert.equal(error.call.ok, false);
			assert.equal(error.call.validationRetries, 1);
			assert.match(error.message, /no JSON object/);
			return true;
		});
		assert.equal(fake.chatRequests().length, 2);
	});
});

describe('llm gateway: json_object and prompt fallbacks', () => {
	it('json_object sends response_format json_object and the schema in an extra system message', async () => {
		fake.enqueue({content: '```json\n{"score": 3, "reason": "fenced but fine", "note": null}\n```'});
		const {value, call} = await gateway({}, fakeRoles(fake.baseURL, {structured: 'json_object'})).call(verdictRequest());
		assert.equal(value.reason, 'fenced but fine');
		assert.equal(call.responseFormat, 'json_object');
		const body = fake.chatRequests()[0]!.body;
		assert.deepEqual(body.response_format, {type: 'json_object'});
		assert.deepEqual(body.messages!.map((message) => message.role), ['system', 'system', 'user']);
		assert.match(body.messages![1]!.content, /JSON Schema/);
		assert.match(body.messages![1]!.content, /"score"/);
	});

	it('prompt mode sends no response_format and extracts the first balanced object from chatty text', async () => {
		fake.enqueue({content: 'Sure {as asked}! Here it is:\n```json\n{"score": 2, "reason": "braces } in \\"strings\\" {", "note": null}\n```\nAnything else?'});
		const {value} = await gateway({}, fakeRoles(fake.baseURL, {structured: 'prompt'})).call(verdictRequest());
		assert.equal(value.reason, 'braces } in "strings" {');
		const body = fake.chatRequests()[0]!.body;
		assert.equal(body.response_format, undefined);
		assert.match(body.messages![1]!.content, /JSON Schema/);
	});

	it('the fake server default reply is schema-valid in all three modes', async () => {
		for (const structured of ['json_schema', 'json_object', 'prompt'] as const) {
			const {value} = await gateway({}, fakeRoles(fake.baseURL, {structured})).call(verdictRequest());
			assert.equal(Verdict.safeParse(value).success, true, structured);
		}
	});
});

describe('llm gateway: free text and streaming', () => {
	it('a free-text call without onToken is a plain request', async () => {
		fake.enqueue({content: 'Selamat pagi! Here is a plan.'});
		const {value, call} = await gateway().call<string>({role: 'assistant', stage: 'assistant', prompt: fakePrompt('Hi'), mock: null, step: 1});
		assert.equal(value, 'Selamat pagi! Here is a plan.');
		assert.equal(call.responseFormat, 'text');
		assert.notEqual(fake.chatRequests()[0]!.body.stream, true);
		assert.equal(fake.chatRequests()[0]!.body.response_format, undefined);
	});

	it('streams tokens in order with usage from the final chunk', async () => {
		fake.enqueue({stream: ['One ', 'two ', 'three ', 'four.'], usage: {prompt_tokens: 5, completion_tokens: 4, total_tokens: 9}});
		const tokens: string[] = [];
		const {value, call} = await gateway().call<string>({role: 'assistant', stage: 'assistant', prompt: fakePrompt('Count'), mock: null, step: 1, onToken: (delta) => tokens.push(delta)});
		assert.deepEqual(tokens, ['One ', 'two ', 'three ', 'four.']);
		assert.equal(value, 'One two three four.');
		assert.deepEqual(call.tokens, {prompt: 5, completion: 4, total: 9});
		const body = fake.chatRequests()[0]!.body;
		assert.equal(body.stream, true);
		assert.deepEqual(body.stream_options, {include_usage: true});
	});

	it('structured calls never stream, even with onToken', async () => {
		await gateway().call(verdictRequest({onToken: () => assert.fail('no tokens for structured calls')}));
		assert.notEqual(fake.chatRequests()[0]!.body.stream, true);
	});
});

describe('llm gateway: events', () => {
	it('delivers a call\'s events to request.onEvent as well as to gateway listeners', async () => {
		fake.enqueue({status: 500});
		const gw = gateway();
		const all: string[] = [];
		gw.onEvent((event) => all.push(event.type));
		const mine: CallEvent[] = [];
		await gw.call(verdictRequest({onEvent: (event) => mine.push(event)}));
		await gw.call(verdictRequest());
		assert.deepEqual(mine.map((event) => event.type), ['call_started', 'call_retried', 'call_done']);
		assert.equal(all.length, 5);
		const started = mine[0]!;
		assert.ok(started.type === 'call_started' && started.provider === 'openai' && started.model === 'fake-model' && started.stage === 'judge:honesty');
	});

	it('the fake server lists models for the SDK', async () => {
		const client = new OpenAI({baseURL: fake.baseURL, apiKey: 'k', maxRetries: 0});
		const ids: string[] = [];
		for await (const model of client.models.list()) ids.push(model.id);
		assert.deepEqual(ids, ['fake-model']);
	});
});

describe('llm openai request body', () => {
	const settings = fakeRoles('http://127.0.0.1:1/v1').judge;
	it('picks the token cap field by model family and endpoint, not by host alone', () => {
		const cap = (patch: Partial<typeof settings>) => {
			const body = chatBody({settings: {...settings, maxTokens: 300, ...patch}, messages: [], format: {type: 'text'}}) as unknown as Record<string, unknown>;
			return 'max_completion_tokens' in body ? 'max_completion_tokens' : 'max_tokens' in body ? 'max_tokens' : null;
		};
		// OpenAI's reasoning models reject max_tokens wherever they are served: Azure's /openai/v1 host is not api.openai.com.
		assert.equal(cap({model: 'gpt-5-mini', baseURL: 'https://my-resource.openai.azure.com/openai/v1'}), 'max_completion_tokens');
		assert.equal(cap({model: 'o4-mini', baseURL: 'http://proxy.internal/v1'}), 'max_completion_tokens');
		assert.equal(cap({model: 'gpt-4.1-mini', baseURL: null}), 'max_completion_tokens');
		assert.equal(cap({model: 'Qwen/Qwen3-8B', baseURL: 'http://localhost:8000/v1'}), 'max_tokens');
		assert.equal(cap({model: 'gpt-5-chat-latest', baseURL: 'http://localhost:8000/v1'}), 'max_tokens');
		// OpenRouter documents max_tokens for every model and translates it upstream.
		assert.equal(cap({model: 'openai/gpt-5-mini', baseURL: 'https://openrouter.ai/api/v1'}), 'max_tokens');
		const local = chatBody({settings: {...settings, maxTokens: 300}, messages: [], format: {type: 'text'}});
		assert.equal(local.max_tokens, 300);
		assert.equal(local.max_completion_tokens, undefined);
		const openai = chatBody({settings: {...settings, baseURL: null, maxTokens: 300}, messages: [], format: {type: 'text'}});
		assert.equal(openai.max_completion_tokens, 300);
		assert.equal(openai.max_tokens, undefined);
	});

	it('omits temperature when null and sends it when set', async () => {
		assert.equal('temperature' in chatBody({settings, messages: [], format: {type: 'text'}}), false);
		assert.equal(chatBody({settings: {...settings, temperature: 0}, messages: [], format: {type: 'text'}}).temperature, 0);
		await gateway({}, fakeRoles(fake.baseURL, {temperature: 0.3, maxTokens: 64})).call(verdictRequest());
		const body = fake.chatRequests()[0]!.body;
		assert.equal(body.temperature, 0.3);
		assert.equal(body.max_tokens, 64);
	});
});
