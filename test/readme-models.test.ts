import assert from 'node:assert/strict';
import {mkdtempSync, readFileSync, rmSync, writeFileSync} from 'node:fs';
import {tmpdir} from 'node:os';
import path from 'node:path';
import {after, describe, it} from 'node:test';
import {fileURLToPath} from 'node:url';
import {ConfigFile} from '../src/llm/config.js';
import {runCli} from './helpers/cli.js';
import {type ProfiledServer, type ServerProfile, startServer} from './helpers/serverProfiles.js';

/*
 * The manual's model examples, typed as written: each `npx cultureconverse ...` line of a server's
 * section (the README's set-up, the per-server sections of docs/providers.md) runs against a loopback
 * server that behaves as that server is documented to, with the section's own `export` lines as its
 * environment (only the host and key are swapped for the loopback's). Every JSON config example must
 * validate.
 */

const REPO = path.join(path.dirname(fileURLToPath(import.meta.url)), '..');
const README = readFileSync(path.join(REPO, 'README.md'), 'utf8');
const PROVIDERS = readFileSync(path.join(REPO, 'docs', 'providers.md'), 'utf8');
const KEY = 'sk-readme-0123456789abcdefghij';
const servers: ProfiledServer[] = [];
const dirs: string[] = [];
after(async () => {
	await Promise.all(servers.map((server) => server.close()));
	for (const dir of dirs) rmSync(dir, {recursive: true, force: true});
});

/** The ```sh blocks of the section under `heading` in `page`. */
function shellBlocks(page: {name: string; text: string}, heading: string): string[] {
	const start = page.text.indexOf(`\n${heading}\n`);
	assert.ok(start !== -1, `${page.name} has a "${heading}" section`);
	const end = page.text.slice(start + heading.length + 2).search(/\n#{2,3} /);
	const section = page.text.slice(start, end === -1 ? undefined : start + heading.length + 2 + end);
	return [...section.matchAll(/```sh\n([\s\S]*?)```/g)].map((match) => match[1]!);
}

/** Splits a shell line into words (quotes kept simple: the examples use none inside commands). */
const words = (line: string) => line.replace(/\s+#.*$/, '').trim().split(/\s+/);

async function runSection(page: {name: string; text: string}, heading: string, profile: ServerProfile, host: RegExp, setup: {openaiOnLoopback?: boolean} = {}): Promise<Array<{line: string; code: number; stderr: string}>> {
	const server = await startServer(profile);
	servers.push(server);
	const dir = mkdtempSync(path.join(tmpdir(), 'cc-readme-'));
	dirs.push(dir);
	const env: NodeJS.ProcessEnv = {CULTURECONVERSE_HOME: path.join(dir, 'home')};
	if (setup.openaiOnLoopback) {
		// The OpenAI section names no host: the loopback stands in for api.openai.com, with OpenAI's rules.
		env['OPENAI_BASE_URL'] = server.baseURL;
		writeFileSync(path.join(dir, 'cultureconverse.config.json'), JSON.stringify({dialect: 'openai'}));
	}
	const results: Array<{line: string; code: number; stderr: string}> = [];
	for (const block of shellBlocks(page, heading)) {
		for (const raw of block.split('\n').map((line) => line.trim()).filter(Boolean)) {
			const line = raw.replace(host, server.baseURL);
			if (line.startsWith('export ')) {
				for (const assignment of words(line).slice(1)) {
					const [name, ...value] = assignment.split('=');
					env[name!] = name === 'OPENAI_API_KEY' ? KEY : value.join('=');
				}
				continue;
			}
			if (!line.startsWith('npx cultureconverse ')) continue;
			const result = await runCli([...words(line).slice(2), '--sessions-dir', path.join(dir, 'sessions')], {cwd: dir, env});
			results.push({line: raw, code: result.code, stderr: result.stderr});
		}
	}
	assert.ok(results.length > 0, `${heading} has commands`);
	return results;
}

describe('README and docs/providers.md: model examples as written', () => {
	const readme = {name: 'README.md', text: README};
	const providers = {name: 'docs/providers.md', text: PROVIDERS};
	const cases: Array<[{name: string; text: string}, string, ServerProfile, RegExp, boolean]> = [
		[readme, '## Set-up on a fresh machine (Node 20)', {kind: 'ollama', thinking: 'content'}, /http:\/\/localhost:11434\/v1/, false],
		[providers, '### Ollama', {kind: 'ollama', thinking: 'reasoning'}, /http:\/\/localhost:11434\/v1/, false],
		[providers, '### vLLM', {kind: 'vllm', thinking: 'reasoning_content'}, /http:\/\/localhost:8000\/v1/, false],
		[providers, '### OpenAI', {kind: 'openai', key: KEY}, /$^/, true],
		[providers, '### llama.cpp', {kind: 'llamacpp'}, /http:\/\/localhost:8080\/v1/, false],
	];
	for (const [page, heading, profile, host, openaiOnLoopback] of cases) {
		it(`${page.name} ${heading.replace(/^#+ /, '')}: every command of the section runs against a ${profile.kind}-like server`, async () => {
			const results = await runSection(page, heading, profile, host, {openaiOnLoopback});
			for (const result of results) assert.equal(result.code, 0, `${result.line}\n${result.stderr}`);
		});
	}

	it('OpenRouter: the commands run against an OpenRouter-like server', async () => {
		const results = await runSection(providers, '### OpenRouter', {kind: 'openrouter', key: KEY}, /https:\/\/openrouter\.ai\/api\/v1/, {});
		for (const result of results) assert.equal(result.code, 0, `${result.line}\n${result.stderr}`);
	});

	it('every JSON config example validates against the config schema', () => {
		const blocks = [...`${README}\n${PROVIDERS}`.matchAll(/```json\n([\s\S]*?)```/g)].map((match) => match[1]!).filter((text) => /"roles"|"baseURL"|"model"/.test(text));
		assert.ok(blocks.length > 0);
		for (const block of blocks) {
			const parsed = ConfigFile.safeParse(JSON.parse(block));
			assert.ok(parsed.success, `${block}\n${JSON.stringify(parsed.error?.issues)}`);
		}
	});
});
