/**
 * Distributed batches end to end: a real redis-server on a loopback port, the coordinator
 * (`batch --queue`) and three `worker` processes of the real CLI, against a loopback
 * OpenAI-compatible server (test/helpers/fakeOpenAI.ts imitates the Chat Completions API as OpenAI
 * documents it; generator and validator run on the offline mock). Skipped, saying why, only when
 * redis-server is not installed (.ci/run installs it).
 */
import assert from 'node:assert/strict';
import {existsSync, mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync} from 'node:fs';
import {tmpdir} from 'node:os';
import path from 'node:path';
import {setTimeout as sleep} from 'node:timers/promises';
import {after, before, describe, it} from 'node:test';
import {BatchManifest} from '../src/domain/batch.js';
import {readSession} from '../src/store/sessionStore.js';
import {parseJson, runCli} from './helpers/cli.js';
import {type FakeOpenAI, startFakeOpenAI} from './helpers/fakeOpenAI.js';
import {hasRedisServer, type RedisServer, startRedis} from './helpers/redisServer.js';
import {scriptedModel} from './helpers/scriptedModel.js';
import {type Proc, startCli, until} from './helpers/cliProcess.js';

// Three turns and one combined judge call keep each episode short; the queue is what is under test.
const MODELS = ['--model', 'fake-model', '--generator-model', 'mock', '--validator-model', 'mock', '--no-cache', '--max-turns', '3', '--judge-mode', 'combined'];
const skip = hasRedisServer() ? false : 'redis-server is not installed (apt-get install redis-server); .ci/run installs it';

const start = startCli;

const count = (text: string, pattern: RegExp) => (text.match(pattern) ?? []).length;
const sessionFiles = (dir: string) => readdirSync(dir).filter((name) => name.endsWith('.json') && !name.startsWith('.'));

/**
 * A session file with what legitimately differs between two runs of the same episode replaced:
 * timestamps (createdAt, updatedAt, startedAt, at), latencies, and call ids (random UUIDs, replaced
 * by their order of first appearance, so which turn points at which call is still compared).
 */
function normalised(file: string): unknown {
	const ids = new Map<string, string>();
	const uuid = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/;
	const walk = (value: unknown, key: string): unknown => {
		if (['createdAt', 'updatedAt', 'startedAt', 'at', 'latencyMs'].includes(key)) return '<time>';
		if (typeof value === 'string' && uuid.test(value)) {
			if (!ids.has(value)) ids.set(value, `<call ${ids.size}>`);
			return ids.get(value);
		}
		if (Array.isArray(value)) return value.map((item) => walk(item, ''));
		if (value && typeof value === 'object') return Object.fromEntries(Object.entries(value).map(([k, v]) => [k, walk(v, k)]));
		return value;
	};
	return walk(JSON.parse(readFileSync(file, 'utf8')), '');
}

