import assert from 'node:assert/strict';
import {mkdtempSync, readFileSync, readdirSync, rmSync, writeFileSync} from 'node:fs';
import {tmpdir} from 'node:os';
import path from 'node:path';
import {after, describe, it} from 'node:test';
import type {CallRecord, Session} from '../src/domain/session.js';
import {cutTurns} from '../src/domain/turnCut.js';
import {azureShape} from '../src/llm/client.js';
import {guessPreset} from '../src/llm/presets.js';
import {resolveRoleSettings} from '../src/llm/settings.js';
import {classifyStatus} from '../src/llm/retry.js';
import {splitReasoning} from '../src/llm/reasoning.js';
import {formatUsage} from '../src/present/text.js';
import {parseJson, runCli} from './helpers/cli.js';
import {cliWorkspace} from './helpers/cliWorkspace.js';
import type {FakeHandler, FakeOpenAI, FakeReply} from './helpers/fakeOpenAI.js';
import {startProvider} from './helpers/providerProfiles.js';
import {scriptedModel} from './helpers/scriptedModel.js';
import {type ServerProfile, startServer} from './helpers/serverProfiles.js';

/*
 * Each provider's failures read from its own body shapes, through the real CLI against loopback
 * servers that send them as the providers document (named per case): mid-stream error events, 200
 * bodies with an error, routing 404s, context overflows, content filters, `n` refused, structured
 * modes refused, and doctor's probes that time out or fail only with the role's extraBody.
 */

const SEED = 'my-tamil-hindu-a55-f:culinary.dietary-rules.02';
const FAST = ['--max-turns', '2', '--judge-mode', 'combined'];
const OR_KEY = 'sk-or-v1-errorserrorserrorserrors';
const servers: FakeOpenAI[] = [];
const workspace = cliWorkspace({prefix: 'cc-perr-', retry: {maxAttempts: 3}});
const {home, folder, cli, sessions} = workspace;
after(async () => {
	await Promise.all(servers.map((server) => server.close()));
	workspace.cleanup();
});

async function server(profile: ServerProfile, script: FakeHandler = scriptedModel()): Promise<FakeOpenAI> {
	const started = await startServer(profile, script);
	servers.push(started);
	return started;
}

const assistantCalls = (session: Session): CallRecord[] => session.calls.filter((call) => call.role === 'assistant');

/** OpenRouter's documented mid-stream failure (openrouter.ai/docs/api-reference/errors, "Error handling during streaming"): HTTP 200, some tokens, then a data event with `error` and finish_reason "error". */
const openRouterStreamError: FakeReply = {
	sse: [
		{id: 'gen-1', object: 'chat.completion.chunk', created: 0, model: 'qwen/qwen3-8b', choices: [{index: 0, delta: {role: 'assistant', content: 'Here is a '}, finish_reason: null}]},
		{id: 'gen-1', object: 'chat.completion.chunk', created: 0, model: 'qwen/qwen3-8b', provider: 'SomeProvider', error: {code: 'server_error', message: 'Provider disconnected unexpectedly'}, choices: [{index: 0, delta: {content: ''}, finish_reason: 'error'}]},
	],
};

