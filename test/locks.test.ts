import assert from 'node:assert/strict';
import {type ChildProcess, spawn, spawnSync} from 'node:child_process';
import {existsSync, mkdirSync, mkdtempSync, readFileSync, readdirSync, rmSync, writeFileSync} from 'node:fs';
import {hostname, tmpdir} from 'node:os';
import path from 'node:path';
import {after, before, describe, it} from 'node:test';
import {readSession} from '../src/store/sessionStore.js';
import {type FakeOpenAI, startFakeOpenAI} from './helpers/fakeOpenAI.js';
import {scriptedModel} from './helpers/scriptedModel.js';

/*
 * One writer per batch, session and CRISP items file (issue 11, "No lock on anything"), proved with
 * real processes of the binary: a lock names a pid, and two writers in one process are one writer.
 * The loopback server (the OpenAI chat completions API as test/helpers/fakeOpenAI.ts speaks it) holds
 * every completion behind a gate, so the first process is mid-work, holding its lock, for as long as a
 * test needs; the second one starts only once the lock file names the first. Each test asks for its
 * own model name, which keys its own gate, so the three run at once.
 */

const REPO = path.resolve(import.meta.dirname, '..');
// tsx by its file URL, so the binary also starts from a working folder outside the repository.
const CLI = ['--import', import.meta.resolve('tsx'), path.join(REPO, 'src', 'cli.tsx')];
const HOST = hostname();

let fake: FakeOpenAI;
let dir: string;
let env: NodeJS.ProcessEnv;
const MODELS = ['model-batch', 'model-run', 'model-crisp'] as const;
type Model = (typeof MODELS)[number];
type Gate = {wait: Promise<void>; open: () => void};
const gates = new Map<string, Gate>();
/** Completions for `model` wait until the gate's `open()` (the first process is then mid-work, its lock held). */
function hold(model: Model): Gate {
	let open = () => undefined as void;
	const wait = new Promise<void>((resolve) => (open = resolve));
	const gate = {wait, open};
	gates.set(model, gate);
	return gate;
}
const requestsFor = (model: Model) => fake.chatRequests().filter((request) => request.body.model === model).length;

before(async () => {
	const script = scriptedModel();
	fake = await startFakeOpenAI({
		models: [...MODELS],
		handler: async (request) => {
			await gates.get(request.body.model ?? '')?.wait;
			return script(request);
		},
	});
	dir = mkdtempSync(path.join(tmpdir(), 'cc-locks-'));
	// No response cache (a run done twice must ask twice) and no retries (a failure shows at once).
	writeFileSync(path.join(dir, 'cultureconverse.config.json'), JSON.stringify({retry: {maxAttempts: 1}, cache: false}));
	env = {PATH: process.env['PATH'], HOME: process.env['HOME'], CULTURECONVERSE_HOME: path.join(dir, 'home'), CULTURECONVERSE_EMBEDDER: 'hash'};
});
after(async () => {
	for (const gate of gates.values()) gate.open();
	await fake.close();
	rmSync(dir, {recursive: true, force: true});
});

type Ended = {code: number | null; stdout: string; stderr: string};
type Running = {child: ChildProcess; pid: number; ended: Promise<Ended>};

function start(model: Model, args: readonly string[]): Running {
	const child = spawn(process.execPath, [...CLI, ...args, '--model', model, '--base-url', fake.baseURL], {cwd: dir, env, stdio: ['ignore', 'pipe', 'pipe']});
	let stdout = '';
	let stderr = '';
	child.stdout!.on('data', (chunk: Buffer) => (stdout += chunk.toString()));
	child.stderr!.on('data', (chunk: Buffer) => (stderr += chunk.toString()));
	// 'close', not 'exit': every byte of output has been read by then.
	const ended = new Promise<Ended>((resolve) => child.on('close', (code) => resolve({code, stdout, stderr})));
	return {child, pid: child.pid!, ended};
}

