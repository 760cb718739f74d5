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

	it('narrows by 15% on a rate limit, once per window, and wins one back per round trip of successes', async () => {
		const changes: number[] = [];
		const limiter = createLimiter(8, {onLimitChange: (limit) => changes.push(limit)});
		// Eight requests in flight; all of them get a 429 (one overload): the width narrows once.
		const tickets: number[] = [];
		const releases: Array<() => void> = [];
		const runs = Array.from({length: 8}, () => limiter.run((slot) => new Promise<void>((resolve) => {
			tickets.push(slot.ticket);
			releases.push(resolve);
		})));
		await new Promise((resolve) => setImmediate(resolve));
		for (const ticket of tickets) limiter.rateLimited(ticket);
		assert.equal(limiter.limit, 6, 'one narrowing for the whole burst (8 x 0.85, rounded down)');
		for (const release of releases) release();
		await Promise.all(runs);
		// A 429 for a request sent after the narrowing is a new window.
		await limiter.run(async (slot) => limiter.rateLimited(slot.ticket));
		assert.equal(limiter.limit, 5);
		limiter.rateLimited();
		limiter.rateLimited();
		limiter.rateLimited();
		limiter.rateLimited();
		limiter.rateLimited();
		limiter.rateLimited();
		assert.equal(limiter.limit, 1, 'never below one');
		limiter.succeeded();
		assert.equal(limiter.limit, 2, 'one success fills a window of one');
		limiter.succeeded();
		assert.equal(limiter.limit, 2);
		limiter.succeeded();
		assert.equal(limiter.limit, 3, 'a window of two needs two successes');
		for (let i = 0; i < 100; i++) limiter.succeeded();
		assert.equal(limiter.limit, 8, 'never above the cap');
		assert.deepEqual(changes, [6, 5, 4, 3, 2, 1, 2, 3, 4, 5, 6, 7, 8]);
		const fixed = createLimiter(8, {adaptive: false});
		fixed.rateLimited();
		assert.equal(fixed.limit, 8);
	});

	it('a request that outlives its lease gives its slot back, so one hung call never blocks the rest', async () => {
		const limiter = createLimiter(1, {leaseMs: 30});
		let hang: () => void = () => undefined;
		const hung = limiter.run(() => new Promise<void>((resolve) => (hang = resolve)));
		const started = Date.now();
		await limiter.run(async () => undefined);
		assert.ok(Date.now() - started >= 25, 'the next call waited for the lease, not for the hung call');
		assert.equal(limiter.overdue, 1);
		hang();
		await hung;
		assert.equal(limiter.overdue, 0);
		assert.equal(limiter.active, 0);
	});

	it('starts no new task while more are in flight than a narrowed width, and starts queued ones as it widens', async () => {
		const limiter = createLimiter(2);
		const releases: Array<() => void> = [];
		const started: number[] = [];
		const task = (n: number) => () => new Promise<number>((resolve) => {
			started.push(n);
			releases.push(() => resolve(n));
		});
		const runs = [1, 2, 3, 4].map((n) => limiter.run(task(n)));
		await new Promise((resolve) => setImmediate(resolve));
		assert.deepEqual(started, [1, 2]);
		limiter.rateLimited();
		releases.shift()!();
		await new Promise((resolve) => setImmediate(resolve));
		assert.deepEqual(started, [1, 2], 'one still in flight fills the narrowed width of one');
		releases.shift()!();
		await new Promise((resolve) => setImmediate(resolve));
		assert.deepEqual(started, [1, 2, 3]);
		limiter.succeeded();
		await new Promise((resolve) => setImmediate(resolve));
		assert.deepEqual(started, [1, 2, 3, 4], 'widening starts the next queued task at once');
		for (const release of releases.splice(0)) release();
		assert.deepEqual(await Promise.all(runs), [1, 2, 3, 4]);
	});

	it('narrows what reaches the server after 429s, and keeps the cap when adaptation is off', async () => {
		for (const adaptive of [true, false]) {
			fake.reset();
			let calls = 0;
			fake.setHandler(() => (++calls <= 8 ? {status: 429, headers: {'retry-after-ms': '1'}} : {delayMs: 30, then: {content: 'done'}}));
			const gw = createGateway({settings: fakeRoles(fake.baseURL), workspaceDir: tempDir(), cache: false, concurrency: 4, adaptiveConcurrency: adaptive, env: {OPENAI_API_KEY: 'k'}, retry: {baseDelayMs: 1, maxDelayMs: 5}});
			// Four calls, each rate-limited twice (two windows: the retries were sent after the first
			// narrowing): too few successes to win back all the width lost.
			const results = await Promise.all(Array.from({length: 4}, (_, index) => gw.call<string>({role: 'judge', stage: `s${index}`, prompt: fakePrompt(`call ${index}`), mock: null, step: index})));
			assert.ok(results.every((result) => result.value === 'done'));
			assert.equal(gw.concurrency().max, 4);
			if (adaptive) assert.ok(gw.concurrency().limit < 4, `four 429s narrowed the width (now ${gw.concurrency().limit})`);
			else assert.equal(gw.concurrency().limit, 4);
		}
	});
});
