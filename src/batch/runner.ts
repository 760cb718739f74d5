import {existsSync, renameSync} from 'node:fs';
import type {Runtime} from '../app/runtime.js';
import type {BatchItem, BatchItemStatus, BatchManifest} from '../domain/batch.js';
import {callPrice} from '../llm/pricing.js';
import type {Limiter} from '../llm/limiter.js';
import {createSharedLimiter, sharedLimiterState} from '../llm/sharedLimiter.js';
import {type UsageCall, UsageTally} from '../llm/usage.js';
import {type Executor, inProcessExecutor, workerExecutor} from './executors.js';
import {type ItemSettings, startItem} from './item.js';
import type {WorkerInit} from './workerProtocol.js';
import {readSession} from '../store/sessionStore.js';
import {SetupBreaker, type SetupStop, type StorageStop} from '../llm/breaker.js';
import type {Seed} from '../domain/seed.js';
import type {EpisodeOptions} from '../episode/createSession.js';
import type {BatchStore, BatchWriter} from '../store/batchStore.js';
import {errorMessage} from '../util/errors.js';
import {findStorageError} from '../util/storageError.js';
import {eachLimited} from '../util/limited.js';

/** Where a batch stands, counted as items change (never by re-reading the manifest). */
export type BatchProgress = {
	readonly total: number;
	/**
	 * Items settled for this run: those it does not run (finished before, or errors it leaves), and
	 * those whose turn in this run is over. An errored item being retried is not settled until its
	 * retry ends (counting completed + error made a rerun's counter stand still: "[9/12]" eight times).
	 */
	readonly done: number;
	readonly byStatus: Readonly<Record<BatchItemStatus, number>>;
	/** Mean 3H of the completed items so far (null before the first). */
	readonly meanThreeH: number | null;
};

export type BatchEvent =
	| {readonly type: 'item_started'; readonly item: BatchItem; readonly resumed: boolean; readonly progress: BatchProgress}
	| {readonly type: 'item_finished'; readonly item: BatchItem; readonly progress: BatchProgress}
	/** The item could not even start or resume; the batch goes on. */
	| {readonly type: 'item_failed'; readonly item: BatchItem; readonly message: string; readonly progress: BatchProgress}
	| {readonly type: 'call_retried'; readonly item: BatchItem; readonly reason: string; readonly delayMs: number}
	/** Something the run noticed once (a session file set aside, a stale lock taken over). */
	| {readonly type: 'notice'; readonly message: string}
	/**
	 * The batch is this run's (its lock taken) and lost sessions are back in the plan: what will run,
	 * on how many threads. Sent once, before any item starts.
	 */
	| {readonly type: 'planned'; readonly total: number; readonly todo: number; readonly recovered: number; readonly threads: number};

export type RunBatchInput = {
	readonly runtime: Runtime;
	readonly store: BatchStore;
	readonly manifest: BatchManifest;
	readonly seedOf: (seedId: string) => Seed;
	/** The episode settings of every item (the id is the item's own). */
	readonly episode: Omit<EpisodeOptions, 'id'>;
	/** Episodes in flight at once; model calls are further bounded by the gateway's limiter. */
	readonly parallel: number;
	/** Resume items that ended in an error flag and retry their failed step. @default true */
	readonly retryErrors?: boolean;
	readonly allowModelChange?: boolean;
	readonly signal?: AbortSignal;
	readonly onEvent?: (event: BatchEvent) => void;
	readonly now?: () => Date;
	/**
	 * Stop starting items after this many items in a row failed the same way with a set-up failure
	 * (a bad key, no quota, an unknown model, a rejected parameter: see SETUP_FAILURES); the items
	 * still in flight are interrupted, saved and resumable. 0 never stops. @default 3
	 */
	readonly stopAfter?: number;
	/**
	 * Worker threads to spread the items over (one shared model-call limiter across them), with what
	 * a worker needs to build its own runtime; absent or 1 runs everything in this thread.
	 */
	readonly workers?: {readonly count: number; readonly init: Omit<WorkerInit, 'limiter' | 'settings'>; readonly concurrency: number; readonly adaptive: boolean; readonly onLimiter?: (limiter: Limiter) => void};
	/**
	 * Another executor to run the items through (the Redis queue of src/queue/: workers on other
	 * machines), built once the items to run are known; it is told of every call for the usage tally.
	 */
	readonly executor?: (context: ExecutorContext) => Promise<Executor>;
};

