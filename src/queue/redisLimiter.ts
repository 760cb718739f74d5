import type {Redis} from 'ioredis';
import {type Limiter, type Pacing, type Slot, hold, paceObservation, turnTaker} from '../llm/limiter.js';
import {limitKeys} from './keys.js';
import {claimRemoteStart, observeRemote} from './redisPacer.js';

/*
 * The model-call limiter of a distributed batch: one budget of calls in flight per endpoint across
 * every worker process on every machine, kept in Redis. The same rules as the in-process and the
 * thread-shared limiters (llm/limiter.ts, llm/sharedLimiter.ts): a 429 narrows the endpoint's width
 * by 15% at most once per window (a 429 for a request sent before the last narrowing belongs to the
 * same overload), each round trip at full width wins one back, and a slot is a lease: a request that
 * outlives it gives it back (a worker killed mid-call gives its slots back when their leases end).
 *
 * Each slot is a member of a sorted set scored by its lease's end, taken and given back by Lua
 * scripts (atomic on the server, with the server's clock), the counted semaphore of the Redis
 * documentation's "distributed locks" pattern with leases instead of locks. A waiter retries when a
 * slot is given back (a message on the endpoint's channel) or after 250 ms.
 *
 * With `pacing: 'headers'` (the default) starts are also spaced by the server's rate headers, shared
 * by every worker (redisPacer.ts), and a 429 narrows the width only when it came without them.
 */

const ACQUIRE = `
local t = redis.call('TIME')
local now = tonumber(t[1]) * 1000 + math.floor(tonumber(t[2]) / 1000)
redis.call('ZREMRANGEBYSCORE', KEYS[2], '-inf', now)
local limit = tonumber(redis.call('HGET', KEYS[1], 'limit'))
if not limit then
  limit = tonumber(ARGV[3])
  redis.call('HSET', KEYS[1], 'limit', limit, 'max', limit)
end
if redis.call('ZCARD', KEYS[2]) >= limit then return 0 end
redis.call('ZADD', KEYS[2], now + tonumber(ARGV[2]), ARGV[1])
local held = redis.call('ZCARD', KEYS[2])
if held > tonumber(redis.call('HGET', KEYS[1], 'peak') or '0') then redis.call('HSET', KEYS[1], 'peak', held) end
return redis.call('HINCRBY', KEYS[1], 'issued', 1)
`;

/** Gives a slot back; after a success, one more in a row at full width, and the width grows by one after `limit` of them. */
const RELEASE = `
redis.call('ZREM', KEYS[2], ARGV[1])
if ARGV[2] == '1' then
  local limit = tonumber(redis.call('HGET', KEYS[1], 'limit'))
  local max = tonumber(redis.call('HGET', KEYS[1], 'max'))
  if limit and max and limit < max then
    local streak = redis.call('HINCRBY', KEYS[1], 'streak', 1)
    if streak >= limit then redis.call('HSET', KEYS[1], 'limit', limit + 1, 'streak', 0) end
  end
end
redis.call('PUBLISH', KEYS[3], '1')
return 1
`;

const NARROW = `
local narrowed = tonumber(redis.call('HGET', KEYS[1], 'narrowedAt') or '0')
if tonumber(ARGV[1]) <= narrowed then return 0 end
redis.call('HSET', KEYS[1], 'narrowedAt', redis.call('HGET', KEYS[1], 'issued') or '0')
local limit = tonumber(redis.call('HGET', KEYS[1], 'limit') or ARGV[2])
local next = math.max(1, math.floor(limit * 0.85))
redis.call('HSET', KEYS[1], 'limit', next, 'streak', 0)
redis.call('HINCRBY', KEYS[1], 'narrowings', 1)
return next
`;

type Scripts = {
	ccAcquire(state: string, holders: string, member: string, leaseMs: number, cap: number): Promise<number>;
	ccRelease(state: string, holders: string, channel: string, member: string, success: '0' | '1'): Promise<number>;
	ccNarrow(state: string, ticket: number, cap: number): Promise<number>;
};

