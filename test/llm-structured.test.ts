import assert from 'node:assert/strict';
import {describe, it} from 'node:test';
import {z} from 'zod';
import {BlueprintDraft} from '../src/domain/blueprint.js';
import {JudgeResult} from '../src/domain/session.js';
import {ShardPlan} from '../src/domain/shards.js';
import {extractJson, jsonSchemaFor, parseReply, prepareMessages, wireFormat} from '../src/llm/structured.js';
import {summarizeCalls} from '../src/llm/usage.js';
import {type JsonSchema, fakeFromSchema, sampleRegex} from './helpers/fakeOpenAI.js';

describe('llm structured output: JSON extraction', () => {
	it('takes a clean object as is', () => {
		assert.equal(extractJson('{"a": 1}'), '{"a": 1}');
	});

	it('finds the object inside ``` fences and prose', () => {
		assert.equal(extractJson('Here:\n```json\n{"a": {"b": [1, 2]}}\n```\nDone.'), '{"a": {"b": [1, 2]}}');
		assert.equal(extractJson('```\n{"a": 1}\n```'), '{"a": 1}');
	});

	it('ignores braces inside strings and skips brace pairs that are not JSON', () => {
		assert.equal(extractJson('I {think} so: {"t": "a } and { and \\" quote"}'), '{"t": "a } and { and \\" quote"}');
	});

	it('returns null when no complete object exists', () => {
		assert.equal(extractJson('no json here'), null);
		assert.equal(extractJson('{"a": 1'), null);
	});
});

describe('llm structured output: parsing and prompts', () => {
	const spec = {name: 'pair', schema: z.strictObject({a: z.number(), b: z.string().nullable()})};

	it('reports schema problems with their paths', () => {
		const outcome = parseReply('{"a": "x", "b": null, "c": 1}', spec);
		assert.equal(outcome.ok, false);
		assert.ok(!outcome.ok && outcome.problems.some((problem) => problem.startsWith('a:')));
		assert.ok(!outcome.ok && outcome.problems.some((problem) => /c/.test(problem)));
	});

	it('adds the schema as an extra system message after the prompt\'s own for json_object and prompt modes', () => {
		const messages = [
			{role: 'system' as const, content: 'sys'},
			{role: 'user' as const, content: 'hi'},
		];
		assert.deepEqual(prepareMessages(messages, wireFormat(spec, 'json_schema_strict')), messages);
		const fallback = prepareMessages(messages, wireFormat(spec, 'prompt'));
		assert.deepEqual(fallback.map((message) => message.role), ['system', 'system', 'user']);
		assert.match(fallback[1]!.content, /\(pair\)/);
		assert.deepEqual(prepareMessages(messages, wireFormat(undefined, 'prompt')), messages, 'free text is untouched');
	});

	it('rejects names the API would refuse', () => {
		assert.throws(() => jsonSchemaFor({name: 'judge:honesty', schema: z.strictObject({})}), /must match/);
	});

	it('the project\'s model-facing schemas convert to strict JSON schemas', () => {
		for (const [name, schema] of [['shard_plan', ShardPlan], ['blueprint_draft', BlueprintDraft], ['judge_result', JudgeResult]] as const) {
			const json = jsonSchemaFor({name, schema}) as {additionalProperties?: boolean};
			assert.equal(json.additionalProperties, false, name);
		}
	});
});

describe('fake server schema faker', () => {
	it('produces values that satisfy the project\'s schemas', () => {
		for (const [name, schema] of [['shard_plan', ShardPlan], ['blueprint_draft', BlueprintDraft], ['judge_result', JudgeResult]] as const) {
			const value = fakeFromSchema(jsonSchemaFor({name, schema}) as JsonSchema);
			const parsed = (schema as z.ZodType).safeParse(value);
			assert.ok(parsed.success, `${name}: ${parsed.success ? '' : JSON.stringify(parsed.error.issues.slice(0, 3))}`);
		}
	});

	it('samples simple patterns', () => {
		assert.equal(sampleRegex('^T\\d+$'), 'T1');
		assert.equal(sampleRegex('^[a-z0-9]+(?:-[a-z0-9]+)*$'), 'a');
		assert.equal(sampleRegex('^(?:religion|ethnicity):[A-Za-z0-9-]+$'), 'religion:A');
	});
});

describe('llm usage summary', () => {
	it('separates billable tokens from cached and mock calls', () => {
		const base = {id: 'x', step: 1, role: 'judge' as const, stage: 's', model: 'm', prompt: 'p', promptHash: 'h', responseFormat: 'text' as const, startedAt: '', latencyMs: 10, attempts: 1, retries: [], validationRetries: 0, tokens: {prompt: 10, completion: 5, total: 15}, ok: true, error: null, request: [], response: ''};
		const summary = summarizeCalls([
			{...base, provider: 'openai', cached: false},
			{...base, provider: 'openai', cached: true},
			{...base, provider: 'mock', cached: false, ok: false},
		]);
		assert.deepEqual([summary.calls, summary.cached, summary.mock, summary.failed, summary.tokens.total, summary.billableTokens.total], [3, 1, 1, 1, 45, 15]);
	});
});

describe('portable strict schemas', () => {
	it('drops string length keywords (validated by zod instead) but keeps patterns, enums and array bounds', async () => {
		const {BlueprintDraft: Draft} = await import('../src/domain/blueprint.js');
		const {ShardPlan: Plan} = await import('../src/domain/shards.js');
		const text = JSON.stringify([jsonSchemaFor({name: 'blueprint', schema: Draft}), jsonSchemaFor({name: 'shards', schema: Plan})]);
		assert.doesNotMatch(text, /minLength|maxLength/);
		assert.match(text, /"pattern":"\^T\\\\d\+\$"/);
		assert.match(text, /"minItems":3/);
		assert.match(text, /"maxItems":5/);
		assert.match(text, /"enum":\["low","medium","high","critical"\]/);
	});
});

describe('reasoning effort', () => {
	it('is sent as reasoning_effort only when configured, and separates cache entries', async () => {
		const {chatBody} = await import('../src/llm/openaiProvider.js');
		const {cacheKey} = await import('../src/llm/cache.js');
		const settings = {provider: 'openai' as const, model: 'gpt-5-mini', baseURL: null, temperature: null, maxTokens: null, timeoutMs: 1000, structured: 'json_schema' as const, replayFile: null};
		const messages = [{role: 'user' as const, content: 'hi'}];
		assert.equal('reasoning_effort' in chatBody({settings, messages, format: {type: 'text'}}), false);
		assert.equal(chatBody({settings: {...settings, reasoningEffort: 'minimal'}, messages, format: {type: 'text'}}).reasoning_effort, 'minimal');
		const key = (reasoningEffort: string | null) => cacheKey({provider: 'openai', baseURL: null, model: 'gpt-5-mini', messages, format: {type: 'text'}, temperature: null, maxTokens: null, reasoningEffort});
		assert.notEqual(key('minimal'), key('high'));
		assert.equal(key(null), cacheKey({provider: 'openai', baseURL: null, model: 'gpt-5-mini', messages, format: {type: 'text'}, temperature: null, maxTokens: null}));
	});
});
