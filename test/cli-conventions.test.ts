import assert from 'node:assert/strict';
import {spawn, spawnSync} from 'node:child_process';
import {mkdtempSync, readFileSync, readdirSync, rmSync, writeFileSync} from 'node:fs';
import {tmpdir} from 'node:os';
import path from 'node:path';
import {after, describe, it} from 'node:test';
import {fileURLToPath} from 'node:url';
import {runCli} from './helpers/cli.js';
import {defaultReply} from './helpers/fakeOpenAI.js';
import {scriptedModel} from './helpers/scriptedModel.js';
import {type ProfiledServer, startServer} from './helpers/serverProfiles.js';

/* What a user expects of any command-line tool: help per command, signals, colour, exit codes. */

const REPO = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..');
// tsx by its file URL, so the binary also starts from a working folder outside the repository.
const CLI = ['--import', import.meta.resolve('tsx'), path.join(REPO, 'src', 'cli.tsx')];
const servers: ProfiledServer[] = [];
const dirs: string[] = [];
after(async () => {
	await Promise.all(servers.map((server) => server.close()));
	for (const dir of dirs) rmSync(dir, {recursive: true, force: true});
});
// One workspace for the file: KB indexes are built once, not by every test.
const HOME = mkdtempSync(path.join(tmpdir(), 'cc-conv-home-'));
dirs.push(HOME);
const scratch = () => {
	const dir = mkdtempSync(path.join(tmpdir(), 'cc-conv-'));
	dirs.push(dir);
	return dir;
};

