import assert from 'node:assert/strict';
import {mkdtempSync, readFileSync, rmSync} from 'node:fs';
import {tmpdir} from 'node:os';
import path from 'node:path';
import {after, before, describe, it} from 'node:test';
import {Worker} from 'node:worker_threads';
import type {Session} from '../src/domain/session.js';
import {readSession} from '../src/store/sessionStore.js';
import {parseJson, runCli} from './helpers/cli.js';

/*
 * A batch over worker threads (`--workers 2`) makes the same sessions as one thread for the same
 * seeds on the offline mock, and the batch journal has one writer: the coordinator thread.
 */

let root: string;
let env: NodeJS.ProcessEnv;
before(() => {
	root = mkdtempSync(path.join(tmpdir(), 'cc-workers-'));
	env = {PATH: process.env['PATH'], HOME: process.env['HOME'], CULTURECONVERSE_HOME: path.join(root, 'home'), CULTURECONVERSE_EMBEDDER: 'hash'};
});
after(() => rmSync(root, {recursive: true, force: true}));

/** Fields that hold the time: when a session, blueprint or shard plan was made or changed, a step ended, a call started or took, a notice came. */
const CLOCK_FIELDS = new Set(['createdAt', 'updatedAt', 'at', 'startedAt', 'latencyMs']);

/**
 * A session without what depends on the clock or on chance: the fields above, and call ids (random
 * UUIDs), which become the call's position wherever they are referred to. Everything else must agree.
 */
function timeless(session: Session): unknown {
	const position = new Map(session.calls.map((call, index) => [call.id, `call #${index + 1}`]));
	const walk = (value: unknown): unknown => {
		if (typeof value === 'string') return position.get(value) ?? value;
		if (Array.isArray(value)) return value.map(walk);
		if (value && typeof value === 'object') return Object.fromEntries(Object.entries(value).map(([key, inner]) => [key, CLOCK_FIELDS.has(key) ? null : walk(inner)]));
		return value;
	};
	return walk(session);
}

describe('storage: batches over worker threads', () => {
	it('two threads make the same sessions as one, and every item is recorded once by the coordinator', async () => {
		const run = async (workers: number) => {
			const sessions = path.join(root, `w${workers}`);
			const result = await runCli(['batch', '--name', 'same', '--region', 'ID', '--sample', '4', '--parallel', '4', '--workers', String(workers), '--sessions-dir', sessions], {env, cwd: root});
			assert.equal(result.code, 0, result.stderr);
			const manifest = JSON.parse(readFileSync(path.join(sessions, 'batches', 'same.json'), 'utf8')) as {items: Array<{sessionId: string; status: string; attempts: number}>};
			return {result, manifest, read: (id: string) => readSession(path.join(sessions, `${id}.json`))};
		};
		const one = await run(1);
		const two = await run(2);
		assert.match(two.result.stderr, /4 to run, 4 at a time on 2 threads/);
		assert.doesNotMatch(one.result.stderr, /threads/);
		assert.deepEqual(two.manifest.items.map((item) => item.sessionId), one.manifest.items.map((item) => item.sessionId), 'the same plan');
		assert.deepEqual(two.manifest.items.map((item) => [item.status, item.attempts]), one.manifest.items.map(() => ['completed', 1]), 'each item started once and finished');
		for (const item of one.manifest.items) {
			const single = one.read(item.sessionId);
			const threaded = two.read(item.sessionId);
			assert.ok(single.calls.length > 0);
			assert.deepEqual(timeless(threaded), timeless(single), `session ${item.sessionId}`);
		}
	});

	it('a worker thread cannot open the batch journal', async () => {
		// The worker shares the coordinator's pid, so the lock file cannot keep it out: the store does.
		const store = new URL('../src/store/batchStore.ts', import.meta.url).href;
		const tsx = import.meta.resolve('tsx/esm/api');
		const code = `
			const {parentPort} = await import('node:worker_threads');
			(await import(${JSON.stringify(tsx)})).register();
			const {BatchStore} = await import(${JSON.stringify(store)});
			try {
				new BatchStore(${JSON.stringify(path.join(root, 'from-worker'))}).open({name: 'w', items: []});
				parentPort.postMessage('opened');
			} catch (error) {
				parentPort.postMessage(error.message);
			}`;
		const worker = new Worker(code, {eval: true});
		const message = await new Promise<string>((resolve, reject) => {
			worker.once('message', resolve);
			worker.once('error', reject);
		});
		await worker.terminate();
		assert.match(message, /batch w: the batch journal is written by the coordinator only, never from a worker thread/);
		const listed = parseJson<unknown[]>((await runCli(['batch', 'list', '--json', '--sessions-dir', path.join(root, 'from-worker')], {env, cwd: root})).stdout);
		assert.deepEqual(listed, [], 'and nothing was written');
	});
});
