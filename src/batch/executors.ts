import {existsSync} from 'node:fs';
import {fileURLToPath} from 'node:url';
import {Worker} from 'node:worker_threads';
import type {Runtime} from '../app/runtime.js';
import type {BatchItem} from '../domain/batch.js';
import {writeStats} from '../store/sessionStore.js';
import type {Seed} from '../domain/seed.js';
import {usageCall, type UsageCall} from '../llm/usage.js';
import {type ItemEnd, type ItemHooks, type ItemSettings, executeItem} from './item.js';
import type {FromWorker, ToWorker, WorkerInit} from './workerProtocol.js';

/**
 * Where a batch's items run: in this thread, or spread over worker threads that share one
 * model-call limiter. Either way the coordinator (runner.ts) hands out items, hears how each went,
 * and alone writes the batch journal.
 */
export type Executor = {
	/** Items in flight at once. */
	readonly width: number;
	run(index: number, item: BatchItem, hooks: ItemHooks): Promise<ItemEnd>;
	/** Interrupts the items in flight (they end saved and resumable). */
	stop(): void;
	close(): Promise<void>;
};

export function inProcessExecutor(options: {runtime: Runtime; seedOf: (seedId: string) => Seed; settings: ItemSettings; parallel: number; signal: AbortSignal; onCall: (call: UsageCall) => void}): Executor {
	const unsubscribe = options.runtime.gateway.onEvent((event) => {
		if (event.type === 'call_done' || event.type === 'call_failed') options.onCall(usageCall(event.call));
	});
	return {
		width: options.parallel,
		run: (_index, item, hooks) => executeItem(options.runtime, item, options.seedOf, options.settings, options.signal, hooks),
		stop: () => undefined,
		close: async () => unsubscribe(),
	};
}

/**
 * A worker thread running workerMain: the compiled script in dist; under tsx (tests, development)
 * the TypeScript file, loaded after registering tsx in the thread (a worker thread does not inherit
 * the loader hooks that `--import tsx` registered in the main thread).
 */
function startWorker(workerData: WorkerInit, perThread: number): Worker {
	const resourceLimits = {maxOldGenerationSizeMb: heapBudgetMb(perThread)};
	const js = new URL('./workerMain.js', import.meta.url);
	if (existsSync(fileURLToPath(js))) return new Worker(js, {workerData, resourceLimits});
	const ts = new URL('./workerMain.ts', import.meta.url).href;
	const tsx = import.meta.resolve('tsx/esm/api');
	return new Worker(`import(${JSON.stringify(tsx)}).then((api) => { api.register(); return import(${JSON.stringify(ts)}); })`, {eval: true, workerData, resourceLimits});
}

/**
 * A thread's old-generation heap budget. V8 lets each heap grow far past what is live before it
 * collects, and every thread has its own heap: two threads at parallel 64 peaked at 550-600 MB RSS
 * against 385 MB for one. Measured live need: about 40 MB for the runtime (universe, KB indexes) and
 * under 1 MB per episode in flight (a whole 64-wide batch ran in a 100 MB heap, with GC thrash); the
 * budget gives each thread that with room (2 MB per episode, 128 MB floor), so a thread collects
 * sooner instead of growing, and still never runs short.
 */
export function heapBudgetMb(episodesInFlight: number): number {
	return Math.max(128, 64 + 2 * episodesInFlight);
}

/**
 * `workers` threads, each running up to its share of `parallel` items; calls stay within the one
 * shared limiter whatever thread makes them. A worker that dies ends its items in flight as
 * failed to start (their sessions stay as saved, resumable by the next run).
 */
export async function workerExecutor(options: {workers: number; parallel: number; init: WorkerInit; onCall: (call: UsageCall) => void; onNotice: (message: string) => void}): Promise<Executor> {
	type Pending = {hooks: ItemHooks; resolve: (end: ItemEnd) => void};
	type Thread = {worker: Worker; pending: Map<number, Pending>; closed: Promise<void>};
	const threads: Thread[] = [];
	for (let i = 0; i < options.workers; i++) {
		const worker = startWorker(options.init, Math.ceil(options.parallel / options.workers));
		const pending = new Map<number, Pending>();
		let ready!: () => void;
		let failed!: (error: Error) => void;
		const started = new Promise<void>((resolve, reject) => {
			ready = resolve;
			failed = reject;
		});
		let markClosed!: () => void;
		const closed = new Promise<void>((resolve) => (markClosed = resolve));
		worker.on('message', (message: FromWorker) => {
			switch (message.type) {
				case 'ready':
					ready();
					break;
				case 'started':
					pending.get(message.index)?.hooks.started(message.status, message.resumed);
					break;
				case 'retried':
					pending.get(message.index)?.hooks.retried(message.reason, message.delayMs);
					break;
				case 'ended': {
					const waiting = pending.get(message.index);
					pending.delete(message.index);
					waiting?.resolve(message.end);
					break;
				}
				case 'call':
					options.onCall(message.call);
					break;
				case 'notice':
					options.onNotice(message.message);
					break;
				case 'closed':
					// Each thread has its own module state: its writes are added to this thread's figures.
					writeStats.chars += message.writtenChars;
					markClosed();
					break;
			}
		});
		worker.on('error', (error) => {
			failed(error);
			options.onNotice(`a batch worker thread failed: ${error.message}`);
			for (const [index, waiting] of pending) {
				pending.delete(index);
				waiting.resolve({kind: 'start_failed', message: `its worker thread failed: ${error.message}`});
			}
		});
		worker.on('exit', () => markClosed());
		threads.push({worker, pending, closed});
		await started;
	}
	const post = (thread: Thread, message: ToWorker) => thread.worker.postMessage(message);
	return {
		width: options.parallel,
		run(index, item, hooks) {
			// The thread with the fewest items in flight.
			const thread = threads.reduce((best, candidate) => (candidate.pending.size < best.pending.size ? candidate : best));
			return new Promise<ItemEnd>((resolve) => {
				thread.pending.set(index, {hooks, resolve});
				post(thread, {type: 'item', index, item});
			});
		},
		stop() {
			for (const thread of threads) post(thread, {type: 'stop'});
		},
		async close() {
			for (const thread of threads) post(thread, {type: 'close'});
			await Promise.all(threads.map((thread) => thread.closed));
			await Promise.all(threads.map((thread) => thread.worker.terminate()));
		},
	};
}
