/**
 * A worker whose preflight fails once (issue 21 item 7): the endpoint is briefly down (a loopback
 * proxy in front of the OpenAI-compatible fake drops every connection) when the worker first sees the
 * batch. It used to refuse that
 * batch for good while the coordinator waited for ever; now it tries again with backoff and serves the
 * batch once the endpoint answers, and the coordinator says which worker refused and why. The
 * assistant's replies echo a canary key in several forms: no queue delivery carries it (the sessions
 * both sides wrote, the worker's outbox, Redis's append-only file with the streamed checkpoints). A
 * real redis-server and real CLI processes; skipped, saying why, when redis-server is not installed.
 */
import assert from 'node:assert/strict';
import {randomBytes} from 'node:crypto';
import {mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync} from 'node:fs';
import {tmpdir} from 'node:os';
import path from 'node:path';
import {after, before, describe, it} from 'node:test';
import {type FakeOpenAI, startFakeOpenAI} from './helpers/fakeOpenAI.js';
import {hasRedisServer, type RedisServer, startRedis} from './helpers/redisServer.js';
import {scriptedModel} from './helpers/scriptedModel.js';
import {type Proc, startCli, until} from './helpers/cliProcess.js';
import {switchableProxy} from './helpers/switchableProxy.js';

const KEY = `sk-proj-${randomBytes(24).toString('hex')}`;
const skip = hasRedisServer() ? false : 'redis-server is not installed (apt-get install redis-server); .ci/run installs it';

const start = startCli;

describe('a queue worker whose preflight failed', {skip}, () => {
	let work: string;
	let redis: RedisServer;
	let fake: FakeOpenAI;
	let proxy: Awaited<ReturnType<typeof switchableProxy>>;
	const procs: Proc[] = [];

	before(async () => {
		work = mkdtempSync(path.join(tmpdir(), 'cc-refusal-'));
		mkdirSync(path.join(work, 'redis'));
		redis = await startRedis(path.join(work, 'redis'));
		fake = await startFakeOpenAI({models: ['fake-model'], handler: scriptedModel({assistant: () => `Cook together. ${KEY} and ${KEY.slice('sk-proj-'.length)} and ${Buffer.from(`Bearer ${KEY}`).toString('base64')}`})});
		proxy = await switchableProxy(fake.baseURL, {down: true});
	});
	after(async () => {
		for (const proc of procs) if (proc.child.exitCode === null) proc.child.kill('SIGKILL');
		await redis?.stop();
		await fake?.close();
		await proxy?.close();
		rmSync(work, {recursive: true, force: true});
	});

	it('tries the batch again with backoff and serves it once the endpoint answers; the coordinator says who refused and why', async () => {
		const env = {PATH: process.env['PATH'], HOME: process.env['HOME'], CULTURECONVERSE_HOME: path.join(work, 'home'), CULTURECONVERSE_EMBEDDER: 'hash', OPENAI_API_KEY: KEY, OPENAI_BASE_URL: proxy.baseURL};
		const worker = start(['worker', '--queue', redis.url, '--sessions-dir', path.join(work, 'w'), '--parallel', '2'], env, work);
		procs.push(worker);
		// The coordinator checked nothing itself (--no-preflight): the worker's check is what meets the outage.
		const coordinator = start(['batch', '--name', 'refused', '--region', 'TH', '--sample', '2', '--max-turns', '1', '--judge-mode', 'combined', '--model', 'fake-model', '--generator-model', 'mock', '--validator-model', 'mock', '--no-preflight', '--sessions-dir', path.join(work, 'c'), '--queue', redis.url], env, work);
		procs.push(coordinator);
		const both = () => `--- worker\n${worker.stderr()}\n--- coordinator\n${coordinator.stderr()}`;
		await until('the worker to refuse the batch', () => /batch refused: not served: .*trying again in 2 s/.test(worker.stderr()), both);
		await until('the coordinator to name the refusing worker', () => /worker \S+ on \S+ does not serve batch refused: .*; it tries again/.test(coordinator.stderr()), both);
		proxy.setDown(false);
		assert.equal(await coordinator.exited, 0, both());
		assert.match(worker.stderr(), /batch refused: its preflight passes now \(after \d+ refusal\(s\)\)/);
		assert.match(coordinator.stdout(), /Batch refused: 2\/2 completed/);
		const forms = [KEY, KEY.slice('sk-proj-'.length), Buffer.from(KEY).toString('base64').slice(2, -2)];
		const files = (dir: string): string[] => readdirSync(dir, {withFileTypes: true}).flatMap((entry) => (entry.isDirectory() ? files(path.join(dir, entry.name)) : [path.join(dir, entry.name)]));
		const delivered = files(work).filter((file) => !file.includes(`${path.sep}home${path.sep}`));
		assert.ok(delivered.some((file) => file.includes(`${path.sep}redis${path.sep}`)), 'Redis\'s data is among the files read');
		assert.ok(delivered.some((file) => file.includes(`${path.sep}redis${path.sep}`) && readFileSync(file, 'latin1').includes('Cook together. [redacted]')), 'the streamed checkpoints in Redis hold the masked reply');
		for (const file of delivered) for (const form of forms) assert.ok(!readFileSync(file, 'latin1').includes(form), `${file} holds the key`);
		for (const output of [worker.stdout(), worker.stderr(), coordinator.stdout(), coordinator.stderr()]) for (const form of forms) assert.ok(!output.includes(form));
	});
});
