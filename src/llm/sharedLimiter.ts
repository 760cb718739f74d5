import {type Limiter, type Pacing, type Slot, hold, paceObservation, turnTaker} from './limiter.js';
import {EMPTY_PACE, PACE_FIELDS, type PaceState, claimStart, observePace, readPace, writePace} from './pacer.js';

/*
 * The model-call limiter of a batch that runs on several threads: one budget of calls in flight
 * across all of them, kept in a SharedArrayBuffer and changed with Atomics, so the endpoint sees one
 * bounded stream however many workers there are. The same rules as the in-process limiter
 * (limiter.ts): a 429 narrows the width by 15% at most once per window, each round trip at full width
 * wins one back, and a request that outlives its lease gives its slot back. With `pacing: 'headers'`
 * the pacing by the server's rate headers (pacer.ts) is shared too: its state per endpoint lives in
 * the same buffer (a table of ENDPOINTS slots keyed by a hash of the endpoint), changed under a spin
 * lock held only while the pure functions run (microseconds).
 */

const ACTIVE = 0;
const LIMIT = 1;
const MAX = 2;
const ISSUED = 3;
const NARROWED_AT = 4;
const STREAK = 5;
const OVERDUE = 6;
const ADAPTIVE = 7;
const LOCK = 8;
const PACING = 9;
/** Endpoints with a pacing state of their own; more share slots (pacing then errs slow, never fast). */
const ENDPOINTS = 8;
const KEYS = 10;
const SIZE = KEYS + ENDPOINTS;
/** Byte offset of the pacing states (Float64, so 8-aligned). */
const PACE_OFFSET = Math.ceil((SIZE * Int32Array.BYTES_PER_ELEMENT) / 8) * 8;

/** Atomics.waitAsync is in Node 16 and later; TypeScript's ES2022 library does not declare it yet. */
const waitAsync = (Atomics as unknown as {waitAsync: (array: Int32Array, index: number, value: number, timeout: number) => {async: boolean; value: Promise<string> | string}}).waitAsync;

const DECREASE = 0.85;
const MIN_LEASE_MS = 5000;

/** The shared state of a limiter, to pass to worker threads. */
export function sharedLimiterState(concurrency: number, adaptive = true, pacing: Pacing = 'headers'): SharedArrayBuffer {
	if (!Number.isInteger(concurrency) || concurrency < 1) throw new Error(`concurrency must be a positive integer (got ${concurrency})`);
	const buffer = new SharedArrayBuffer(PACE_OFFSET + ENDPOINTS * PACE_FIELDS * Float64Array.BYTES_PER_ELEMENT);
	const state = new Int32Array(buffer, 0, SIZE);
	state[LIMIT] = concurrency;
	state[MAX] = concurrency;
	state[ADAPTIVE] = adaptive ? 1 : 0;
	state[PACING] = pacing === 'headers' ? 1 : 0;
	const paces = new Float64Array(buffer, PACE_OFFSET);
	for (let slot = 0; slot < ENDPOINTS; slot++) writePace(EMPTY_PACE, paces, slot * PACE_FIELDS);
	return buffer;
}

/** FNV-1a of the endpoint, never 0 (0 marks a free slot). */
function endpointKey(endpoint: string): number {
	let hash = 0x811c9dc5;
	for (let i = 0; i < endpoint.length; i++) hash = Math.imul(hash ^ endpoint.charCodeAt(i), 0x01000193);
	return hash | 1;
}