export type ExecutorContext = {readonly settings: ItemSettings; readonly todo: readonly number[]; readonly onCall: (call: UsageCall) => void; readonly onNotice: (message: string) => void};

/** Why a batch stopped early: the same set-up failure hit `count` items in a row (`id` is the last session). */
export type BatchStop = SetupStop;

export type RunBatchResult = {
	readonly manifest: BatchManifest;
	/** Stopped by the signal before every item had its turn. */
	readonly interrupted: boolean;
	/** What this run's model calls cost (not earlier runs of the same batch); no call records are kept. */
	readonly usage: UsageTally;
	/** Episodes this run completed. */
	readonly completed: number;
	/** Set when the batch stopped on a repeated set-up failure. */
	readonly stopped: BatchStop | null;
	/**
	 * Set when the batch stopped because its folder could not be written (disk full, read-only,
	 * permissions): its message names the file, the folder, the errno and what to do.
	 */
	readonly storage: StorageStop | null;
};

/** Items this run works on: everything unfinished, and errors unless told to leave them. */
export function itemsToRun(manifest: BatchManifest, retryErrors: boolean): number[] {
	return manifest.items.flatMap((item, index) => (item.status === 'completed' || (item.status === 'error' && !retryErrors) ? [] : [index]));
}

/** Saves a paired variant's first state (from its first variant's session); returns why not, or null. */
async function startShared(runtime: Runtime, item: BatchItem, seedOf: (seedId: string) => Seed, settings: ItemSettings): Promise<string | null> {
	try {
		(await startItem(runtime, item, seedOf, settings)).close();
		return null;
	} catch (error) {
		return errorMessage(error);
	}
}

/** `todo` grouped by seed and trial when items share a blueprint (`sharedFrom`), in plan order. */
export function pairGroups(manifest: BatchManifest, todo: readonly number[]): number[][] {
	const groups = new Map<string, number[]>();
	for (const index of todo) {
		const item = manifest.items[index]!;
		const key = item.sharedFrom ?? (item.variant ? item.sessionId : `#${index}`);
		const group = groups.get(key);
		if (group) group.push(index);
		else groups.set(key, [index]);
	}
	return [...groups.values()];
}

/**
 * Items whose session file is gone or unreadable although the manifest has them started or done (a
 * deleted or damaged file): they are run again. An unreadable file is set aside first
 * (`<id>.json.unreadable-<time>`, never deleted), so no saved work is lost and the rerun starts clean.
 * Finished sessions are checked through the folder's listing (`SessionStore.list`): parsed and
 * validated against the schema once, then answered from its index while unchanged, so a rerun of a
 * 20,000-episode batch costs a look at each file's inode, not a parse. A session that is whole JSON
 * but breaks the schema is unreadable too (it used to count as `lost` in `report` and never run again).
 */
function recoverLost(manifest: BatchManifest, runtime: Runtime, notice: (message: string) => void, remote: boolean): number[] {
	const lost: number[] = [];
	const finished = manifest.items.some((item) => item.status === 'completed');
	const listing = finished ? runtime.store.list() : {sessions: [], problems: []};
	const readable = new Set(listing.sessions.map((summary) => summary.id));
	const problems = new Map(listing.problems.map((problem) => [problem.file, problem.message]));
	manifest.items.forEach((item, index) => {
		if (item.status === 'pending') return;
		// Items running on a queue's workers have their sessions there until they end.
		if (remote && item.status !== 'completed' && item.status !== 'error') return;
		const file = runtime.store.fileFor(item.sessionId);
		const journal = runtime.store.journalFor(item.sessionId);
		if (!runtime.store.exists(item.sessionId)) {
			// Said, so a rerun never looks like "0 to run" while it quietly redoes work (or seems to skip it).
			notice(`session ${item.sessionId} is missing although the batch had it ${item.errorFlag ?? item.status}; run again`);
			lost.push(index);
			return;
		}
		try {
			if (item.status === 'completed') {
				const problem = problems.get(file) ?? problems.get(journal);
				if (problem !== undefined) throw new Error(problem);
				if (!readable.has(item.sessionId)) readSession(file);
			} else readSession(file);
		} catch (error) {
			const stamp = new Date().toISOString().replace(/[:.]/g, '-');
			for (const candidate of [file, journal]) if (existsSync(candidate)) renameSync(candidate, `${candidate}.unreadable-${stamp}`);
			notice(`session ${item.sessionId} could not be read (${errorMessage(error).slice(0, 160)}); set aside as *.unreadable-${stamp} and run again`);
			lost.push(index);
		}
	});
	return lost;
}