async function waitFor(condition: () => boolean, what: string, timeoutMs = 90_000): Promise<void> {
	const deadline = Date.now() + timeoutMs;
	while (!condition()) {
		if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`);
		await new Promise((resolve) => setTimeout(resolve, 20));
	}
}

const lockHolder = (file: string): number | null => {
	try {
		return (JSON.parse(readFileSync(file, 'utf8')) as {pid: number}).pid;
	} catch {
		return null;
	}
};
const escape = (text: string) => text.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');
/** A pid that ran on this host and has exited (spawnSync waits for it). */
const deadPid = () => spawnSync(process.execPath, ['-e', '']).pid;

describe('locks', {concurrency: true}, () => {
	it('two batch processes on one name: the second exits 2 naming the holder; the first completes every item once; a dead holder is taken over, said so', async () => {
		const sessions = path.join(dir, 'batch-sessions');
		const lock = path.join(sessions, 'batches', 'shared.lock');
		const args = ['batch', '--name', 'shared', '--region', 'TH', '--sample', '2', '--parallel', '1', '--sessions-dir', sessions];
		const model = 'model-batch';
		const gate = hold(model);
		const first = start(model, [...args, '--json']);
		await waitFor(() => lockHolder(lock) === first.pid && requestsFor(model) > 0, 'the first batch to hold its lock and wait on a call');
		const second = await start(model, args).ended;
		assert.equal(second.code, 2, second.stderr);
		assert.match(second.stderr, new RegExp(`batch shared is in use by process ${first.pid} on ${escape(HOST)}`));
		assert.doesNotMatch(second.stderr, /to run/, 'the second runner says nothing about items it will not run');
		gate.open();
		const done = await first.ended;
		assert.equal(done.code, 0, done.stderr);
		assert.equal((JSON.parse(done.stdout) as {byStatus: {completed: number}}).byStatus.completed, 2);
		const manifest = JSON.parse(readFileSync(path.join(sessions, 'batches', 'shared.json'), 'utf8')) as {items: Array<{sessionId: string; status: string; attempts: number}>};
		assert.deepEqual(manifest.items.map((item) => [item.status, item.attempts]), [['completed', 1], ['completed', 1]]);
		// Every completion the server answered belongs to one of the two sessions, each recorded once.
		const calls = manifest.items.reduce((sum, item) => sum + readSession(path.join(sessions, `${item.sessionId}.json`)).calls.length, 0);
		assert.equal(calls, requestsFor(model), 'no item ran twice, none by the second process');
		assert.equal(existsSync(lock), false, 'released at the end');

		// A lock left by a process that died: taken over, and said so.
		const dead = deadPid();
		writeFileSync(lock, JSON.stringify({pid: dead, host: HOST, since: '2026-01-01T00:00:00.000Z', what: 'batch shared'}));
		const again = await start(model, args).ended;
		assert.equal(again.code, 0, again.stderr);
		assert.match(again.stderr, new RegExp(`took over batch shared from process ${dead} on ${escape(HOST)}, which is no longer running`));
		assert.match(again.stderr, /Batch shared: 2 item\(s\), 0 to run/);
		assert.equal(existsSync(lock), false);
	});

	it('two resumes of one session: one runs to the end (taking over a dead process\'s lock, said so), the other exits 2 naming the holder', async () => {
		const sessions = path.join(dir, 'run-sessions');
		mkdirSync(sessions, {recursive: true});
		// An interrupted episode first: stopped (SIGTERM) while its first call waits.
		const model = 'model-run';
		const gate = hold(model);
		const origin = start(model, ['run', '--seed', 'th-isan-a35-f:culinary.dietary-rules.01', '--sessions-dir', sessions]);
		await waitFor(() => requestsFor(model) > 0, 'the episode to make its first call');
		origin.child.kill('SIGTERM');
		const stopped = await origin.ended;
		assert.match(stopped.stderr, /Interrupted\. Session saved/, stopped.stderr);
		const journal = readdirSync(sessions).find((name) => name.endsWith('.journal.jsonl'));
		assert.ok(journal, 'an unfinished session keeps its journal');
		const id = journal.slice(0, -'.journal.jsonl'.length);
		const lock = path.join(sessions, `${id}.lock`);
		assert.equal(existsSync(lock), false, 'an interrupted run lets go of its session');

		// As a crash would leave it: the session's lock held by a process that is gone.
		const dead = deadPid();
		writeFileSync(lock, JSON.stringify({pid: dead, host: HOST, since: '2026-01-01T00:00:00.000Z', what: `session ${id}`}));
		const calling = requestsFor(model);
		const first = start(model, ['run', '--resume', id, '--sessions-dir', sessions, '--json']);
		await waitFor(() => lockHolder(lock) === first.pid && requestsFor(model) > calling, 'the first resume to hold the session and wait on a call');
		const second = await start(model, ['run', '--resume', id, '--sessions-dir', sessions]).ended;
		assert.equal(second.code, 2, second.stderr);
		assert.match(second.stderr, new RegExp(`session ${escape(id)} is in use by process ${first.pid} on ${escape(HOST)}`));
		gate.open();
		const done = await first.ended;
		assert.equal(done.code, 0, done.stderr);
		assert.equal((JSON.parse(done.stdout) as {status: string}).status, 'completed');
		assert.match(done.stderr, new RegExp(`took over the lock of session ${escape(id)} left by process ${dead} on ${escape(HOST)} \\(no longer running\\)`));
		const session = readSession(path.join(sessions, `${id}.json`));
		assert.equal(session.status, 'completed');
		assert.equal(new Set(session.steps.map((step) => step.n)).size, session.steps.length, 'one writer: every step once');
		assert.equal(existsSync(lock), false);
	});

	it('two CRISP builds of one items file: the second exits 2 naming the holder; the first builds each item once', async () => {
		const items = path.join(dir, 'crisp', 'items.jsonl');
		const args = ['crisp', 'build', '--region', 'JP', '--limit', '2', '--chronotopes', '1', '--max-rounds', '1', '--items', items, '--json'];
		const model = 'model-crisp';
		const gate = hold(model);
		const first = start(model, args);
		await waitFor(() => lockHolder(`${items}.lock`) === first.pid && requestsFor(model) > 0, 'the first build to hold the items file and wait on a call');
		const second = await start(model, args).ended;
		assert.equal(second.code, 2, second.stderr);
		assert.match(second.stderr, new RegExp(`${escape(items)} is in use by process ${first.pid} on ${escape(HOST)}`));
		gate.open();
		const done = await first.ended;
		assert.notEqual(done.code, 2, done.stderr);
		const built = readFileSync(items, 'utf8').trim().split('\n').map((line) => (JSON.parse(line) as {id: string}).id);
		assert.ok(built.length > 0, 'the first build wrote its items');
		assert.equal(new Set(built).size, built.length, 'no item built twice');
		assert.equal((JSON.parse(done.stdout) as {built: number}).built, built.length);
		assert.equal(existsSync(`${items}.lock`), false);
	});
});
