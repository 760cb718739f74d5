import assert from 'node:assert/strict';
import {readSession} from '../src/store/sessionStore.js';
import {mkdtempSync, readFileSync, readdirSync, rmSync, writeFileSync} from 'node:fs';
import {tmpdir} from 'node:os';
import path from 'node:path';
import {after, describe, it} from 'node:test';
import {Session} from '../src/domain/session.js';
import {parseJson, runCli} from './helpers/cli.js';
import {type ProfiledServer, type ServerProfile, THINKING_MARK, startServer} from './helpers/serverProfiles.js';

/*
 * The model layer against servers that behave as OpenAI, vLLM, Ollama, llama.cpp and OpenRouter are
 * documented to (see test/helpers/serverProfiles.ts for the document each one follows), always
 * through the public CLI: what reaches transcripts, simulator and judge requests and exports, what
 * lands on call records, exit codes and messages.
 */

const SEED = 'my-tamil-hindu-a55-f:culinary.dietary-rules.02';
const servers: ProfiledServer[] = [];
const dirs: string[] = [];
after(async () => {
	await Promise.all(servers.map((server) => server.close()));
	for (const dir of dirs) rmSync(dir, {recursive: true, force: true});
});

async function server(profile: ServerProfile): Promise<ProfiledServer> {
	const started = await startServer(profile);
	servers.push(started);
	return started;
}

/** A working folder with a config that keeps retries quick; `config` is merged in. */
function folder(config: Record<string, unknown> = {}): string {
	const dir = mkdtempSync(path.join(tmpdir(), 'cc-servers-'));
	dirs.push(dir);
	writeFileSync(path.join(dir, 'cultureconverse.config.json'), JSON.stringify({retry: {maxAttempts: 2, baseDelayMs: 1, maxDelayMs: 5}, ...config}));
	return dir;
}

function cli(dir: string, args: string[], env: NodeJS.ProcessEnv = {}) {
	return runCli([...args, '--sessions-dir', path.join(dir, 'sessions')], {cwd: dir, env: {CULTURECONVERSE_HOME: path.join(dir, 'home'), ...env}});
}

function sessions(dir: string): Session[] {
	const folderPath = path.join(dir, 'sessions');
	return readdirSync(folderPath)
		.filter((file) => file.endsWith('.json') && !file.startsWith('.'))
		.map((file) => readSession(path.join(folderPath, file)));
}

/** Every text a model (simulator, judge, assistant...) was sent, joined. */
const sentText = (fake: ProfiledServer) => fake.chatRequests().map((request) => JSON.stringify(request.body.messages)).join('\n');

describe('thinking models: reasoning is separated, never lost', () => {
	for (const thinking of ['content', 'content-draft', 'close-only'] as const) {
		it(`vLLM without a reasoning parser (${thinking}): no <think> text in any transcript, request or export; kept on the call records`, async () => {
			const fake = await server({kind: 'vllm', thinking});
			const dir = folder();
			const run = await cli(dir, ['run', '--seed', SEED, '--model', 'Qwen/Qwen3-8B', '--base-url', fake.baseURL, '--json']);
			assert.equal(run.code, 0, run.stderr);
			const session = sessions(dir)[0]!;
			assert.equal(session.status, 'completed', JSON.stringify(session.error));
			for (const turn of session.turns) assert.ok(!turn.content.includes(THINKING_MARK) && !/<\/?think>/.test(turn.content), `turn ${turn.index} holds thinking text: ${turn.content.slice(0, 120)}`);
			assert.ok(!sentText(fake).includes(THINKING_MARK), 'thinking text reached a model request (simulator, judge, re-ask)');
			const withReasoning = session.calls.filter((call) => call.reasoning?.includes(THINKING_MARK));
			assert.equal(withReasoning.length, session.calls.length, 'every call record keeps the reasoning it carried');
			assert.ok(session.calls.every((call) => call.response === null || !call.response.includes(THINKING_MARK)));
			assert.ok(session.judge?.threeH !== null, 'structured calls parsed (the draft inside the thinking was not taken)');
			assert.ok(session.calls.every((call) => call.validationRetries === 0), 'no re-ask was needed: the draft was never read as the answer');
			const sft = await cli(dir, ['export', 'sft', '--mode', 'any', '--split', 'any', '--out', path.join(dir, 'sft.jsonl')]);
			assert.equal(sft.code, 0, sft.stderr);
			assert.ok(!readFileSync(path.join(dir, 'sft.jsonl'), 'utf8').includes(THINKING_MARK));
		});
	}

	it('vLLM with a reasoning parser: reasoning_content and reasoning fields are kept on the records, streamed and whole', async () => {
		for (const thinking of ['reasoning_content', 'reasoning'] as const) {
			const fake = await server({kind: 'vllm', thinking});
			const dir = folder({roles: {assistant: {supportsN: true}}});
			const run = await cli(dir, ['run', '--seed', SEED, '--model', 'Qwen/Qwen3-8B', '--base-url', fake.baseURL, '--best-of', '2', '--json']);
			assert.equal(run.code, 0, run.stderr);
			const session = sessions(dir)[0]!;
			assert.equal(session.status, 'completed');
			assert.ok(session.calls.filter((call) => call.role === 'judge').every((call) => call.reasoning?.includes(THINKING_MARK)), `${thinking}: judge calls keep the reasoning`);
			assert.ok(!sentText(fake).includes(THINKING_MARK));
			// Best-of-2 on a server that supports n: one assistant request per turn, two choices back.
			const assistantRequests = fake.chatRequests().filter((request) => request.role === 'assistant');
			const assistantTurns = session.turns.filter((turn) => turn.role === 'assistant');
			assert.equal(assistantRequests.length, assistantTurns.length, 'one request per turn with n=2');
			assert.ok(assistantRequests.every((request) => request.body['n'] === 2));
			assert.ok(assistantTurns.every((turn) => turn.candidates?.length === 2 && new Set(turn.candidates.map((candidate) => candidate.content)).size === 2));
		}
	});

	it('llama.cpp: any model name, json_schema without strict honoured, reasoning_content kept, n not assumed', async () => {
		const fake = await server({kind: 'llamacpp', thinking: 'reasoning_content'});
		const dir = folder();
		const run = await cli(dir, ['run', '--seed', SEED, '--model', 'local', '--base-url', fake.baseURL, '--best-of', '2', '--json']);
		assert.equal(run.code, 0, run.stderr);
		const session = sessions(dir)[0]!;
		assert.equal(session.status, 'completed');
		assert.ok(fake.chatRequests().some((request) => request.body.response_format?.type === 'json_schema'));
		const assistantTurns = session.turns.filter((turn) => turn.role === 'assistant').length;
		assert.equal(fake.chatRequests().filter((request) => request.role === 'assistant').length, assistantTurns * 2, 'no supportsN: two requests per best-of-2 turn');
	});
});

