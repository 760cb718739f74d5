import assert from 'node:assert/strict';
import {readFileSync} from 'node:fs';
import {createServer} from 'node:net';
import path from 'node:path';
import {after, describe, it} from 'node:test';
import type {CallRecord, Session} from '../src/domain/session.js';
import {parseJson} from './helpers/cli.js';
import {cliWorkspace} from './helpers/cliWorkspace.js';
import type {FakeOpenAI, FakeRequest} from './helpers/fakeOpenAI.js';
import {type ProviderName, startProvider} from './helpers/providerProfiles.js';
import {THINKING_MARK, startServer} from './helpers/serverProfiles.js';

/*
 * The "Providers" table of docs/providers.md, one row per provider, each against a loopback server
 * that imitates that provider's documentation (the document is named on each profile, in
 * test/helpers/providerProfiles.ts and serverProfiles.ts), always through the real CLI and with only
 * the row's settings (plus the loopback base URL): `doctor` shows every role working, `run` completes
 * in the mode doctor recorded, a 3-seed `batch` completes; a wrong model, a wrong key and an
 * unreachable server stop with exit 2, the provider's own words and the fix.
 */

const SEED = 'my-tamil-hindu-a55-f:culinary.dietary-rules.02';
const FAST = ['--max-turns', '2', '--judge-mode', 'combined'];
const servers: FakeOpenAI[] = [];
// One workspace for every row: the KB indexes are built once, and the record of what each server
// accepts is keyed by endpoint and model, so rows (each on its own port) never share an entry.
const workspace = cliWorkspace({prefix: 'cc-providers-'});
const {home, folder, cli, sessions} = workspace;
after(async () => {
	await Promise.all(servers.map((server) => server.close()));
	workspace.cleanup();
});

type Started = {readonly server: FakeOpenAI; readonly baseURL: string; readonly key: string; readonly model: string};

type Row = {
	readonly provider: string;
	readonly start: () => Promise<Started>;
	/** The env var the row says to set for the key (null: a keyless local server). */
	readonly keyEnv: string | null;
	/** Config file content the row says to write, if any. */
	readonly config?: Record<string, unknown>;
	/** The structured mode doctor must find (and runs must then use). */
	readonly mode: string;
	/** A wrong model and what the stop message must say (null: the server serves any name). */
	readonly wrongModel: {readonly model: string; readonly says: RegExp} | null;
	/** What the stop message for a wrong key must say (the provider's own words). */
	readonly wrongKey?: RegExp;
	/** Extra checks of the run: the requests the server saw, the session. */
	readonly check?: (requests: readonly FakeRequest[], session: Session) => void;
};

const provider = (name: ProviderName) => async (): Promise<Started> => {
	const server = await startProvider(name);
	return {server, baseURL: server.userBaseURL, key: server.key, model: server.model};
};
const profile = (make: () => ReturnType<typeof startServer>, model: string, key = '') => async (): Promise<Started> => {
	const server = await make();
	return {server, baseURL: server.baseURL, key, model};
};
const structuredBodies = (requests: readonly FakeRequest[]) => requests.filter((request) => request.role !== 'assistant').map((request) => request.body);
const noThinking = (session: Session) => {
	for (const turn of session.turns) assert.ok(!turn.content.includes(THINKING_MARK) && !/<\/?(think|thought)>/.test(turn.content), `turn ${turn.index} holds thinking text: ${turn.content.slice(0, 100)}`);
	assert.ok(session.calls.some((call) => call.reasoning?.includes(THINKING_MARK)), 'the thinking is kept on the call records');
};