describe('mid-stream error events and 200 bodies with an error', () => {
	it('OpenRouter: a mid-stream error event is a failed attempt, retried; the turn holds the retry\'s whole reply', async () => {
		const fake = await server({kind: 'openrouter', key: OR_KEY}, scriptedModel({stage: {assistant: (_request, n) => (n === 0 ? openRouterStreamError : undefined)}}));
		const dir = folder();
		const run = await cli(dir, ['run', '--seed', SEED, '--provider', 'openrouter', '--base-url', fake.baseURL, '--model', 'qwen/qwen3-8b', ...FAST, '--json'], {OPENROUTER_API_KEY: OR_KEY});
		assert.equal(run.code, 0, run.stderr);
		const session = sessions(dir)[0]!;
		const first = assistantCalls(session)[0]!;
		assert.equal(first.attempts, 2);
		assert.match(first.retries[0]!.reason, /stream error event server_error/);
		assert.ok(!session.turns.some((turn) => turn.content.startsWith('Here is a ') && turn.content.length < 12), 'the partial text was dropped');
	});

	it('OpenRouter: an error event on every attempt ends the run with exit 3 and a saved error, never an internal error; the session lock is released', async () => {
		const fake = await server({kind: 'openrouter', key: OR_KEY}, scriptedModel({stage: {assistant: () => openRouterStreamError}}));
		const dir = folder();
		const run = await cli(dir, ['run', '--seed', SEED, '--provider', 'openrouter', '--base-url', fake.baseURL, '--model', 'qwen/qwen3-8b', ...FAST], {OPENROUTER_API_KEY: OR_KEY});
		assert.equal(run.code, 3, run.stderr);
		assert.doesNotMatch(run.stderr, /internal error/);
		const session = sessions(dir)[0]!;
		assert.deepEqual([session.status, session.error?.flag, session.error?.kind], ['error', 'ASSISTANT_ERROR', 'server']);
		assert.match(session.error!.message, /Provider disconnected unexpectedly/);
		assert.equal(readdirSync(path.join(dir, 'sessions')).filter((file) => file.endsWith('.lock')).length, 0, 'no stale lock');
	});

	it('llama.cpp: `data: {"error": {"code": 500, ...}}` inside a stream (tools/server/README.md) is retried per kind', async () => {
		const fake = await server({kind: 'llamacpp', nCtx: 16384}, scriptedModel({stage: {assistant: (_request, n) => (n === 0 ? {sse: [{error: {code: 500, message: 'slot 0 failed to decode', type: 'server_error'}}]} : undefined)}}));
		const dir = folder();
		const run = await cli(dir, ['run', '--seed', SEED, '--provider', 'llamacpp', '--base-url', fake.baseURL, '--model', 'local', ...FAST, '--json']);
		assert.equal(run.code, 0, run.stderr);
		const first = assistantCalls(sessions(dir)[0]!)[0]!;
		assert.deepEqual([first.attempts, first.retries[0]?.reason], [2, 'stream error event (500)']);
	});

	it('OpenRouter: a 200 whose body is an error is the failure its code names (502: retried), not an empty reply whose tokens count', async () => {
		const errorBody: FakeReply = {status: 200, body: {error: {code: 502, message: 'Upstream provider returned an invalid response'}, usage: {prompt_tokens: 500000, completion_tokens: 0, total_tokens: 500000}}};
		// Whole (the judge) and asked to stream (the assistant): the same JSON error instead of a completion.
		const fake = await server({kind: 'openrouter', key: OR_KEY}, scriptedModel({stage: {'judge:combined': (_request, n) => (n === 0 ? errorBody : undefined), assistant: (_request, n) => (n === 0 ? errorBody : undefined)}}));
		const dir = folder();
		const run = await cli(dir, ['run', '--seed', SEED, '--provider', 'openrouter', '--base-url', fake.baseURL, '--model', 'qwen/qwen3-8b', ...FAST, '--json'], {OPENROUTER_API_KEY: OR_KEY});
		assert.equal(run.code, 0, run.stderr);
		const judge = sessions(dir)[0]!.calls.find((call) => call.stage === 'judge:combined')!;
		assert.deepEqual(judge.attemptStatuses, [502]);
		assert.equal(judge.retries[0]!.reason, 'HTTP 502');
		assert.ok(!judge.retries.some((retry) => /empty/.test(retry.reason)));
		assert.ok(judge.tokens.prompt < 500000, 'the error body\'s tokens are not booked as the call\'s');
		const assistant = assistantCalls(sessions(dir)[0]!)[0]!;
		assert.deepEqual([assistant.attemptStatuses, assistant.retries[0]?.reason, assistant.streamed], [[502], 'HTTP 502', true]);
	});
});

