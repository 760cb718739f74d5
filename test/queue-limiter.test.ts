/**
 * The distributed call limiter against a real redis-server on a loopback port: two limiters on
 * their own connections stand for two worker processes. Skipped, saying why, only when
 * redis-server is not installed (.ci/run installs it).
 */
import assert from 'node:assert/strict';
import {mkdtempSync, rmSync} from 'node:fs';
import {tmpdir} from 'node:os';
import path from 'node:path';
import {setTimeout as sleep} from 'node:timers/promises';
import {after, before, describe, it} from 'node:test';
import {Redis} from 'ioredis';
import {parseQueueUrl} from '../src/queue/target.js';
import {EMPTY_PACE, claimStart, observePace} from '../src/llm/pacer.js';
import {readRateHeaders} from '../src/llm/rateHeaders.js';
import {limitKeys} from '../src/queue/keys.js';
import {createRedisLimiter, readEndpointLimit, setEndpointCap} from '../src/queue/redisLimiter.js';
import {claimRemoteStart, observeRemote} from '../src/queue/redisPacer.js';
import {hasRedisServer, type RedisServer, startRedis} from './helpers/redisServer.js';

const skip = hasRedisServer() ? false : 'redis-server is not installed (apt-get install redis-server); .ci/run installs it';

describe('the per-endpoint limit shared through Redis', {skip}, () => {
	let dir: string;
	let server: RedisServer;
	const clients: Redis[] = [];
	const client = () => {
		const redis = new Redis({port: server.port, host: '127.0.0.1', maxRetriesPerRequest: null, protocol: 2});
		clients.push(redis);
		return redis;
	};
	const limiter = (holder: string, cap: number) => createRedisLimiter({redis: client(), subscriber: client(), cap, adaptive: true, holder});

	before(async () => {
		dir = mkdtempSync(path.join(tmpdir(), 'cc-queue-limit-'));
		server = await startRedis(dir);
	});
	after(async () => {
		for (const redis of clients) redis.disconnect();
		await server?.stop();
		rmSync(dir, {recursive: true, force: true});
	});

	it('keeps two processes within one cap per endpoint, and endpoints apart', async () => {
		const a = limiter('a', 3);
		const b = limiter('b', 3);
		await setEndpointCap(client(), 'http://one/v1', 3);
		let now = 0;
		let peak = 0;
		let other = 0;
		const task = async () => {
			now++;
			peak = Math.max(peak, now);
			await sleep(5);
			now--;
		};
		const otherTask = async () => {
			other++;
			await sleep(5);
		};
		await Promise.all([
			...Array.from({length: 30}, (_, i) => (i % 2 ? a : b).run(task, undefined, 'http://one/v1')),
			// Another endpoint has its own budget: these never wait for the first one's slots.
			...Array.from({length: 3}, () => a.run(otherTask, undefined, 'http://two/v1')),
		]);
		assert.equal(peak, 3, 'the cap, reached and never passed, across both');
		assert.equal(other, 3);
		const state = await readEndpointLimit(client(), 'http://one/v1');
		assert.equal(state?.peak, 3);
		assert.equal(state?.inFlight, 0, 'every slot given back');
		await Promise.all([a.close(), b.close()]);
	});

	it('narrows once per window on a burst of 429s from both, and a wider width comes back with successes', async () => {
		const a = limiter('a2', 10);
		const b = limiter('b2', 10);
		await setEndpointCap(client(), 'http://three/v1', 10);
		const tickets: number[] = [];
		await Promise.all(Array.from({length: 6}, (_, i) => (i % 2 ? a : b).run(async (slot) => void tickets.push(slot.ticket), undefined, 'http://three/v1')));
		// Every request of the burst was answered 429: one narrowing, 10 -> 8.
		for (const [i, ticket] of tickets.entries()) (i % 2 ? a : b).rateLimited(ticket);
		await sleep(50);
		assert.equal((await readEndpointLimit(client(), 'http://three/v1'))?.limit, 8);
		// Eight successes in a row at width 8 win one back.
		for (let i = 0; i < 8; i++) await a.run(async () => undefined, undefined, 'http://three/v1');
		await sleep(50);
		assert.equal((await readEndpointLimit(client(), 'http://three/v1'))?.limit, 9);
		await Promise.all([a.close(), b.close()]);
	});

	it('paces by the rate headers with the same rule as pacer.ts (the Lua mirror), and spends one reading across two processes', async () => {
		// The same readings, in TypeScript and in Redis's Lua: the waits agree (within the clock's drift between calls).
		const rate = (record: Record<string, string>) => readRateHeaders(new Headers(record), Date.now());
		const four = rate({'x-ratelimit-limit-requests': '10', 'x-ratelimit-remaining-requests': '4', 'x-ratelimit-reset-requests': '800ms'});
		const spent = rate({'x-ratelimit-limit-requests': '10', 'x-ratelimit-remaining-requests': '0', 'x-ratelimit-reset-requests': '30s', 'retry-after-ms': '500'});
		const key = limitKeys('http://mirror/v1').state;
		const redis = client();
		// Each side reads at its own moment: the waits may differ by no more than the time between them.
		const observeBoth = async (state: typeof EMPTY_PACE, rateLimited: boolean, rate: ReturnType<typeof readRateHeaders>) => {
			const from = Date.now();
			await observeRemote(redis, key, {rateLimited, rate});
			return {state: observePace(state, {rateLimited, rate}, from).state, slack: Date.now() - from};
		};
		const claimBoth = async (state: typeof EMPTY_PACE, slack: number) => {
			const from = Date.now();
			const lua = await claimRemoteStart(redis, key);
			const claimed = claimStart(state, from);
			return {state: claimed.state, pair: [claimed.waitMs, lua, slack + (Date.now() - from) + 5] as [number, number, number]};
		};
		let seen = await observeBoth(EMPTY_PACE, false, four);
		let ts = seen.state;
		const waits: Array<[number, number, number]> = [];
		let slack = seen.slack;
		for (let i = 0; i < 2; i++) {
			const claimed = await claimBoth(ts, slack);
			ts = claimed.state;
			slack = claimed.pair[2];
			waits.push(claimed.pair);
		}
		seen = await observeBoth(ts, true, spent);
		waits.push((await claimBoth(seen.state, slack + seen.slack)).pair);
		assert.equal(waits[0]![0], 0);
		assert.equal(waits[0]![1], 0, 'the first start goes at once');
		for (const [typescript, lua, slack] of waits) assert.ok(Math.abs(typescript - lua) <= slack, `TypeScript waits ${typescript} ms, Lua ${lua} ms (${slack} ms apart)`);
		assert.ok(waits[1]![0] > 150 && waits[2]![0] > 400, JSON.stringify(waits));
		assert.equal(await observeRemote(redis, key, {rateLimited: true, rate: rate({'retry-after': '1'})}), true, 'a 429 without quota headers narrows');

		// Two processes, one reading: 2 left for the next 400 ms, so the third start of either waits for the reset.
		const a = limiter('pa', 8);
		const b = limiter('pb', 8);
		const endpoint = 'http://paced/v1';
		await setEndpointCap(client(), endpoint, 8);
		const said = Date.now();
		await observeRemote(client(), limitKeys(endpoint).state, {rateLimited: false, rate: readRateHeaders(new Headers({'x-ratelimit-remaining-requests': '2', 'x-ratelimit-reset-requests': '400ms'}), said)});
		const starts: number[] = [];
		await Promise.all([a, b, a].map((one) => one.run(async () => void starts.push(Date.now()), undefined, endpoint)));
		starts.sort((x, y) => x - y);
		assert.ok(starts[2]! - said >= 400, `the third start waited for the reset (${starts.map((at) => at - said).join(', ')} ms)`);
		await Promise.all([a.close(), b.close()]);
	});

	it('names what is wrong with a queue address', () => {
		assert.throws(() => parseQueueUrl('localhost:6379'), /not a Redis URL|not a URL/);
		assert.throws(() => parseQueueUrl('http://localhost:6379'), /must start with redis:\/\//);
		assert.throws(() => parseQueueUrl('redis://localhost:6379/99'), /number from 0 to 15/);
		assert.equal(parseQueueUrl('redis://:secret@127.0.0.1:6390/2').display, 'redis://127.0.0.1:6390/2', 'no password in messages');
	});
});