/**
 * Runs a batch's unfinished items through the one episode engine, `parallel` at a time. Each item is
 * an ordinary session file; each item's start and end are appended to the batch journal as they
 * happen, so a killed batch resumes where it stood: finished items are never re-run, running ones
 * continue from their last saved step, items whose session file is missing or unreadable run again,
 * and items that ended in an error flag are retried (they are infrastructure failures, never
 * results). Nothing finished is kept in memory: each session is released when its episode ends and
 * usage is summed as calls arrive.
 */
export async function runBatch(input: RunBatchInput): Promise<RunBatchResult> {
	const {store} = input;
	const notice = (message: string) => input.onEvent?.({type: 'notice', message});
	const writer = store.open(input.manifest, notice);
	// The user's Ctrl-C, or the batch's own stop after repeated set-up failures or a folder that cannot be written.
	const breaker = new SetupBreaker(input.stopAfter ?? 3, input.signal);
	let result: RunBatchResult;
	try {
		result = await runOpen(input, writer, breaker, notice);
	} catch (error) {
		breaker.dispose();
		try {
			writer.close();
		} catch {
			// The run's own failure is the one to report; the journal stays for the next run.
		}
		throw error;
	}
	breaker.dispose();
	// The snapshot and the lock's release (last). A snapshot the disk refuses stops the batch like any
	// other storage failure: the journal stays, so the manifest still reads whole.
	try {
		writer.close();
	} catch (error) {
		const storage = findStorageError(error);
		if (!storage) throw error;
		return {...result, storage: result.storage ?? {code: storage.code, count: 1, message: storage.message, id: null}};
	}
	return result;
}