describe('routing, context and filters', () => {
	it('OpenRouter: a routing 404 ("No endpoints found that can handle the requested parameters") steps the structured mode down instead of calling the model missing', async () => {
		const routing: FakeReply = {status: 404, body: {error: {code: 404, message: 'No endpoints found that can handle the requested parameters.'}}};
		const fake = await server({kind: 'openrouter', key: OR_KEY}, scriptedModel({stage: {'judge:combined': (request) => (request.body.response_format?.type === 'json_schema' ? routing : undefined)}}));
		const dir = folder();
		const run = await cli(dir, ['run', '--seed', SEED, '--provider', 'openrouter', '--base-url', fake.baseURL, '--model', 'qwen/qwen3-8b', ...FAST, '--json'], {OPENROUTER_API_KEY: OR_KEY});
		assert.equal(run.code, 0, run.stderr);
		const session = sessions(dir)[0]!;
		assert.equal(session.calls.find((call) => call.stage === 'judge:combined')!.structuredMode, 'json_object');
		assert.ok((session.notices ?? []).some((notice) => /refused structured mode json_schema_strict .*judge calls use json_object/.test(notice.message)));
		const fixed = folder({roles: {judge: {structured: 'json_schema'}}});
		const handSet = await cli(fixed, ['run', '--seed', SEED, '--provider', 'openrouter', '--base-url', fake.baseURL, '--model', 'qwen/qwen3-8b', ...FAST], {OPENROUTER_API_KEY: OR_KEY});
		assert.equal(handSet.code, 3);
		const failed = sessions(fixed)[0]!;
		assert.equal(failed.error?.kind, 'bad_request', 'not not_found: the model exists');
		assert.match(handSet.stderr, /OpenRouter found no provider for qwen\/qwen3-8b that takes every parameter/);
	});

	it('llama.cpp: exceed_context_size_error is a context overflow whose fix is a larger -c, shared by the slots; "maxTokens" is not blamed when it is unset', async () => {
		const fake = await server({kind: 'llamacpp', nCtx: 1200});
		const dir = folder();
		const run = await cli(dir, ['run', '--seed', SEED, '--provider', 'llamacpp', '--base-url', fake.baseURL, '--model', 'local', ...FAST]);
		assert.equal(run.code, 3, run.stderr);
		const session = sessions(dir)[0]!;
		assert.equal(session.error?.kind, 'context_length');
		assert.match(session.error!.message, /exceeds the available context size \(1200 tokens\)/);
		assert.match(run.stderr, /start llama-server with a larger -c; its slots share that context \(-c 16384 -np 2 gives each request 8192\)/);
		assert.doesNotMatch(run.stderr, /maxTokens/);
	});

	it('Azure content filter: a filtered prompt fails its item (not a set-up failure: the batch goes on); a filtered reply is kept, marked on the call and the turn', async () => {
		const filtered: FakeReply = {status: 400, body: {error: {message: "The response was filtered due to the prompt triggering Azure OpenAI's content management policy. Please modify your prompt and retry.", type: null, param: 'prompt', code: 'content_filter', status: 400, innererror: {code: 'ResponsibleAIPolicyViolation'}}}};
		const fake = await startProvider('azure', scriptedModel({stage: {assistant: (_request, n) => (n < 3 ? filtered : undefined)}}));
		servers.push(fake);
		const config = {family: 'reasoning'};
		const batchDir = folder(config);
		const env = {AZURE_OPENAI_API_KEY: fake.key};
		const batch = await cli(batchDir, ['batch', '--name', 'cf', '--region', 'KR', '--sample', '4', '--parallel', '1', '--provider', 'azure', '--base-url', fake.userBaseURL, '--model', fake.model, ...FAST], env);
		assert.equal(batch.code, 3, batch.stderr);
		assert.doesNotMatch(batch.stderr, /Stopped:/, 'three content-filtered items in a row do not stop the batch');
		const all = sessions(batchDir);
		assert.deepEqual(all.map((session) => session.error?.kind ?? session.status).sort(), ['completed', 'content_filter', 'content_filter', 'content_filter']);

		const cut = await startProvider('azure', scriptedModel({stage: {assistant: (_request, n) => (n === 0 ? {content: 'Here is the first part of a plan for', finishReason: 'content_filter'} : undefined)}}));
		servers.push(cut);
		const dir = folder(config);
		const run = await cli(dir, ['run', '--seed', SEED, '--provider', 'azure', '--base-url', cut.userBaseURL, '--model', cut.model, ...FAST, '--json'], {AZURE_OPENAI_API_KEY: cut.key});
		assert.equal(run.code, 0, run.stderr);
		const session = sessions(dir)[0]!;
		assert.deepEqual(cutTurns(session).map((turn) => turn.cut), ['content_filter']);
		assert.equal(assistantCalls(session)[0]!.finishReason, 'content_filter');
	});
});