const ROWS: readonly Row[] = [
	{
		provider: 'openai',
		start: profile(() => startServer({kind: 'openai', key: 'sk-proj-rows-0123456789abcdefghij'}), 'gpt-5-mini', 'sk-proj-rows-0123456789abcdefghij'),
		keyEnv: 'OPENAI_API_KEY',
		mode: 'json_schema_strict',
		wrongModel: {model: 'gpt-9-mini', says: /model 'gpt-9-mini' is not offered by .*it offers: gpt-5-mini/},
		wrongKey: /HTTP 401: Incorrect API key provided/,
		check: (requests) => assert.ok(structuredBodies(requests).every((body) => body.response_format?.json_schema?.strict === true)),
	},
	{
		provider: 'azure',
		start: provider('azure'),
		keyEnv: 'AZURE_OPENAI_API_KEY',
		// A deployment's name says nothing of its model: the row says the family.
		config: {family: 'reasoning', roles: {assistant: {temperature: 0.7}}},
		mode: 'json_schema_strict',
		wrongModel: {model: 'gpt-5-mini', says: /HTTP 404: The API deployment for this resource does not exist.*the model is the deployment's name/},
		wrongKey: /HTTP 401: Access denied due to invalid subscription key/,
		check: (requests) => {
			assert.ok(requests.every((request) => request.path === '/openai/deployments/gpt5mini/chat/completions' && request.query.get('api-version') === '2024-10-21' && request.headers['api-key'] !== undefined));
			assert.ok(requests.every((request) => !('temperature' in request.body) && !('max_tokens' in request.body)), 'a reasoning deployment gets no temperature and no max_tokens');
		},
	},
	{
		provider: 'azure-v1',
		start: provider('azure-v1'),
		keyEnv: 'AZURE_OPENAI_API_KEY',
		config: {family: 'reasoning'},
		mode: 'json_schema_strict',
		wrongModel: {model: 'gpt-5-mini', says: /HTTP 404: The API deployment for this resource does not exist/},
		wrongKey: /HTTP 401: Access denied/,
		check: (requests) => assert.ok(requests.every((request) => request.path === '/openai/v1/chat/completions' && request.body.model === 'gpt5mini' && request.headers['api-key'] !== undefined)),
	},
	{
		provider: 'gemini',
		start: provider('gemini'),
		keyEnv: 'GEMINI_API_KEY',
		mode: 'json_schema',
		wrongModel: {model: 'gemini-9-flash', says: /model 'gemini-9-flash' is not offered by .*it offers: gemini-2\.5-flash, gemini-2\.5-pro/},
		wrongKey: /HTTP 400: API key not valid\. Please pass a valid API key\..*GEMINI_API_KEY/,
		check: (requests, session) => {
			noThinking(session);
			assert.ok(structuredBodies(requests).every((body) => body.response_format?.type === 'json_schema' && body.response_format.json_schema?.strict === false));
		},
	},
	{
		provider: 'groq',
		start: provider('groq'),
		keyEnv: 'GROQ_API_KEY',
		mode: 'json_schema',
		wrongModel: {model: 'llama-9-70b', says: /model 'llama-9-70b' is not offered/},
		wrongKey: /HTTP 401: Invalid API Key.*GROQ_API_KEY/,
		check: (requests, session) => {
			assert.ok(requests.every((request) => request.body.response_format?.json_schema?.strict !== true), 'strict json_schema, refused at doctor time, is not tried again');
			const blueprint = session.calls.find((call) => call.stage === 'blueprint')!;
			assert.equal(blueprint.validationRetries, 1, 'json_validate_failed was re-asked, not the end of the episode');
			assert.deepEqual(blueprint.attemptStatuses, [400]);
		},
	},
	{
		provider: 'together',
		start: provider('together'),
		keyEnv: 'TOGETHER_API_KEY',
		mode: 'json_schema',
		wrongModel: {model: 'meta-llama/Llama-9', says: /is not offered by .*it offers: meta-llama\/Llama-3\.3-70B-Instruct-Turbo/},
		wrongKey: /HTTP 401: Invalid API key provided/,
	},
	{
		provider: 'fireworks',
		start: provider('fireworks'),
		keyEnv: 'FIREWORKS_API_KEY',
		mode: 'json_schema',
		wrongModel: {model: 'accounts/fireworks/models/nothing', says: /is not offered by .*it offers: accounts\/fireworks\/models\/deepseek-r1/},
		wrongKey: /HTTP 401: The API key you provided is invalid/,
		check: (_requests, session) => noThinking(session),
	},
	{
		provider: 'deepseek',
		start: provider('deepseek'),
		keyEnv: 'DEEPSEEK_API_KEY',
		mode: 'json_object',
		wrongModel: {model: 'deepseek-v9', says: /model 'deepseek-v9' is not offered .*it offers: deepseek-chat, deepseek-reasoner/},
		wrongKey: /HTTP 401: Authentication Fails/,
		check: (requests) => assert.ok(structuredBodies(requests).every((body) => body.response_format?.type === 'json_object'), 'no structured role needs a hand-set mode'),
	},
	{
		provider: 'anthropic',
		start: provider('anthropic'),
		keyEnv: 'ANTHROPIC_API_KEY',
		mode: 'prompt',
		wrongModel: {model: 'claude-nonsense-9', says: /model 'claude-nonsense-9' is not offered .*it offers: claude-sonnet-4-5-20250929/},
		wrongKey: /HTTP 401: invalid x-api-key/,
		check: (requests) => assert.ok(requests.every((request) => request.body.response_format === undefined), 'prompt-only: response_format, which Anthropic ignores, is not sent'),
	},
	{
		provider: 'openrouter',
		start: profile(() => startServer({kind: 'openrouter', key: 'sk-or-v1-rowsrowsrowsrowsrowsrows'}), 'qwen/qwen3-8b', 'sk-or-v1-rowsrowsrowsrowsrowsrows'),
		keyEnv: 'OPENROUTER_API_KEY',
		mode: 'json_schema_strict',
		wrongModel: {model: 'qwen/qwen9', says: /model 'qwen\/qwen9' is not offered/},
		wrongKey: /HTTP 401: No auth credentials found/,
		check: (_requests, session) => noThinking(session),
	},
	{
		provider: 'vllm',
		start: profile(() => startServer({kind: 'vllm', thinking: 'reasoning'}), 'Qwen/Qwen3-8B'),
		keyEnv: null,
		mode: 'json_schema_strict',
		wrongModel: {model: 'Qwen/Qwen9', says: /model 'Qwen\/Qwen9' is not offered .*it offers: Qwen\/Qwen3-8B/},
		check: (_requests, session) => noThinking(session),
	},
	{
		provider: 'ollama',
		start: profile(() => startServer({kind: 'ollama', contextLength: 16384}), 'qwen3:8b'),
		keyEnv: null,
		mode: 'json_schema_strict',
		wrongModel: {model: 'llama9', says: /model 'llama9' is not offered .*it offers: qwen3:8b/},
	},
	{
		provider: 'llamacpp',
		start: profile(() => startServer({kind: 'llamacpp', thinking: 'reasoning_content', nCtx: 16384}), 'local'),
		keyEnv: null,
		mode: 'json_schema_strict',
		wrongModel: null,
	},
	{
		provider: 'lmstudio',
		start: provider('lmstudio'),
		keyEnv: null,
		mode: 'json_schema_strict',
		wrongModel: {model: 'qwen9', says: /model 'qwen9' is not offered .*it offers: qwen2\.5-7b-instruct/},
		check: (requests) => assert.ok(requests.every((request) => request.body.response_format?.type !== 'json_object'), 'LM Studio refuses json_object: never sent'),
	},
];

async function closedPort(): Promise<number> {
	const server = createServer();
	await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
	const port = (server.address() as {port: number}).port;
	await new Promise<void>((resolve) => server.close(() => resolve()));
	return port;
}

type DoctorJson = {roles: Array<{role: string; status: string; auth: boolean | null; server: string; serverGuessed: boolean; structured: {mode: string} | null; statusReason: string | null}>; problems: string[]; warnings: string[]};

for (const row of ROWS) {
	describe(`provider ${row.provider}`, () => {
		let started: Started;
		const presetName = row.provider === 'azure-v1' ? 'azure' : row.provider;
		const flags = (model = started.model, baseURL = started.baseURL) => ['--provider', presetName, '--base-url', baseURL, '--model', model];
		const env = (key = started.key): NodeJS.ProcessEnv => (row.keyEnv ? {[row.keyEnv]: key} : {});

		it('doctor shows every role working; run and a 3-seed batch then complete in the mode doctor recorded', async () => {
			started = await row.start();
			servers.push(started.server);
			const dir = folder(row.config);
			const doctor = await cli(dir, ['doctor', ...flags(), '--json'], env());
			const report = parseJson<DoctorJson>(doctor.stdout);
			assert.equal(doctor.code, 0, `${report.problems.join('\n')}\n${report.warnings.join('\n')}\n${JSON.stringify(report.roles.map((check) => [check.role, check.status, check.statusReason]))}`);
			assert.ok(report.roles.every((check) => check.status === 'works' && check.server === presetName && !check.serverGuessed));
			assert.ok(report.roles.filter((check) => check.role !== 'assistant').every((check) => check.structured?.mode === row.mode), JSON.stringify(report.roles.map((check) => check.structured)));
			const recorded = parseJson<{entries: Record<string, {baseURL: string; structured?: string}>}>(readFileSync(path.join(home, 'capabilities.json'), 'utf8'));
			const mine = Object.values(recorded.entries).filter((entry) => entry.baseURL === started.baseURL);
			assert.ok(mine.length > 0 && mine.every((entry) => entry.structured === undefined || entry.structured === row.mode), JSON.stringify(mine));

			started.server.reset();
			const run = await cli(dir, ['run', '--seed', SEED, ...flags(), ...FAST, '--json'], env());
			assert.equal(run.code, 0, run.stderr);
			const [session] = sessions(dir);
			assert.equal(session!.status, 'completed', JSON.stringify(session!.error));
			const structured = session!.calls.filter((call: CallRecord) => call.responseFormat !== 'text');
			assert.ok(structured.length > 0 && structured.every((call) => call.structuredMode === row.mode), `every structured call in ${row.mode}: ${structured.map((call) => call.structuredMode).join(', ')}`);
			assert.ok(session!.calls.every((call) => !call.retries.some((retry) => /refused/.test(retry.reason))), 'nothing doctor found is tried and refused again');
			row.check?.(started.server.chatRequests(), session!);

			const batchDir = folder(row.config);
			const batch = await cli(batchDir, ['batch', '--name', 'rows', '--region', 'JP', '--sample', '3', '--parallel', '2', ...flags(), ...FAST], env());
			assert.equal(batch.code, 0, batch.stderr);
			assert.deepEqual(sessions(batchDir).map((one) => one.status), ['completed', 'completed', 'completed']);
		});

		it('a wrong model, a wrong key and an unreachable server stop with exit 2, the provider\'s own words and the fix', async () => {
			const dir = folder(row.config);
			if (row.wrongModel) {
				const wrong = await cli(dir, ['run', '--seed', SEED, ...flags(row.wrongModel.model), ...FAST], env());
				assert.equal(wrong.code, 2, wrong.stderr);
				assert.match(wrong.stderr.replace(/\n\s*/g, ' '), row.wrongModel.says);
				assert.match(wrong.stderr, /--model|--generator-model/);
			}
			if (row.keyEnv && row.wrongKey) {
				const wrong = await cli(dir, ['run', '--seed', SEED, ...flags(), ...FAST], env('wrong-key-0000000000000000'));
				assert.equal(wrong.code, 2, wrong.stderr);
				assert.match(wrong.stderr.replace(/\n\s*/g, ' '), row.wrongKey);
				assert.match(wrong.stderr, new RegExp(`refused the API key .*Set a valid key in the environment variable ${row.keyEnv}`));
				assert.ok(!wrong.stderr.includes('wrong-key-0000000000000000'), 'the key is masked');
			}
			const port = await closedPort();
			const unreachable = await cli(dir, ['run', '--seed', SEED, ...flags(started.model, started.baseURL.replace(/:\d+/, `:${port}`)), ...FAST], env());
			assert.equal(unreachable.code, 2, unreachable.stderr);
			assert.match(unreachable.stderr, /Cannot reach http:\/\/127\.0\.0\.1:\d+/);
			const doctor = await cli(dir, ['doctor', ...flags(started.model, started.baseURL.replace(/:\d+/, `:${port}`)), '--json'], env());
			assert.equal(doctor.code, 2);
			const report = parseJson<DoctorJson>(doctor.stdout);
			assert.ok(report.roles.every((check) => check.status === 'unchecked' && check.auth === null), 'an unreachable server: unchecked, and the key unknown (never "NO")');
		});
	});
}