describe('command-line conventions', () => {
	it('`help <command>` and `<command> --help` show that command; an unknown one has near matches', async () => {
		const viaHelp = await runCli(['help', 'doctor']);
		const viaFlag = await runCli(['doctor', '--help']);
		assert.equal(viaHelp.code, 0);
		assert.equal(viaHelp.stdout, viaFlag.stdout);
		assert.match(viaHelp.stdout, /Check the model set-up of every role/);
		assert.match(viaHelp.stdout, /--no-preflight|--preflight/);
		const sub = await runCli(['batch', 'status', '--help']);
		assert.match(sub.stdout, /batch status <name>/);
		const typo = await runCli(['help', 'doctr']);
		assert.equal(typo.code, 2);
		assert.match(typo.stderr, /Unknown command 'doctr'\. Did you mean: doctor/);
	});

	it('SIGTERM stops a running batch like Ctrl-C: everything saved, exit 143, resumable', async () => {
		// Replies that take a moment, so the batch is mid-way when the signal comes.
		const script = scriptedModel();
		const fake = await startServer({kind: 'vllm'}, async (request) => ({delayMs: 25, then: (await script(request)) ?? defaultReply(request)}));
		servers.push(fake);
		const dir = scratch();
		writeFileSync(path.join(dir, 'cultureconverse.config.json'), JSON.stringify({retry: {maxAttempts: 1}}));
		const child = spawn(process.execPath, [...CLI, 'batch', '--name', 'term', '--region', 'TH', '--sample', '20', '--parallel', '2', '--model', 'Qwen/Qwen3-8B', '--base-url', fake.baseURL, '--sessions-dir', path.join(dir, 'sessions')], {
			cwd: dir,
			env: {PATH: process.env['PATH'], HOME: process.env['HOME'], CULTURECONVERSE_HOME: HOME, CULTURECONVERSE_EMBEDDER: 'hash'},
			stdio: ['ignore', 'pipe', 'pipe'],
		});
		let stderr = '';
		child.stderr.on('data', (chunk: Buffer) => (stderr += chunk.toString()));
		// Wait until at least one session has been saved, then terminate.
		await waitFor(() => {
			try {
				return readdirSync(path.join(dir, 'sessions')).some((file) => file.startsWith('term-'));
			} catch {
				return false;
			}
		}, 30_000);
		child.kill('SIGTERM');
		// 'close', not 'exit': 'exit' can fire before the last stderr chunk (the "Interrupted" line) is read.
		const code = await new Promise<number | null>((resolve) => child.on('close', (exitCode) => resolve(exitCode)));
		assert.equal(code, 143, stderr);
		assert.match(stderr, /Interrupted\. Continue with: npx cultureconverse batch --name term/);
		const manifest = JSON.parse(readFileSync(path.join(dir, 'sessions', 'batches', 'term.json'), 'utf8')) as {items: Array<{status: string}>};
		assert.ok(manifest.items.some((item) => item.status === 'pending'), 'stopped before the end');
	});

	it('NO_COLOR turns colour off on a terminal too', () => {
		const run = (env: Record<string, string>) =>
			spawnSync('script', ['-qfec', `node ${CLI.join(' ')} personas --region BN`, '/dev/null'], {cwd: REPO, env: {PATH: process.env['PATH'], HOME: process.env['HOME'], TERM: 'xterm-256color', ...env}, encoding: 'utf8'});
		const coloured = run({FORCE_COLOR: '1'});
		if (coloured.error) return; // no `script` (util-linux) on this machine
		assert.match(coloured.stdout, /\u001B\[/, 'colour on a terminal by default');
		const plain = run({NO_COLOR: '1'});
		assert.doesNotMatch(plain.stdout, /\u001B\[[0-9;]*m/, 'no colour with NO_COLOR');
		assert.match(plain.stdout, /bn-malay-muslim/);
	});

	it('templates generate reports a model failure as exit 3 (or 2 for a set-up error), never as an internal error', async () => {
		// vLLM's own error shape for an overloaded engine; an unknown model still gets its 404 first.
		const fake = await startServer({kind: 'vllm'}, () => ({status: 503, body: {object: 'error', message: 'engine overloaded', type: 'ServiceUnavailableError', param: null, code: 503}}));
		servers.push(fake);
		const dir = scratch();
		writeFileSync(path.join(dir, 'cultureconverse.config.json'), JSON.stringify({retry: {maxAttempts: 2, baseDelayMs: 1, maxDelayMs: 2}}));
		const down = await runCli(['templates', 'generate', '--subdomain', 'eldercare', '--model', 'Qwen/Qwen3-8B', '--base-url', fake.baseURL], {cwd: dir, env: {CULTURECONVERSE_HOME: HOME}});
		assert.equal(down.code, 3, down.stderr);
		assert.match(down.stderr, /HTTP 503 after 2 attempt\(s\).*engine overloaded/);
		assert.doesNotMatch(down.stderr, /internal error/);
		const missing = await runCli(['templates', 'generate', '--subdomain', 'eldercare', '--model', 'Qwen/Qwen3-8B', '--generator-model', 'nope', '--base-url', fake.baseURL, '--no-preflight'], {cwd: dir, env: {CULTURECONVERSE_HOME: HOME}});
		assert.equal(missing.code, 2, missing.stderr);
		assert.match(missing.stderr, /The model `nope` does not exist/);
	});

	it('no MaxListenersExceededWarning with 16 episodes in flight (Node warns past 10 listeners on one signal)', async () => {
		const fake = await startServer({kind: 'vllm'});
		servers.push(fake);
		const dir = scratch();
		const warnings: string[] = [];
		const onWarning = (warning: Error) => warnings.push(`${warning.name}: ${warning.message}`);
		process.on('warning', onWarning);
		const controller = new AbortController();
		const batch = await runCli(['batch', '--name', 'wide', '--region', 'TH', '--sample', '16', '--parallel', '16', '--concurrency', '16', '--model', 'Qwen/Qwen3-8B', '--base-url', fake.baseURL, '--judge-mode', 'combined', '--max-turns', '1', '--sessions-dir', path.join(dir, 'sessions')], {cwd: dir, signal: controller.signal, env: {CULTURECONVERSE_HOME: HOME}});
		process.off('warning', onWarning);
		assert.equal(batch.code, 0, batch.stderr);
		assert.deepEqual(warnings.filter((warning) => /MaxListeners/.test(warning)), []);
	});
});

async function waitFor(condition: () => boolean, timeoutMs: number): Promise<void> {
	const started = Date.now();
	while (!condition()) {
		if (Date.now() - started > timeoutMs) throw new Error('timed out waiting');
		await new Promise((resolve) => setTimeout(resolve, 50));
	}
}
