import assert from 'node:assert/strict';
import {mkdtempSync, rmSync, writeFileSync} from 'node:fs';
import {tmpdir} from 'node:os';
import path from 'node:path';
import {after, before, describe, it} from 'node:test';
import {parseJson, runCli} from './helpers/cli.js';
import {type ProfiledServer, startServer} from './helpers/serverProfiles.js';

/*
 * `doctor` against a set-up with one misconfiguration per role, each on a server that behaves as the
 * real one is documented to (test/helpers/serverProfiles.ts names the documents): one run must name
 * every one of them, with what to change.
 */

const KEY = 'sk-proj-doctor-0123456789abcdef';
let ollama: ProfiledServer;
let vllm: ProfiledServer;
let openai: ProfiledServer;
let quota: ProfiledServer;
let dir: string;

before(async () => {
	[ollama, vllm, openai, quota] = await Promise.all([startServer({kind: 'ollama'}), startServer({kind: 'vllm', thinking: 'content'}), startServer({kind: 'openai', key: KEY, unverified: true}), startServer({kind: 'openai', key: KEY, quota: true})]);
	dir = mkdtempSync(path.join(tmpdir(), 'cc-doctor-'));
});
after(async () => {
	await Promise.all([ollama, vllm, openai, quota].map((server) => server.close()));
	rmSync(dir, {recursive: true, force: true});
});

type Report = {roles: Array<{role: string; status: string; listed: unknown; structured: {ok: boolean} | null; streaming: string | null; reasoning: string | null; supportsN: boolean | null; contextWindow: number | null; server: string}>; problems: string[]; warnings: string[]};

describe('doctor', () => {
	it('names every misconfiguration of a five-role set-up in one run, and exits 2', async () => {
		writeFileSync(
			path.join(dir, 'cultureconverse.config.json'),
			JSON.stringify({
				roles: {
					generator: {model: 'qwen3:8b', baseURL: ollama.baseURL},
					validator: {model: 'Qwen/Qwen3-8B', baseURL: vllm.baseURL},
					simulator: {model: 'gpt-5-mini', baseURL: ollama.baseURL},
					assistant: {model: 'gpt-5-mini', baseURL: openai.baseURL, temperature: 0.7},
					judge: {model: 'gpt-5-mini', baseURL: openai.baseURL, apiKeyEnv: 'JUDGE_KEY'},
				},
			}),
		);
		const result = await runCli(['doctor', '--json'], {cwd: dir, env: {OPENAI_API_KEY: KEY, JUDGE_KEY: 'sk-proj-not-the-right-one-0000'}});
		assert.equal(result.code, 2, result.stderr);
		const report = parseJson<Report>(result.stdout);
		const all = [...report.problems, ...report.warnings].join('\n');
		const byRole = Object.fromEntries(report.roles.map((check) => [check.role, check]));
		// The simulator asks Ollama for a model it does not have.
		assert.match(all, /The simulator role's model 'gpt-5-mini' is not offered by .*; it offers: qwen3:8b/);
		assert.equal(byRole['simulator']!.listed, false);
		// The judge's key is refused.
		assert.match(all, /refused the API key \(judge role\).*JUDGE_KEY/);
		// Ollama's default context is too small for the judge and blueprint prompts.
		assert.equal(byRole['generator']!.server, 'ollama');
		assert.equal(byRole['generator']!.contextWindow, 4096);
		assert.match(all, /generator role's model qwen3:8b runs with a 4096-token context .*OLLAMA_CONTEXT_LENGTH=16384/);
		// vLLM without a reasoning parser leaves <think> in the content.
		assert.equal(byRole['validator']!.reasoning, 'in content');
		assert.match(all, /validator role's replies carry thinking text .*--reasoning-parser qwen3/);
		// OpenAI: the temperature is dropped for a reasoning model, and streaming is refused to an unverified organisation.
		assert.match(all, /assistant: temperature 0\.7 is not sent: gpt-5-mini is a reasoning model/);
		assert.equal(byRole['assistant']!.streaming, 'refused');
		assert.match(all, /refuses to stream gpt-5-mini for this account/);
		// The assistant's run mode is a streamed reply (then whole, once refused): it works; the others fail as named.
		assert.equal(byRole['assistant']!.structured, null);
		assert.deepEqual(Object.fromEntries(report.roles.map((check) => [check.role, check.status])), {generator: 'works', validator: 'works', simulator: 'fails', assistant: 'works', judge: 'fails'});
		assert.equal(byRole['assistant']!.supportsN, true);
		assert.match(all, /best-of-N will ask once per turn with n \(recorded for this endpoint\)/);
		// A server that does not say what it is (this OpenAI imitation's list has no server marker) is a guess
		// worth a --provider; Ollama and vLLM said what they are, so nothing is said about them.
		assert.match(all, /\(the assistant, judge roles' endpoint\) was taken for an OpenAI-compatible server of no known kind: set --provider NAME/);
		assert.equal((all.match(/was taken for/g) ?? []).length, 1, all);
	});

	it('names an unset role and a spent quota; a working set-up exits 0 with a table', async () => {
		const unset = await runCli(['doctor', '--assistant-model', 'qwen3:8b', '--base-url', ollama.baseURL, '--json'], {cwd: mkdtempSync(path.join(dir, 'u-'))});
		assert.equal(unset.code, 2);
		const unsetReport = parseJson<Report>(unset.stdout);
		assert.ok(unsetReport.problems.some((problem) => /The judge role has no model/.test(problem)), unsetReport.problems.join('\n'));
		const spent = await runCli(['doctor', '--model', 'gpt-5-mini', '--base-url', quota.baseURL, '--json'], {cwd: mkdtempSync(path.join(dir, 'q-')), env: {OPENAI_API_KEY: KEY}});
		assert.equal(spent.code, 2);
		assert.ok(parseJson<Report>(spent.stdout).problems.some((problem) => /no quota or credit left/.test(problem)));
		const good = await runCli(['doctor', '--model', 'Qwen/Qwen3-8B', '--base-url', vllm.baseURL], {cwd: mkdtempSync(path.join(dir, 'g-'))});
		assert.equal(good.code, 0, good.stdout + good.stderr);
		assert.match(good.stdout, /ROLE\s+MODEL\s+ENDPOINT\s+SERVER/);
		// The server says what it is in its model list (owned_by "vllm"): not a guess, so no "?" and no advice to set --provider.
		assert.match(good.stdout, /judge\s+Qwen\/Qwen3-8B\s+http:\/\/127\.0\.0\.1:\d+\/v1\s+vllm\s+yes\s+yes\s+yes\s+works\s+ok \(json_schema_strict\)/);
		assert.doesNotMatch(good.stdout, /taken for/);
		assert.match(good.stdout, /The set-up works: every role answered a real call in the mode the run will use, with \d+ warning/);
	});
});