describe('negotiated capabilities', () => {
	it('Groq refuses n: with "supportsN": true, best-of-2 falls back to two requests a turn, said once; doctor warns', async () => {
		const fake = await startProvider('groq');
		servers.push(fake);
		const config = {roles: {assistant: {supportsN: true}}};
		const dir = folder(config);
		const env = {GROQ_API_KEY: fake.key};
		const flags = ['--provider', 'groq', '--base-url', fake.userBaseURL, '--model', fake.model];
		const doctor = await cli(dir, ['doctor', ...flags, '--json'], env);
		const report = parseJson<{roles: Array<{role: string; supportsN: boolean | null}>; warnings: string[]}>(doctor.stdout);
		assert.equal(report.roles.find((check) => check.role === 'assistant')!.supportsN, false);
		assert.ok(report.warnings.some((warning) => /"supportsN": true is set for the assistant, but its server does not return several choices: best-of-N falls back to N requests/.test(warning)));
		fake.reset();
		const runDir = folder(config);
		const run = await cli(runDir, ['run', '--seed', SEED, ...flags, ...FAST, '--best-of', '2', '--json'], env);
		assert.equal(run.code, 0, run.stderr);
		const session = sessions(runDir)[0]!;
		const assistantTurns = session.turns.filter((turn) => turn.role === 'assistant');
		assert.ok(assistantTurns.every((turn) => turn.candidates?.length === 2));
		assert.ok(fake.chatRequests().filter((request) => request.role === 'assistant').every((request) => request.body['n'] === undefined), 'doctor found n refused: the run never sends it');
	});

	it('a recorded mode the server now refuses is stepped down and the record updated (re-probed on the contradicting 400)', async () => {
		const fake = await startProvider('deepseek');
		servers.push(fake);
		const ownHome = mkdtempSync(path.join(tmpdir(), 'cc-perr-own-'));
		after(() => rmSync(ownHome, {recursive: true, force: true}));
		const file = path.join(ownHome, 'capabilities.json');
		const key = JSON.stringify(['deepseek', fake.userBaseURL, 'deepseek-chat']);
		writeFileSync(file, JSON.stringify({version: 1, entries: {[key]: {preset: 'deepseek', baseURL: fake.userBaseURL, model: 'deepseek-chat', structured: 'json_schema_strict', source: 'probed', checkedAt: '2025-01-01T00:00:00.000Z'}}}));
		const dir = folder();
		const run = await runCli(['run', '--seed', SEED, '--provider', 'deepseek', '--base-url', fake.userBaseURL, '--model', 'deepseek-chat', ...FAST, '--sessions-dir', path.join(dir, 'sessions'), '--json'], {cwd: dir, env: {CULTURECONVERSE_HOME: ownHome, DEEPSEEK_API_KEY: fake.key}});
		assert.equal(run.code, 0, run.stderr);
		const record = parseJson<{entries: Record<string, {structured: string; source: string; refusals?: Record<string, string>}>}>(readFileSync(file, 'utf8')).entries[key]!;
		assert.deepEqual([record.structured, record.source], ['json_object', 'learned']);
		assert.match(record.refusals?.['structured:json_schema_strict'] ?? '', /This response_format type is unavailable now/);
		const session = sessions(dir)[0]!;
		assert.equal(session.calls.filter((call) => call.structuredMode === 'json_schema_strict').length, 0, 'the refused attempt left no call in that mode');
		assert.equal(fake.chatRequests().filter((request) => request.body.response_format?.type === 'json_schema').length, 1, 'refused once, then never asked again');
	});
});

