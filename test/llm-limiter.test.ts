import assert from 'node:assert/strict';
import {after, before, describe, it} from 'node:test';
import {createGateway} from '../src/llm/gateway.js';
import {createLimiter} from '../src/llm/limiter.js';
import type {ModelRole} from '../src/domain/session.js';
import {type FakeOpenAI, fakePrompt, fakeRoles, startFakeOpenAI} from './helpers/fakeOpenAI.js';
import {tempDir} from './helpers/tmp.js';

let fake: FakeOpenAI;
before(async () => (fake = await startFakeOpenAI()));
after(() => fake.close());

describe('llm concurrency limiter', () => {
	it('caps the requests in flight at the server, across roles', async () => {
		fake.reset();
		fake.setHandler(() => ({delayMs: 40, then: {content: 'done'}}));
		const gw = createGateway({settings: fakeRoles(fake.baseURL), workspaceDir: tempDir(), cache: false, concurrency: 2, env: {OPENAI_API_KEY: 'k'}});
		const roles: ModelRole[] = ['generator', 'validator', 'simulator', 'assistant', 'judge', 'judge', 'assistant', 'simulator'];
		const results = await Promise.all(roles.map((role, index) => gw.call<string>({role, stage: `s${index}`, prompt: fakePrompt(`call ${index}`), mock: null, step: index})));
		assert.equal(results.length, 8);
		assert.equal(fake.chatRequests().length, 8);
		assert.equal(fake.maxInFlight, 2);
	});

	it('runs tasks in arrival order and never more than the cap', async () => {
		const limiter = createLimiter(2);
		let active = 0;
		let peak = 0;
		const started: number[] = [];
		const task = (n: number) => async () => {
			started.push(n);
			active++;
			peak = Math.max(peak, active);
			await new Promise((resolve) => setTimeout(resolve, 5));
			active--;
			return n;
		};
		const results = await Promise.all([1, 2, 3, 4, 5, 6].map((n) => limiter.run(task(n))));
		assert.deepEqual(results, [1, 2, 3, 4, 5, 6]);
		assert.deepEqual(started, [1, 2, 3, 4, 5, 6]);
		assert.equal(peak, 2);
		assert.equal(limiter.active, 0);
	});

	it('a waiting task whose signal aborts leaves the queue without running', async () => {
		const limiter = createLimiter(1);
		let release!: () => void;
		const blocker = limiter.run(() => new Promise<void>((resolve) => (release = resolve)));
		const controller = new AbortController();
		let ran = false;
		const waiting = limiter.run(async () => void (ran = true), controller.signal);
		assert.equal(limiter.pending, 1);
		controller.abort();
		await assert.rejects(waiting, {name: 'AbortError'});
		assert.equal(limiter.pending, 0);
		release();
		await blocker;
		assert.equal(ran, false);
	});

	it('rejects a nonsensical cap', () => {
		assert.throws(() => createLimiter(0), /positive integer/);
	});
});