async function runOpen(input: RunBatchInput, writer: BatchWriter, breaker: SetupBreaker, notice: (message: string) => void): Promise<RunBatchResult> {
	const {runtime} = input;
	const signal = breaker.signal;
	const manifest = writer.manifest;
	const now = input.now ?? (() => new Date());
	const at = () => now().toISOString();
	// A journal line that cannot be written stops the batch at once (nothing more could be recorded);
	// the change stays in memory, for the snapshot written on close if the disk lets it.
	const record = (index: number, patch: Partial<BatchItem>): BatchItem => {
		try {
			return writer.update(index, patch, at());
		} catch (error) {
			const storage = findStorageError(error);
			if (!storage) throw error;
			breaker.storageFailure({code: storage.code, message: storage.message, id: null, now: true});
			return manifest.items[index]!;
		}
	};
	const recovered = recoverLost(manifest, runtime, notice, Boolean(input.executor));
	for (const index of recovered) record(index, {status: 'pending', threeH: null, tdq: null, clean: null, errorFlag: null, termination: null});
	const todo = itemsToRun(manifest, input.retryErrors ?? true);
	// Never more threads than items, counted after recovery (before it, a rerun of lost items looked like nothing to do).
	const threads = input.workers ? Math.max(1, Math.min(input.workers.count, todo.length)) : 1;
	input.onEvent?.({type: 'planned', total: manifest.items.length, todo: todo.length, recovered: recovered.length, threads});
	const usage = new UsageTally((call) => callPrice(call, runtime.settings.prices));
	const settings: ItemSettings = {episode: input.episode, ...(input.allowModelChange ? {allowModelChange: true} : {})};
	const onCall = (call: UsageCall) => usage.add(call);
	let executor: Executor;
	if (input.executor) executor = await input.executor({settings, todo, onCall, onNotice: notice});
	else if (input.workers && threads > 1) {
		const limiterState = sharedLimiterState(input.workers.concurrency, input.workers.adaptive, runtime.settings.rateLimitPacing);
		input.workers.onLimiter?.(createSharedLimiter(limiterState));
		executor = await workerExecutor({workers: threads, parallel: input.parallel, init: {...input.workers.init, settings, limiter: limiterState}, onCall, onNotice: notice});
	} else executor = inProcessExecutor({runtime, seedOf: input.seedOf, settings, parallel: input.parallel, signal, onCall});
	const stopExecutor = () => executor.stop();
	signal.addEventListener('abort', stopExecutor, {once: true});
	// Counted as items change, so a progress line never re-reads the manifest.
	const byStatus: Record<BatchItemStatus, number> = {pending: 0, running: 0, awaiting_assistant: 0, completed: 0, error: 0};
	let threeHSum = 0;
	let threeHCount = 0;
	for (const item of manifest.items) {
		byStatus[item.status]++;
		if (item.status === 'completed' && item.threeH !== null) {
			threeHSum += item.threeH;
			threeHCount++;
		}
	}
	// Settled for this run: every item it does not run, and each whose turn ends.
	let settled = manifest.items.length - todo.length;
	const progress = (): BatchProgress => ({total: manifest.items.length, done: settled, byStatus: {...byStatus}, meanThreeH: threeHCount > 0 ? threeHSum / threeHCount : null});
	let completed = 0;
	const update = (index: number, patch: Partial<BatchItem>) => {
		const before = manifest.items[index]!;
		const item = record(index, patch);
		if (before.status !== item.status) {
			byStatus[before.status]--;
			byStatus[item.status]++;
		}
		if (before.status === 'completed' && before.threeH !== null) {
			threeHSum -= before.threeH;
			threeHCount--;
		}
		if (item.status === 'completed' && item.threeH !== null) {
			threeHSum += item.threeH;
			threeHCount++;
		}
		return item;
	};

	// Counted before the item's closing event, so the line it prints counts the item itself.
	const counted = new Set<number>();
	const settle = (index: number) => {
		if (counted.has(index)) return;
		counted.add(index);
		settled++;
	};
	const runItem = async (index: number) => {
		try {
			await runOne(index);
		} finally {
			settle(index);
		}
	};

	const runOne = async (index: number) => {
		const item = manifest.items[index]!;
		// On a queue, a paired variant's first variant ended on some worker and its session is now here:
		// the variant starts here from its blueprint and shards, and a worker goes on from that start.
		if (input.executor && item.sharedFrom && !runtime.store.exists(item.sessionId)) {
			const start = await startShared(runtime, item, input.seedOf, settings);
			if (start) {
				const failed = update(index, {status: 'error', errorFlag: 'START_FAILED', attempts: item.attempts + 1});
				settle(index);
			input.onEvent?.({type: 'item_failed', item: failed, message: start, progress: progress()});
				return;
			}
		}
		const end = await executor.run(index, item, {
			started: (status, resumed) => input.onEvent?.({type: 'item_started', item: update(index, {status, attempts: item.attempts + 1}), resumed, progress: progress()}),
			retried: (reason, delayMs) => input.onEvent?.({type: 'call_retried', item: manifest.items[index]!, reason, delayMs}),
		});
		if (end.kind === 'start_failed') {
			const failed = update(index, {status: 'error', errorFlag: 'START_FAILED', attempts: item.attempts + 1});
			settle(index);
			input.onEvent?.({type: 'item_failed', item: failed, message: end.message, progress: progress()});
			return;
		}
		if (end.kind === 'internal') {
			const failed = update(index, end.patch);
			settle(index);
			input.onEvent?.({type: 'item_failed', item: failed, message: end.message, progress: progress()});
			return;
		}
		if (end.kind === 'storage') {
			// The session stays as last saved; the item keeps its status, so the next run resumes it.
			breaker.storageFailure({code: end.code, message: end.message, id: item.sessionId});
			settle(index);
			input.onEvent?.({type: 'item_failed', item: manifest.items[index]!, message: end.message, progress: progress()});
			return;
		}
		const {session} = end;
		if (session.status === 'completed') breaker.success();
		else if (session.status === 'error') breaker.failure({kind: session.errorKind, role: session.errorRole, message: session.errorMessage ?? '', id: session.id});
		const finished = update(index, end.patch);
		// A session that had ended before this run (its manifest line was lost) is not this run's work.
		if (finished.status === 'completed' && !end.alreadyEnded) completed++;
		settle(index);
		if (!signal.aborted || finished.status === 'completed' || finished.status === 'error') input.onEvent?.({type: 'item_finished', item: finished, progress: progress()});
	};

	try {
		// A paired batch's variants of one seed and trial run one after another in one slot, the first
		// first: the others start from its blueprint and shards. Unpaired items are groups of one.
		await eachLimited(pairGroups(manifest, todo), executor.width, signal, async (group) => {
			for (const index of group) {
				if (signal.aborted) return;
				await runItem(index);
			}
		});
	} finally {
		signal.removeEventListener('abort', stopExecutor);
		await executor.close();
	}
	const unfinished = manifest.items.some((item) => item.status !== 'completed' && item.status !== 'error');
	return {manifest, interrupted: Boolean(input.signal?.aborted) && unfinished, usage, completed, stopped: breaker.stopped, storage: breaker.storageStopped};
}