/** A limiter over shared state: one per thread, all of them one budget. */
export function createSharedLimiter(buffer: SharedArrayBuffer, options: {leaseMs?: number; now?: () => number} = {}): Limiter {
	const state = new Int32Array(buffer, 0, SIZE);
	const paces = new Float64Array(buffer, PACE_OFFSET);
	const now = options.now ?? Date.now;
	let typicalMs: number | null = null;
	const leaseMs = () => options.leaseMs ?? Math.max(MIN_LEASE_MS, 4 * (typicalMs ?? MIN_LEASE_MS));

	const tryTake = (): boolean => {
		for (;;) {
			const active = Atomics.load(state, ACTIVE);
			if (active >= Atomics.load(state, LIMIT)) return false;
			if (Atomics.compareExchange(state, ACTIVE, active, active + 1) === active) return true;
		}
	};
	const giveBack = () => {
		Atomics.sub(state, ACTIVE, 1);
		Atomics.notify(state, ACTIVE, 1);
	};
	const setLimit = (from: number, to: number) => {
		if (from === to) return;
		if (Atomics.compareExchange(state, LIMIT, from, to) === from) {
			Atomics.store(state, STREAK, 0);
			// A wider budget may let several waiters in, anywhere.
			if (to > from) Atomics.notify(state, ACTIVE, to - from);
		}
	};

	/** Runs `change` on an endpoint's pacing state under the lock. */
	const withPace = <T>(endpoint: string, change: (pace: PaceState) => {state: PaceState; result: T}): T => {
		while (Atomics.compareExchange(state, LOCK, 0, 1) !== 0);
		try {
			const key = endpointKey(endpoint);
			let slot = -1;
			for (let i = 0; i < ENDPOINTS && slot === -1; i++) if (state[KEYS + i] === key) slot = i;
			for (let i = 0; i < ENDPOINTS && slot === -1; i++) {
				if (state[KEYS + i] !== 0) continue;
				state[KEYS + i] = key;
				slot = i;
			}
			if (slot === -1) slot = (key >>> 0) % ENDPOINTS;
			const {state: next, result} = change(readPace(paces, slot * PACE_FIELDS));
			writePace(next, paces, slot * PACE_FIELDS);
			return result;
		} finally {
			Atomics.store(state, LOCK, 0);
		}
	};
	const turn = turnTaker(
		(endpoint) =>
			withPace(endpoint, (pace) => {
				const claimed = claimStart(pace, now());
				return {state: claimed.state, result: claimed.waitMs};
			}),
		hold,
	);
	const paced = async (endpoint: string, signal?: AbortSignal) => {
		if (Atomics.load(state, PACING) === 1) await turn(endpoint, signal);
	};

	const acquire = async (signal?: AbortSignal) => {
		for (;;) {
			if (signal?.aborted) throw abortReason(signal);
			if (tryTake()) return;
			const seen = Atomics.load(state, ACTIVE);
			// Woken by a slot given back or the budget widened; the timeout re-checks an abort and a
			// width changed by a thread whose notify came first.
			const wait = waitAsync(state, ACTIVE, seen, 200);
			if (wait.async) await wait.value;
		}
	};

	const limiter: Limiter = {
		async run<T>(task: (slot: Slot) => Promise<T>, signal?: AbortSignal, endpoint = 'default'): Promise<T> {
			await acquire(signal);
			try {
				await paced(endpoint, signal);
			} catch (error) {
				giveBack();
				throw error;
			}
			const slot = {ticket: Atomics.add(state, ISSUED, 1) + 1};
			const started = now();
			let held = true;
			const lease = setTimeout(() => {
				if (!held) return;
				held = false;
				Atomics.add(state, OVERDUE, 1);
				giveBack();
			}, leaseMs());
			lease.unref();
			try {
				const result = await task(slot);
				const took = now() - started;
				typicalMs = typicalMs === null ? took : 0.9 * typicalMs + 0.1 * took;
				return result;
			} finally {
				clearTimeout(lease);
				if (held) {
					held = false;
					giveBack();
				} else Atomics.sub(state, OVERDUE, 1);
			}
		},
		observe(observation) {
			if (Atomics.load(state, PACING) === 0) {
				if (observation.rateLimited) limiter.rateLimited(observation.ticket);
				return;
			}
			const narrow = withPace(observation.endpoint ?? 'default', (pace) => {
				const seen = observePace(pace, paceObservation(observation, now()), now());
				return {state: seen.state, result: seen.narrow};
			});
			if (narrow) limiter.rateLimited(observation.ticket);
		},
		rateLimited(ticket?: number) {
			if (Atomics.load(state, ADAPTIVE) === 0) return;
			const narrowedAt = Atomics.load(state, NARROWED_AT);
			if (ticket !== undefined && ticket <= narrowedAt) return;
			// One thread narrows per window: the one that moves the mark first.
			if (Atomics.compareExchange(state, NARROWED_AT, narrowedAt, Atomics.load(state, ISSUED)) !== narrowedAt) return;
			const limit = Atomics.load(state, LIMIT);
			setLimit(limit, Math.max(1, Math.floor(limit * DECREASE)));
		},
		succeeded() {
			if (Atomics.load(state, ADAPTIVE) === 0) return;
			const limit = Atomics.load(state, LIMIT);
			if (limit >= Atomics.load(state, MAX)) return;
			if (Atomics.add(state, STREAK, 1) + 1 >= limit) setLimit(limit, limit + 1);
		},
		get active() {
			return Atomics.load(state, ACTIVE);
		},
		get pending() {
			return 0;
		},
		get limit() {
			return Atomics.load(state, LIMIT);
		},
		get overdue() {
			return Atomics.load(state, OVERDUE);
		},
		get max() {
			return Atomics.load(state, MAX);
		},
	};
	return limiter;
}

function abortReason(signal: AbortSignal): Error {
	return signal.reason instanceof Error ? signal.reason : Object.assign(new Error('aborted'), {name: 'AbortError'});
}