describe('batches on a Redis queue', {skip}, () => {
	let work: string;
	let redis: RedisServer;
	let fake: FakeOpenAI;
	let env: NodeJS.ProcessEnv;
	/** Calls in flight at the server now, and the most since the last reset. */
	const calls = {now: 0, peak: 0};
	const workers: Proc[] = [];
	const worker = (name: string) => {
		const proc = start(['worker', '--queue', redis.url, '--sessions-dir', path.join(work, name), '--lock-ms', '2000', '--parallel', '4', '--concurrency', '4'], env, work);
		workers.push(proc);
		return proc;
	};
	const everything = () => workers.map((proc, i) => `--- worker ${i}\n${proc.stderr().slice(-1500)}`).join('\n');

	before(async () => {
		work = mkdtempSync(path.join(tmpdir(), 'cc-queue-'));
		mkdirSync(path.join(work, 'redis'));
		redis = await startRedis(path.join(work, 'redis'));
		// Replies that depend on the request only (the stock script numbers its replies in arrival order,
		// which differs between a local and a distributed run).
		const script = scriptedModel({
			assistant: () => 'Start with one dish everyone can eat, then ask which days your grandmother fasts.',
			stage: {simulator: () => ({json: {reasoning: 'The reply meets the phase.', decision: 'ADVANCE_NEXT', message: 'Okay, that helps. What should I do next about the shopping?'}})},
		});
		fake = await startFakeOpenAI({
			models: ['fake-model'],
			handler: async (request) => {
				calls.now++;
				calls.peak = Math.max(calls.peak, calls.now);
				try {
					await sleep(10);
					return script(request);
				} finally {
					calls.now--;
				}
			},
		});
		env = {PATH: process.env['PATH'], HOME: process.env['HOME'], CULTURECONVERSE_HOME: path.join(work, 'home'), CULTURECONVERSE_EMBEDDER: 'hash', OPENAI_API_KEY: 'sk-test-queue-0000', OPENAI_BASE_URL: fake.baseURL};
	});

	after(async () => {
		for (const proc of workers) if (proc.child.exitCode === null) proc.child.kill('SIGKILL');
		await redis?.stop();
		await fake?.close();
		rmSync(work, {recursive: true, force: true});
	});

	it('runs 60 episodes on three workers, one killed with -9 mid-run: every seed once, as a local batch writes them, the global cap kept', async () => {
		const batch = ['batch', '--name', 'q60', '--region', 'TH', '--sample', '60', '--concurrency', '6', ...MODELS];
		const local = await runCli([...batch, '--parallel', '8', '--sessions-dir', path.join(work, 'local'), '--json'], {env, cwd: work});
		// 3: a few seeds' mock blueprints fail their checks (GENERATION_ERROR), locally and on the queue alike.
		assert.ok(local.code === 0 || local.code === 3, local.stderr);

		calls.peak = 0;
		const [w1] = [worker('w1'), worker('w2'), worker('w3')];
		const coordinator = start([...batch, '--sessions-dir', path.join(work, 'coord'), '--queue', redis.url, '--jsonl'], env, work);
		// Killed once it has finished an episode and is well into another (several steps saved).
		const midway = () => {
			const dir = path.join(work, 'w1');
			if (!existsSync(dir)) return false;
			return readdirSync(dir).some((name) => name.endsWith('.journal.jsonl') && count(readFileSync(path.join(dir, name), 'utf8'), /\n/g) >= 8);
		};
		await until('worker 1 to be mid-way through an episode', () => count(w1!.stderr(), /: completed/g) >= 1 && midway(), () => w1!.stderr() + coordinator.stderr());
		w1!.child.kill('SIGKILL');
		const code = await coordinator.exited;
		assert.equal(code, local.code, `the same exit code as the local batch\n${coordinator.stderr().slice(-3000)}\n${everything()}`);

		const coordDir = path.join(work, 'coord');
		const localDir = path.join(work, 'local');
		const files = sessionFiles(coordDir);
		assert.equal(files.length, 60, 'one session file per episode');
		assert.deepEqual(files.sort(), sessionFiles(localDir).sort(), 'the same sessions as the local batch');
		assert.equal(readdirSync(coordDir).filter((name) => name.endsWith('.journal.jsonl')).length, 0, 'nothing left half-written');
		const sessions = files.map((file) => readSession(path.join(coordDir, file)));
		assert.equal(new Set(sessions.map((session) => session.seed.id)).size, 60, 'each seed exactly once');
		assert.ok(sessions.every((session) => session.status === 'completed' || session.error?.flag === 'GENERATION_ERROR'));
		for (const file of files) assert.deepEqual(normalised(path.join(coordDir, file)), normalised(path.join(localDir, file)), `${file}: the same content as the local batch's`);
		const manifest = BatchManifest.parse(JSON.parse(readFileSync(path.join(coordDir, 'batches', 'q60.json'), 'utf8')));
		assert.deepEqual(manifest.items.map((item) => item.status), manifest.items.map((item) => readSession(path.join(localDir, `${item.sessionId}.json`)).status), 'every item recorded as it ended');
		assert.equal(count(coordinator.stdout(), /"type":"item_finished"/g), 60, 'one progress line per episode');

		// The killed worker's episodes went on from the steps it had streamed, not from the start: the
		// steps it saved before it died are in the delivered session with their original times.
		const left = readdirSync(path.join(work, 'w1')).filter((name) => name.endsWith('.journal.jsonl'));
		assert.ok(left.length > 0, 'the killed worker had episodes in flight');
		// (The last steps it saved may not have reached Redis before the kill: those ran again.)
		let resumed = 0;
		for (const name of left) {
			const partial = readSession(path.join(work, 'w1', name));
			const done = readSession(path.join(coordDir, `${partial.id}.json`));
			let kept = 0;
			while (kept < partial.steps.length && partial.steps[kept]!.at === done.steps[kept]?.at) kept++;
			if (kept >= 2) resumed++;
		}
		assert.ok(resumed > 0, 'at least one episode resumed mid-way on another worker, keeping the steps it had streamed');

		assert.ok(calls.peak <= 6, `never more than the global cap of 6 calls in flight at the server (saw ${calls.peak}; the workers' own caps add up to 12)`);
		// More than one worker's own cap (4) at once: the cap above was shared, not just each worker's own.
		// (Not "exactly 6": on a loaded 2-core machine the workers do not always fill it.)
		assert.ok(calls.peak > 4, `workers ran calls side by side (peak ${calls.peak})`);

		const status = await runCli(['batch', 'status', 'q60', '--sessions-dir', coordDir, '--queue', redis.url, '--json'], {env, cwd: work});
		assert.equal(status.code, 0, status.stderr);
		const queue = parseJson<{queue: {jobs: {finished: number; failed: number}; workers: Array<{host: string; pid: number; done: number; lastSeen: string}>; limits: Array<{max: number}>}}>(status.stdout).queue;
		assert.equal(queue.jobs.finished, 60);
		assert.equal(queue.jobs.failed, 0);
		assert.ok(queue.workers.filter((beat) => beat.done > 0).length >= 2, 'the workers and what each did');
		assert.equal(queue.limits[0]?.max, 6);
		const text = await runCli(['batch', 'status', 'q60', '--sessions-dir', coordDir, '--queue', redis.url], {env, cwd: work});
		assert.match(text.stdout, /jobs: 0 waiting, 0 active, 0 delayed, 60 finished, 0 failed/);
		assert.match(text.stdout, /HOST +PID +IN FLIGHT +DONE +LAST SEEN/);
	});

	it('runs paired variants from one blueprint: the coordinator starts each variant from its first variant\'s session', async () => {
		// Eval and gold: the scripted replies are English, which a native variant would rightly refuse.
		worker('w-pair');
		const dir = path.join(work, 'coord-pair');
		const run = start(['batch', '--name', 'qpair', '--region', 'MY', '--sample', '2', '--mode', 'eval,gold', ...MODELS, '--sessions-dir', dir, '--queue', redis.url, '--json'], env, work);
		const code = await run.exited;
		assert.ok(code === 0 || code === 3, `${run.stderr().slice(-3000)}\n${everything()}`);
		const manifest = BatchManifest.parse(JSON.parse(readFileSync(path.join(dir, 'batches', 'qpair.json'), 'utf8')));
		assert.equal(manifest.items.length, 4);
		for (const item of manifest.items.filter((candidate) => candidate.sharedFrom && candidate.status === 'completed')) {
			const variant = readSession(path.join(dir, `${item.sessionId}.json`));
			const first = readSession(path.join(dir, `${item.sharedFrom}.json`));
			assert.equal(variant.config.sharedFrom, first.id);
			assert.equal(variant.config.mode, 'gold');
			assert.deepEqual(variant.blueprint, first.blueprint);
			assert.deepEqual(variant.shards, first.shards);
			assert.ok(!variant.calls.some((call) => call.stage.startsWith('blueprint') || call.stage === 'shards'), 'the variant made no blueprint of its own');
		}
		assert.ok(manifest.items.some((item) => item.sharedFrom && item.status === 'completed'), `at least one variant ran: ${JSON.stringify(manifest.items.map((item) => [item.sessionId, item.status, item.errorFlag]))}\n${run.stderr().slice(-2000)}`);
	});

	it('loses nothing when Redis stops for a few seconds and the coordinator is killed and re-attached', async () => {
		worker('w4');
		const batch = ['batch', '--name', 'q24', '--region', 'JP', '--sample', '24', '--concurrency', '6', ...MODELS, '--sessions-dir', path.join(work, 'coord2'), '--queue', redis.url, '--jsonl'];
		const first = start(batch, env, work);
		const finished = (proc: Proc) => count(proc.stdout(), /"type":"item_finished"/g);
		await until('four finished episodes', () => finished(first) >= 4, () => first.stderr() + everything());
		await redis.stop();
		await sleep(3000);
		await redis.start();
		const before = finished(first);
		await until('more episodes after Redis came back', () => finished(first) >= before + 4, () => first.stderr() + everything());
		first.child.kill('SIGKILL');
		await first.exited;

		const second = start(batch, env, work);
		const code = await second.exited;
		assert.ok(code === 0 || code === 3, `${second.stderr().slice(-3000)}\n${everything()}`);
		const dir = path.join(work, 'coord2');
		const sessions = sessionFiles(dir).map((file) => readSession(path.join(dir, file)));
		assert.equal(sessions.length, 24);
		assert.equal(new Set(sessions.map((session) => session.seed.id)).size, 24, 'each seed exactly once');
		assert.ok(sessions.every((session) => session.status === 'completed' || session.error?.flag === 'GENERATION_ERROR'), 'every episode ended (a mock blueprint may fail its checks)');
		const manifest = BatchManifest.parse(JSON.parse(readFileSync(path.join(dir, 'batches', 'q24.json'), 'utf8')));
		const ended = new Map(sessions.map((session) => [session.id, session.status]));
		assert.deepEqual(manifest.items.map((item) => item.status), manifest.items.map((item) => ended.get(item.sessionId)), 'the re-attached coordinator recorded every item as it ended');
		const completed = sessions.filter((session) => session.status === 'completed').length;
		assert.match(second.stdout(), new RegExp(`"completed": ${completed}`));
		assert.equal(code, completed === 24 ? 0 : 3);
		assert.ok(!existsSync(path.join(dir, 'batches', 'q24.lock')), 'the batch lock of the killed coordinator was taken over and released');

		// Workers stop cleanly on SIGTERM.
		for (const proc of workers.filter((candidate) => candidate.child.exitCode === null)) proc.child.kill('SIGTERM');
		for (const proc of workers) await proc.exited;
	});
});