/** Teaches a connection the limiter's scripts (sent once, then called by hash; sent again after a Redis restart). */
export function withLimiterScripts(redis: Redis): Redis & Scripts {
	if (!(redis as Partial<Scripts>).ccAcquire) {
		redis.defineCommand('ccAcquire', {numberOfKeys: 2, lua: ACQUIRE});
		redis.defineCommand('ccRelease', {numberOfKeys: 3, lua: RELEASE});
		redis.defineCommand('ccNarrow', {numberOfKeys: 1, lua: NARROW});
	}
	return redis as Redis & Scripts;
}

/** One endpoint's budget as it stands (for `batch status --queue` and the benchmark). */
export type EndpointLimit = {readonly endpoint: string; readonly limit: number; readonly max: number; readonly inFlight: number; readonly peak: number; readonly narrowings: number};

export async function readEndpointLimit(redis: Redis, endpoint: string): Promise<EndpointLimit | null> {
	const keys = limitKeys(endpoint);
	const state = await redis.hgetall(keys.state);
	if (!state['limit']) return null;
	// Leases still running by the server's clock (an expired one is a slot given back).
	const [seconds, micros] = await redis.time();
	const now = Number(seconds) * 1000 + Math.floor(Number(micros) / 1000);
	return {endpoint, limit: Number(state['limit']), max: Number(state['max'] ?? state['limit']), inFlight: await redis.zcount(keys.holders, now, '+inf'), peak: Number(state['peak'] ?? 0), narrowings: Number(state['narrowings'] ?? 0)};
}

/** Sets an endpoint's cap (a coordinator starting or re-attaching to its batch): the width starts again at the cap. */
export async function setEndpointCap(redis: Redis, endpoint: string, cap: number): Promise<void> {
	await redis.hset(limitKeys(endpoint).state, {limit: cap, max: cap, streak: 0});
}

export type RedisLimiterOptions = {
	/** Commands (scripts are defined on it). */
	readonly redis: Redis;
	/** A second connection for the release messages (a subscribed connection runs no other commands). */
	readonly subscriber: Redis;
	/** The batch's cap, used for an endpoint Redis has no budget for yet (a worker's own endpoint). */
	readonly cap: number;
	readonly adaptive: boolean;
	/** @default 'headers' */
	readonly pacing?: Pacing;
	/** Unique per process: the prefix of its slot names. */
	readonly holder: string;
	/** Fixed lease; default four times the recent typical request time, at least 5 s. */
	readonly leaseMs?: number;
};

const MIN_LEASE_MS = 5000;
const POLL_MS = 250;

export type RedisLimiter = Limiter & {close(): Promise<void>};

