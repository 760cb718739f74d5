import type {Limiter, Slot} from './limiter.js';

/*
 * The model-call limiter of a batch that runs on several threads: one budget of calls in flight
 * across all of them, kept in a SharedArrayBuffer and changed with Atomics, so the endpoint sees one
 * bounded stream however many workers there are. The same rules as the in-process limiter
 * (limiter.ts): a 429 narrows the width by 15% at most once per window, each round trip at full width
 * wins one back, and a request that outlives its lease gives its slot back.
 */

const ACTIVE = 0;
const LIMIT = 1;
const MAX = 2;
const ISSUED = 3;
const NARROWED_AT = 4;
const STREAK = 5;
const OVERDUE = 6;
const ADAPTIVE = 7;
const SIZE = 8;

/** Atomics.waitAsync is in Node 16 and later; TypeScript's ES2022 library does not declare it yet. */
const waitAsync = (Atomics as unknown as {waitAsync: (array: Int32Array, index: number, value: number, timeout: number) => {async: boolean; value: Promise<string> | string}}).waitAsync;

const DECREASE = 0.85;
const MIN_LEASE_MS = 5000;

/** The shared state of a limiter, to pass to worker threads. */
export function sharedLimiterState(concurrency: number, adaptive = true): SharedArrayBuffer {
	if (!Number.isInteger(concurrency) || concurrency < 1) throw new Error(`concurrency must be a positive integer (got ${concurrency})`);
	const buffer = new SharedArrayBuffer(SIZE * Int32Array.BYTES_PER_ELEMENT);
	const state = new Int32Array(buffer);
	state[LIMIT] = concurrency;
	state[MAX] = concurrency;
	state[ADAPTIVE] = adaptive ? 1 : 0;
	return buffer;
}

/** A limiter over shared state: one per thread, all of them one budget. */
export function createSharedLimiter(buffer: SharedArrayBuffer, options: {leaseMs?: number; now?: () => number} = {}): Limiter {
	const state = new Int32Array(buffer);
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

	return {
		async run<T>(task: (slot: Slot) => Promise<T>, signal?: AbortSignal): Promise<T> {
			await acquire(signal);
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
}

function abortReason(signal: AbortSignal): Error {
	return signal.reason instanceof Error ? signal.reason : Object.assign(new Error('aborted'), {name: 'AbortError'});
}