describe('doctor tells the truth', () => {
	it('probes carry a small token cap; a probe that times out leaves its role unchecked and doctor exits 2, unless --allow-unchecked', async () => {
		const slow = scriptedModel();
		const fake = await server({kind: 'vllm'}, async (request) => (request.stage?.startsWith('doctor:') && request.role === 'judge' ? {delayMs: 3000} : slow(request)));
		const dir = folder({roles: {judge: {timeoutMs: 300}, generator: {maxTokens: 4000}}});
		const doctor = await cli(dir, ['doctor', '--provider', 'vllm', '--base-url', fake.baseURL, '--model', 'Qwen/Qwen3-8B', '--json']);
		assert.equal(doctor.code, 2, doctor.stdout);
		const report = parseJson<{roles: Array<{role: string; status: string; statusReason: string | null}>; problems: string[]}>(doctor.stdout);
		const judge = report.roles.find((check) => check.role === 'judge')!;
		assert.deepEqual([judge.status, judge.statusReason], ['unchecked', 'no reply within 0.3 s (the probe\'s time limit)']);
		assert.equal(report.problems.length, 0);
		assert.ok(report.roles.filter((check) => check.role !== 'judge').every((check) => check.status === 'works'));
		const generatorProbe = fake.chatRequests().find((request) => request.role === 'generator')!;
		assert.equal(generatorProbe.body.max_tokens, 256, 'the role\'s maxTokens 4000 is capped for the probe');
		const allowed = await cli(dir, ['doctor', '--provider', 'vllm', '--base-url', fake.baseURL, '--model', 'Qwen/Qwen3-8B', '--allow-unchecked']);
		assert.equal(allowed.code, 0, allowed.stdout);
		assert.match(allowed.stdout, /judge\s.*unchecked/);
		assert.match(allowed.stdout, /No role fails; 1 role\(s\) could not be checked/);
		assert.doesNotMatch(allowed.stdout, /The set-up works/);
	});

	it('thinking text in the content gets the fix of the server it came from: llama.cpp\'s --reasoning-format, not vLLM\'s --reasoning-parser', async () => {
		const fake = await server({kind: 'llamacpp', thinking: 'content', nCtx: 16384});
		const dir = folder();
		const doctor = await cli(dir, ['doctor', '--base-url', fake.baseURL, '--model', 'local', '--json']);
		const report = parseJson<{warnings: string[]}>(doctor.stdout);
		const think = report.warnings.find((warning) => /carry thinking text/.test(warning)) ?? '';
		assert.match(think, /Start llama-server with --jinja --reasoning-format deepseek/);
		assert.doesNotMatch(think, /reasoning-parser/);
		assert.ok(!report.warnings.some((warning) => /was taken for/.test(warning)), 'llama-server says what it is in its model list: no guess to state');
	});

	it('a structured probe that fails only with the role\'s extraBody (a vLLM guided_json for another schema) says so', async () => {
		const script = scriptedModel();
		const fake = await server({kind: 'vllm'}, (request) => ((request.body as Record<string, unknown>)['guided_json'] ? {json: {other: 'shape'}} : script(request)));
		const dir = folder({roles: {judge: {extraBody: {guided_json: {type: 'object', properties: {other: {type: 'string'}}}}}}});
		const doctor = await cli(dir, ['doctor', '--provider', 'vllm', '--base-url', fake.baseURL, '--model', 'Qwen/Qwen3-8B', '--json']);
		assert.equal(doctor.code, 2);
		const report = parseJson<{roles: Array<{role: string; status: string; statusReason: string | null}>; problems: string[]}>(doctor.stdout);
		assert.deepEqual(report.roles.find((check) => check.role === 'judge')!.statusReason, 'fails with the role\'s extraBody, works without it');
		assert.ok(report.problems.some((problem) => /judge role's structured call \(auto\) fails with its extraBody \(guided_json\) and works without it/.test(problem)));
		assert.ok(report.roles.filter((check) => check.role !== 'judge').every((check) => check.status === 'works'));
	});
});

describe('the pieces', () => {
	it('a URL path never makes a preset: /openai/ is Groq\'s, Gemini\'s and gateways\' too; only documented hosts count', () => {
		assert.equal(guessPreset('https://api.groq.com/openai/v1'), 'groq');
		assert.equal(guessPreset('https://generativelanguage.googleapis.com/v1beta/openai/'), 'gemini');
		assert.equal(guessPreset('https://gateway.ai.cloudflare.com/v1/acct/gw/openai'), 'compatible');
		assert.equal(guessPreset('https://llm.corp.example/openai/v1'), 'compatible');
		assert.equal(guessPreset('https://myres.openai.azure.com/openai/deployments/x'), 'azure');
	});

	it('Azure URLs: the v1 API, the resource root and a pasted deployments URL with its api-version, never glued into a path', () => {
		assert.deepEqual(azureShape('https://res.openai.azure.com/openai/v1/', undefined), {kind: 'v1', baseURL: 'https://res.openai.azure.com/openai/v1'});
		assert.deepEqual(azureShape('https://res.openai.azure.com', undefined), {kind: 'deployments', endpoint: 'https://res.openai.azure.com', deployment: null, apiVersion: '2024-10-21'});
		assert.deepEqual(azureShape('https://res.openai.azure.com/openai/deployments/gpt5mini/chat/completions?api-version=2025-04-01-preview', '2024-06-01'), {kind: 'deployments', endpoint: 'https://res.openai.azure.com', deployment: 'gpt5mini', apiVersion: '2025-04-01-preview'});
		const settings = resolveRoleSettings({options: {provider: 'azure', baseUrl: 'https://res.openai.azure.com/openai/deployments/gpt5mini?api-version=2024-10-21'}, env: {AZURE_OPENAI_API_KEY: 'k'}, cwd: home});
		assert.equal(settings.roles.judge.model, 'gpt5mini', 'the deployment the URL names is the model');
		assert.throws(() => resolveRoleSettings({options: {provider: 'groc', model: 'x'}, env: {}, cwd: home}), /--provider 'groc' is not a provider this tool knows \(did you mean groq\?\)/);
		assert.throws(() => resolveRoleSettings({options: {provider: 'groq', model: 'llama-3.3-70b-versatile'}, env: {}, cwd: home}), /uses llama-3\.3-70b-versatile on Groq \(https:\/\/api\.groq\.com\/openai\/v1\) but no API key is set: set GROQ_API_KEY or OPENAI_API_KEY/);
		const groq = resolveRoleSettings({options: {provider: 'groq', model: 'llama-3.3-70b-versatile'}, env: {GROQ_API_KEY: 'gsk_x'}, cwd: home});
		assert.deepEqual([groq.roles.judge.baseURL, groq.apiKeyEnv.judge, groq.roles.judge.structured], ['https://api.groq.com/openai/v1', 'GROQ_API_KEY', 'auto']);
	});

	it('error bodies are classified from each provider\'s own fields', () => {
		assert.equal(classifyStatus(400, undefined, 0, {code: 'API_KEY_INVALID', type: 'INVALID_ARGUMENT'}, 'API key not valid. Please pass a valid API key.').kind, 'auth');
		assert.equal(classifyStatus(400, undefined, 0, {code: 'content_filter'}, 'The response was filtered').kind, 'content_filter');
		assert.equal(classifyStatus(403, undefined, 0, {code: 403, metadata: {reasons: ['violence']}}, 'Input was flagged').kind, 'content_filter');
		assert.equal(classifyStatus(400, undefined, 0, {type: 'exceed_context_size_error'}, 'request (3239 tokens) exceeds the available context size (3000 tokens), try increasing it').kind, 'context_length');
		const groq = classifyStatus(400, undefined, 0, {code: 'json_validate_failed', failed_generation: '{"a": 1'}, 'Failed to generate JSON.');
		assert.deepEqual([groq.kind, groq.failedGeneration], ['invalid_output', '{"a": 1']);
		assert.equal(classifyStatus(404, undefined, 0, {}, 'No endpoints found that can handle the requested parameters.').refused, 'routing');
		assert.equal(classifyStatus(400, undefined, 0, {}, 'This response_format type is unavailable now').refused, 'response_format');
		assert.equal(classifyStatus(400, undefined, 0, {}, "'n' : number must be at most 1").refused, 'n');
		assert.equal(classifyStatus(404, undefined, 0, {code: 'DeploymentNotFound'}, 'The API deployment for this resource does not exist.').kind, 'not_found');
	});

	it('Gemini thought summaries (<thought>) are thinking text, kept apart from the answer', () => {
		assert.deepEqual(splitReasoning('<thought>Weigh the fast days first.</thought>Plan: cook dal on Monday.'), {content: 'Plan: cook dal on Monday.', reasoning: 'Weigh the fast days first.'});
	});

	it('a local server\'s calls are free: no "unpriced models" notice, no billable tokens; a hosted unknown model is unpriced', () => {
		const call = (local: boolean): CallRecord => ({id: 'c', step: 1, role: 'judge', stage: 'judge:honesty', provider: 'openai', model: 'Qwen/Qwen3-8B', prompt: 'p', promptHash: 'h', responseFormat: 'json_schema', startedAt: '', latencyMs: 1, attempts: 1, retries: [], validationRetries: 0, tokens: {prompt: 100, completion: 20, total: 120}, cached: false, ok: true, error: null, request: [], response: '{}', ...(local ? {local: true} : {})});
		assert.doesNotMatch(formatUsage([call(true)]), /unpriced/);
		assert.match(formatUsage([call(true)]), /0 billable/);
		assert.match(formatUsage([call(false)]), /1 call\(s\) of unpriced models/);
	});
});