export function createRedisLimiter(options: RedisLimiterOptions): RedisLimiter {
	const redis = withLimiterScripts(options.redis);
	const {subscriber} = options;
	let typicalMs: number | null = null;
	const leaseMs = () => options.leaseMs ?? Math.max(MIN_LEASE_MS, Math.round(4 * (typicalMs ?? MIN_LEASE_MS)));
	let local = 0;
	let active = 0;
	let overdue = 0;
	/** Local ticket -> the endpoint and the server's ticket, for a 429 that comes after its slot was given back. */
	const tickets = new Map<number, {endpoint: string; remote: number}>();
	/** Per endpoint: how many release messages came, and who waits for the next. */
	const channels = new Map<string, {generation: number; waiters: Set<() => void>}>();
	const byChannel = new Map<string, string>();
	let lastLimit = options.cap;
	const pacing = options.pacing ?? 'headers';
	const turn = turnTaker((endpoint) => claimRemoteStart(redis, limitKeys(endpoint).state), hold);

	const onMessage = (channel: string) => {
		const endpoint = byChannel.get(channel);
		const entry = endpoint === undefined ? undefined : channels.get(endpoint);
		if (!entry) return;
		entry.generation++;
		for (const wake of [...entry.waiters]) wake();
	};
	subscriber.on('message', onMessage);
	const channelOf = (endpoint: string) => {
		let entry = channels.get(endpoint);
		if (!entry) {
			entry = {generation: 0, waiters: new Set()};
			channels.set(endpoint, entry);
			const name = limitKeys(endpoint).channel;
			byChannel.set(name, endpoint);
			void subscriber.subscribe(name).catch(() => undefined);
		}
		return entry;
	};
	const waitForRelease = (entry: {waiters: Set<() => void>}, signal?: AbortSignal) =>
		new Promise<void>((resolve) => {
			const done = () => {
				clearTimeout(timer);
				entry.waiters.delete(done);
				signal?.removeEventListener('abort', done);
				resolve();
			};
			const timer = setTimeout(done, POLL_MS);
			entry.waiters.add(done);
			signal?.addEventListener('abort', done, {once: true});
		});

	const acquire = async (endpoint: string, member: string, signal?: AbortSignal): Promise<number> => {
		const keys = limitKeys(endpoint);
		const entry = channelOf(endpoint);
		for (;;) {
			if (signal?.aborted) throw abortReason(signal);
			const seen = entry.generation;
			const ticket = Number(await redis.ccAcquire(keys.state, keys.holders, member, leaseMs(), options.cap));
			if (ticket > 0) return ticket;
			// A slot given back while the script ran: try again at once.
			if (entry.generation !== seen) continue;
			await waitForRelease(entry, signal);
		}
	};

	const limiter: RedisLimiter = {
		async run<T>(task: (slot: Slot) => Promise<T>, signal?: AbortSignal, endpoint = 'default'): Promise<T> {
			// The quota's turn first, holding no slot (a long pause must not outlive a slot's lease).
			if (pacing === 'headers') await turn(endpoint, signal);
			const ticket = ++local;
			const member = `${options.holder}:${ticket}`;
			const remote = await acquire(endpoint, member, signal);
			tickets.set(ticket, {endpoint, remote});
			if (tickets.size > 10_000) tickets.delete(tickets.keys().next().value!);
			active++;
			const started = Date.now();
			const keys = limitKeys(endpoint);
			let held = true;
			// Redis ends the lease on its own; this only keeps the local counts true.
			const lease = setTimeout(() => {
				if (!held) return;
				held = false;
				active--;
				overdue++;
			}, leaseMs());
			lease.unref();
			let ok = false;
			try {
				const result = await task({ticket});
				ok = true;
				const took = Date.now() - started;
				typicalMs = typicalMs === null ? took : 0.9 * typicalMs + 0.1 * took;
				return result;
			} finally {
				clearTimeout(lease);
				if (held) active--;
				else overdue--;
				held = false;
				// Not awaited: the reply goes back to the episode now; the release follows in order on the connection.
				redis.ccRelease(keys.state, keys.holders, keys.channel, member, ok && options.adaptive ? '1' : '0').catch(() => undefined);
			}
		},
		observe(observation) {
			if (pacing === 'aimd') {
				if (observation.rateLimited) limiter.rateLimited(observation.ticket);
				return;
			}
			const known = observation.ticket === undefined ? undefined : tickets.get(observation.ticket);
			const endpoint = known?.endpoint ?? observation.endpoint ?? 'default';
			// The server's ticket orders replies across workers.
			observeRemote(redis, limitKeys(endpoint).state, paceObservation({...observation, ticket: known?.remote}, Date.now()))
				.then((narrow) => {
					if (narrow) limiter.rateLimited(observation.ticket);
				})
				.catch(() => undefined);
		},
		rateLimited(ticket?: number) {
			if (!options.adaptive || ticket === undefined) return;
			const known = tickets.get(ticket);
			if (!known) return;
			redis
				.ccNarrow(limitKeys(known.endpoint).state, known.remote, options.cap)
				.then((limit) => {
					if (Number(limit) > 0) lastLimit = Number(limit);
				})
				.catch(() => undefined);
		},
		// Counted when the slot is given back (RELEASE), where the endpoint is known.
		succeeded() {},
		get active() {
			return active;
		},
		get pending() {
			return 0;
		},
		get limit() {
			return lastLimit;
		},
		get max() {
			return options.cap;
		},
		get overdue() {
			return overdue;
		},
		/** Wakes every waiter and stops listening (the connections are the caller's to close). */
		async close() {
			for (const entry of channels.values()) for (const wake of [...entry.waiters]) wake();
			subscriber.off('message', onMessage);
		},
	};
	return limiter;
}

function abortReason(signal: AbortSignal): Error {
	return signal.reason instanceof Error ? signal.reason : Object.assign(new Error('aborted'), {name: 'AbortError'});
}