describe('Ollama: the README quick start', () => {
	it('runs as written with --model qwen3:8b; unstreamed usage is real, streamed usage counted by a tokenizer and marked estimated', async () => {
		const fake = await server({kind: 'ollama', thinking: 'reasoning'});
		const dir = folder();
		const run = await cli(dir, ['run', '--persona', 'my-tamil-hindu-a55-f', '--template', 'culinary.dietary-rules.02', '--model', 'qwen3:8b', '--json'], {OPENAI_BASE_URL: fake.baseURL});
		assert.equal(run.code, 0, run.stderr);
		const out = parseJson<{status: string; usage: {estimatedCalls: number}}>(run.stdout);
		assert.equal(out.status, 'completed');
		const session = sessions(dir)[0]!;
		const assistant = session.calls.filter((call) => call.role === 'assistant');
		assert.ok(assistant.length > 0 && assistant.every((call) => call.tokensEstimated === true && call.streamed === true && call.tokens.total > 0));
		assert.ok(session.calls.filter((call) => call.role === 'judge').every((call) => call.tokensEstimated !== true));
		assert.equal(out.usage.estimatedCalls, assistant.length);
		assert.ok(session.calls.some((call) => call.reasoning?.includes(THINKING_MARK)));
	});

	it('refuses an unnamed role and an unknown model before anything runs, naming role, model and what the server offers', async () => {
		const fake = await server({kind: 'ollama'});
		const dir = folder();
		const unnamed = await cli(dir, ['run', '--seed', SEED, '--assistant-model', 'qwen3:8b', '--base-url', fake.baseURL]);
		assert.equal(unnamed.code, 2);
		assert.match(unnamed.stderr, /No model is set for the generator, validator, simulator and judge roles on http:\/\/127\.0\.0\.1:\d+\/v1/);
		assert.match(unnamed.stderr, /--model NAME/);
		const unknown = await cli(dir, ['run', '--seed', SEED, '--model', 'qwen3:8b', '--judge-model', 'gpt-5-mini', '--base-url', fake.baseURL]);
		assert.equal(unknown.code, 2);
		assert.match(unknown.stderr, /The judge role's model 'gpt-5-mini' is not offered by http:\/\/127\.0\.0\.1:\d+\/v1; it offers: qwen3:8b\. Set --judge-model/);
		assert.equal(fake.chatRequests().length, 0, 'no model call was made');
	});

	it('a batch with an unknown model (preflight skipped) stops within 3 failed items with exit 2 and one message', async () => {
		const fake = await server({kind: 'ollama'});
		const dir = folder();
		const batch = await cli(dir, ['batch', '--name', 'nf', '--region', 'JP', '--sample', '12', '--parallel', '1', '--model', 'qwen3:8b', '--judge-model', 'gpt-5-mini', '--base-url', fake.baseURL, '--no-preflight']);
		assert.equal(batch.code, 2, batch.stderr);
		assert.match(batch.stderr, /Stopped: 3 items in a row failed the same way \(not_found, judge role\)/);
		assert.match(batch.stderr, /has no model 'gpt-5-mini' \(the judge role's\): set --judge-model/);
		assert.match(batch.stdout, /no episode completed/);
		const manifest = parseJson<{items: Array<{status: string}>}>(readFileSync(path.join(dir, 'sessions', 'batches', 'nf.json'), 'utf8'));
		assert.equal(manifest.items.filter((item) => item.status === 'error').length, 3);
		assert.equal(manifest.items.filter((item) => item.status === 'pending').length, 9, 'nothing more was started');
	});

	it('crisp build stops the same way on an unknown model', async () => {
		const fake = await server({kind: 'ollama'});
		const dir = folder();
		const build = await cli(dir, ['crisp', 'build', '--region', 'JP', '--limit', '8', '--chronotopes', '1', '--parallel', '1', '--model', 'qwen3:8b', '--generator-model', 'llama3:70b', '--base-url', fake.baseURL, '--no-preflight', '--items', path.join(dir, 'items.jsonl')]);
		assert.equal(build.code, 2, build.stderr);
		assert.match(build.stderr, /Stopped: 3 norms or items in a row failed the same way \(not_found, generator role\)/);
		assert.ok(fake.chatRequests().length <= 3, 'a 404 is not retried, and nothing more was started');
	});

	it('notices a prompt the server cut to its context window, once, and records it in the session', async () => {
		const fake = await server({kind: 'ollama', contextLength: 1024});
		const dir = folder();
		const run = await cli(dir, ['run', '--seed', SEED, '--model', 'qwen3:8b', '--base-url', fake.baseURL]);
		assert.equal(run.code, 0, run.stderr);
		const notices = sessions(dir)[0]!.notices ?? [];
		assert.ok(notices.some((notice) => /cutting prompts to fit its context window \(Ollama: set OLLAMA_CONTEXT_LENGTH/.test(notice.message)), JSON.stringify(notices));
		assert.equal(new Set(notices.map((notice) => `${notice.role}|${notice.message}`)).size, notices.length, 'each notice once');
	});
});

describe('OpenAI reasoning-model rules', () => {
	const KEY = 'sk-proj-test-0123456789abcdefghij';

	it('sends max_completion_tokens and drops a temperature the model would reject, with one notice recorded in the session', async () => {
		const fake = await server({kind: 'openai', key: KEY});
		const dir = folder({roles: {judge: {temperature: 0.2, maxTokens: 2000}, assistant: {temperature: 0.7, maxTokens: 800}}});
		const run = await cli(dir, ['run', '--seed', SEED, '--model', 'gpt-5-mini', '--base-url', fake.baseURL, '--json'], {OPENAI_API_KEY: KEY});
		assert.equal(run.code, 0, run.stderr);
		assert.match(run.stderr, /assistant: temperature 0\.7 is not sent: gpt-5-mini is a reasoning model/);
		const bodies = fake.chatRequests().map((request) => request.body as Record<string, unknown>);
		assert.ok(bodies.every((body) => !('max_tokens' in body) && !('temperature' in body)));
		assert.ok(bodies.filter((body) => body['max_completion_tokens'] === 800).length > 0);
		const session = sessions(dir)[0]!;
		assert.match(session.config.roles.assistant.notices?.[0] ?? '', /temperature 0\.7 is not sent/);
	});

	it('an organisation that may not stream: auto switches the assistant to whole replies once and finishes; stream forced on fails as a set-up error', async () => {
		const fake = await server({kind: 'openai', key: KEY, unverified: true});
		const dir = folder();
		const run = await cli(dir, ['run', '--seed', SEED, '--model', 'gpt-5-mini', '--base-url', fake.baseURL, '--json'], {OPENAI_API_KEY: KEY});
		assert.equal(run.code, 0, run.stderr);
		const session = sessions(dir)[0]!;
		assert.equal(session.status, 'completed');
		const refusedStreams = fake.chatRequests().filter((request) => request.body.stream === true);
		assert.equal(refusedStreams.length, 1, 'streaming was tried once, then never again');
		assert.ok(session.calls.filter((call) => call.role === 'assistant').every((call) => call.streamed === false));
		assert.equal((session.notices ?? []).filter((notice) => /refused to stream/.test(notice.message)).length, 1);

		const forced = folder({roles: {assistant: {stream: true}}});
		const failed = await cli(forced, ['run', '--seed', SEED, '--model', 'gpt-5-mini', '--base-url', fake.baseURL], {OPENAI_API_KEY: KEY});
		assert.equal(failed.code, 3);
		const errored = sessions(forced)[0]!;
		assert.deepEqual([errored.error?.flag, errored.error?.kind, errored.error?.role], ['ASSISTANT_ERROR', 'stream_refused', 'assistant']);
	});

	it('no quota: the batch stops within 3 items with exit 2, saying what to change', async () => {
		const fake = await server({kind: 'openai', key: KEY, quota: true});
		const dir = folder();
		const batch = await cli(dir, ['batch', '--name', 'q', '--region', 'KR', '--sample', '10', '--parallel', '2', '--model', 'gpt-5-mini', '--base-url', fake.baseURL], {OPENAI_API_KEY: KEY});
		assert.equal(batch.code, 2, batch.stderr);
		assert.match(batch.stderr, /Stopped: 3 items in a row failed the same way \(quota, generator role\)/);
		assert.match(batch.stderr, /The account behind OPENAI_API_KEY has no quota or credit left/);
		assert.ok(fake.chatRequests().length <= 4, `quota errors are not retried (${fake.chatRequests().length} requests)`);
		const manifest = parseJson<{items: Array<{status: string}>}>(readFileSync(path.join(dir, 'sessions', 'batches', 'q.json'), 'utf8'));
		assert.ok(manifest.items.filter((item) => item.status === 'error').length <= 4);
		assert.match(batch.stdout, /no episode completed/);
	});

	it('a bad key stops the run before it starts; the key never reaches a file, --json or stderr, even when the server echoes it', async () => {
		const fake = await server({kind: 'openai', key: KEY});
		const dir = folder();
		const wrongKey = 'sk-proj-WRONG-9f8e7d6c5b4a39281706';
		const bad = await cli(dir, ['run', '--seed', SEED, '--model', 'gpt-5-mini', '--base-url', fake.baseURL], {OPENAI_API_KEY: wrongKey});
		assert.equal(bad.code, 2);
		assert.match(bad.stderr, /refused the API key .*HTTP 401.*Set a valid key in the environment variable OPENAI_API_KEY/);

		const echo = await server({kind: 'key-echo'});
		const echoDir = folder();
		const run = await cli(echoDir, ['run', '--seed', SEED, '--model', 'any', '--base-url', echo.baseURL, '--no-preflight', '--json'], {OPENAI_API_KEY: wrongKey});
		assert.equal(run.code, 3);
		const everything = [run.stdout, run.stderr, ...readdirSync(path.join(echoDir, 'sessions')).filter((file) => file.endsWith('.json')).map((file) => readFileSync(path.join(echoDir, 'sessions', file), 'utf8'))].join('\n');
		assert.ok(everything.includes('Incorrect API key provided'), 'the server message is kept');
		assert.ok(!everything.includes(wrongKey) && !everything.includes('WRONG-9f8e'), 'the key is masked everywhere');
		const session = sessions(echoDir)[0]!;
		assert.deepEqual([session.error?.flag, session.error?.kind], ['GENERATION_ERROR', 'auth']);
		assert.doesNotMatch(session.error!.message, /HTTP 401: 401/, 'the status is said once');
	});
});

describe('OpenRouter', () => {
	it('vendor-prefixed models, reasoning in its own field, effort as reasoning.effort, max_tokens; a 402 is a quota failure', async () => {
		const KEY = 'sk-or-v1-abcdefabcdefabcdefabcdef';
		const fake = await server({kind: 'openrouter', key: KEY});
		// A loopback server has no openrouter.ai host, so the dialect is named (as for a proxy in front of OpenRouter).
		const dir = folder({dialect: 'openrouter', roles: {judge: {reasoningEffort: 'low', maxTokens: 3000}}});
		const run = await cli(dir, ['run', '--seed', SEED, '--model', 'qwen/qwen3-8b', '--judge-model', 'openai/gpt-5-mini', '--base-url', fake.baseURL], {OPENAI_API_KEY: KEY});
		assert.equal(run.code, 0, run.stderr);
		const judge = fake.chatRequests().filter((request) => request.role === 'judge').map((request) => request.body as Record<string, unknown>);
		assert.ok(judge.every((body) => (body['reasoning'] as {effort?: string})?.effort === 'low' && body['max_tokens'] === 3000 && !('reasoning_effort' in body)));
		assert.ok(sessions(dir)[0]!.calls.some((call) => call.reasoning?.includes(THINKING_MARK)));
		const broke = await server({kind: 'openrouter', key: KEY, credits: false});
		const brokeDir = folder({dialect: 'openrouter'});
		const failed = await cli(brokeDir, ['run', '--seed', SEED, '--model', 'qwen/qwen3-8b', '--base-url', broke.baseURL], {OPENAI_API_KEY: KEY});
		assert.equal(failed.code, 3);
		assert.equal(sessions(brokeDir)[0]!.error?.kind, 'quota');
	});
});
