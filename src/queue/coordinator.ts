import {Queue, QueueEvents, Worker, type Job} from 'bullmq';
import {Redis} from 'ioredis';
import type {ExecutorContext} from '../batch/runner.js';
import type {Executor} from '../batch/executors.js';
import {type ItemEnd, type ItemHooks, itemPatch} from '../batch/item.js';
import type {BatchItem, BatchManifest} from '../domain/batch.js';
import type {Session} from '../domain/session.js';
import {encodeSession} from '../store/sessionCodec.js';
import {readSession, type SessionStore} from '../store/sessionStore.js';
import {errorMessage} from '../util/errors.js';
import {findStorageError} from '../util/storageError.js';
import {retireCheckpoint, seedCheckpoint} from './checkpoint.js';
import {placeSession, unpackSession} from './delivery.js';
import {BATCHES_KEY, PREFIX, refusalsKey, resultQueueName, workQueueName} from './keys.js';
import {readEndpointLimit, setEndpointCap} from './redisLimiter.js';
import {type BatchSpec, ResultMessage, WorkerRefusal, WorkProgress, type WorkJob} from './schemas.js';
import {connectionOptions, type QueueTarget} from './target.js';

/*
 * The coordinator's side of a distributed batch: an Executor (batch/executors.ts) whose items run on
 * worker processes anywhere, through a BullMQ queue on Redis. The batch runner stays what it is for a
 * local batch (plan, journal, progress, summary, exit codes); this executor enqueues one job per item
 * (job id = the item's session id, so enqueueing twice never duplicates), hears workers start items,
 * and takes finished sessions off the results queue into the sessions folder.
 *
 * Nothing here is needed to keep the workers going: stopping the coordinator (Ctrl-C, or a crash)
 * stops following only. Running the batch again rebuilds the state from the journal and the queue:
 * a job still waiting or running is followed again, a finished session waiting on the results queue
 * is taken then, and a session saved here but not yet journaled (killed between the two) is adopted.
 */

/** Job states in which an item is still on its way: follow it, add nothing. */
const LIVE = new Set(['waiting', 'active', 'delayed', 'prioritized', 'waiting-children']);

/** Job options of an item: a worker that throws is retried; its stalls (a killed worker) are counted by the worker (maxStalledCount). */
const JOB_OPTIONS = {attempts: 3, backoff: {type: 'exponential', delay: 2000}, removeOnComplete: false, removeOnFail: false} as const;

type Pending = {readonly index: number; readonly item: BatchItem; readonly hooks: ItemHooks; readonly resolve: (end: ItemEnd) => void};

export type QueueExecutor = Executor & {
	/** The global width of the batch's first remote endpoint, for the progress line. */
	globalWidth(): {limit: number; max: number};
	/** Stops workers taking this batch's jobs (after a run of set-up failures); the next run resumes it. */
	pause(): Promise<void>;
};

export type QueueExecutorOptions = {
	readonly target: QueueTarget;
	readonly spec: BatchSpec;
	readonly manifest: BatchManifest;
	readonly store: SessionStore;
	readonly context: ExecutorContext;
};

/** Fails fast, with the address, when Redis is not there (the queue's own connections would wait for it forever). */
export async function checkRedis(target: QueueTarget): Promise<void> {
	const probe = new Redis({...connectionOptions(target, {failFast: true}), lazyConnect: true, retryStrategy: () => null});
	probe.on('error', () => undefined);
	try {
		await probe.connect();
		await probe.ping();
	} catch (error) {
		throw Object.assign(new Error(`Cannot reach Redis at ${target.display} (${errorMessage(error).slice(0, 200)}). Start it (e.g. redis-server --port ${target.port}) or check --queue.`), {name: 'UserError'});
	} finally {
		probe.disconnect();
	}
}

export async function queueExecutor(options: QueueExecutorOptions): Promise<QueueExecutor> {
	const {target, spec, manifest, store, context} = options;
	const connection = connectionOptions(target);
	const redis = new Redis(connection);
	redis.on('error', () => undefined);
	const work = new Queue<WorkJob>(workQueueName(spec.name), {connection, prefix: PREFIX});
	const results = new Queue<ResultMessage>(resultQueueName(spec.name), {connection, prefix: PREFIX});
	const events = new QueueEvents(workQueueName(spec.name), {connection, prefix: PREFIX});
	work.on('error', () => undefined);
	results.on('error', () => undefined);
	events.on('error', () => undefined);
	await events.waitUntilReady();

	await redis.hset(BATCHES_KEY, spec.name, JSON.stringify(spec));
	const endpoints = [...new Set(Object.values(spec.roles).filter((role) => role.provider === 'openai').map((role) => role.baseURL ?? 'default'))];
	for (const endpoint of endpoints) await setEndpointCap(redis, endpoint, spec.cap);
	await work.resume();

	const pending = new Map<string, Pending>();
	let placing: Pending[] = [];
	let placed: Promise<void> | null = null;
	let stopped = false;
	let width = {limit: spec.cap, max: spec.cap};
	const notice = context.onNotice;
	// Refusals of this batch left by an earlier run's workers are not news for this one.
	await redis.del(refusalsKey(spec.name));
	/** Workers that refuse the batch (a failed preflight, a missing key), each reason said once. */
	const told = new Set<string>();
	const reportRefusals = async () => {
		for (const json of Object.values(await redis.hgetall(refusalsKey(spec.name)))) {
			const refusal = WorkerRefusal.safeParse(safeJson(json));
			if (!refusal.success) continue;
			const {worker, host, reason, retryAt} = refusal.data;
			const key = `${worker}\0${reason}`;
			if (told.has(key)) continue;
			told.add(key);
			notice(`worker ${worker} on ${host} does not serve batch ${spec.name}: ${reason}; it tries again (next at ${retryAt.slice(11, 19)} UTC) and serves the batch once that passes`);
		}
	};

	const settle = (id: string, end: ItemEnd) => {
		const entry = pending.get(id);
		if (!entry) return;
		pending.delete(id);
		entry.resolve(end);
	};
	const localSession = (id: string): Session | null => {
		if (!store.exists(id)) return null;
		try {
			return readSession(store.fileFor(id));
		} catch {
			return null;
		}
	};
	const doneFrom = (session: Session): ItemEnd => ({
		kind: 'done',
		patch: itemPatch(session),
		session: {id: session.id, status: session.status, ...(session.error?.kind ? {errorKind: session.error.kind} : {}), ...(session.error?.role ? {errorRole: session.error.role} : {}), ...(session.error ? {errorMessage: session.error.message} : {})},
	});

	/** Puts one item on the queue, or finds it there already. */
	const place = async (entry: Pending): Promise<WorkJob | null> => {
		const id = entry.item.sessionId;
		const local = localSession(id);
		// Saved here by an earlier run that was killed before it could journal it: nothing to run.
		if (local && (local.status === 'completed' || (local.status === 'error' && entry.item.status !== 'error'))) {
			settle(id, doneFrom(local));
			return null;
		}
		const job = await work.getJob(id);
		const state = job ? await job.getState() : 'missing';
		if (LIVE.has(state)) return null;
		if (job) {
			// Finished on the queue: its session is on the results queue, or this is a rerun of an errored or lost item.
			if (state === 'completed' && (await results.getJob(id))) return null;
			await job.remove();
		}
		// An errored session is retried from where it failed; one a local batch began goes on from its last step.
		if (local) await seedCheckpoint(redis, id, JSON.stringify({t: 'start', format: 'cultureconverse.session-journal', version: 2, session: encodeSession(local)}), {replace: local.status === 'error'});
		return {batch: spec.name, index: entry.index, item: entry.item};
	};

	const placeAll = async (entries: Pending[]) => {
		for (let start = 0; start < entries.length; start += 200) {
			const chunk = entries.slice(start, start + 200);
			const jobs = (await Promise.all(chunk.map(place))).filter((job): job is WorkJob => job !== null);
			if (jobs.length > 0) await work.addBulk(jobs.map((data) => ({name: 'item', data, opts: {...JOB_OPTIONS, jobId: data.item.sessionId}})));
		}
	};

	const takeResult = async (job: Job<ResultMessage>) => {
		const parsed = ResultMessage.safeParse(job.data);
		if (!parsed.success) {
			notice(`a result on the queue could not be read (${parsed.error.issues[0]?.message ?? 'bad shape'}); dropped`);
			return 'unreadable';
		}
		const message = parsed.data;
		// A second delivery of an item already recorded (two workers finished it), or an item this run does not follow.
		if (!pending.has(message.sessionId)) return 'ignored';
		let end: ItemEnd = message.end;
		if (end.kind === 'done' && (end.session.status === 'completed' || end.session.status === 'error')) {
			try {
				if (message.file) placeSession(store.dir, message.sessionId, unpackSession(message.file));
				else if (message.shared) readSession(store.fileFor(message.sessionId));
				else throw new Error('the worker sent no session file');
			} catch (error) {
				// This folder cannot take the session (disk full, read-only): a storage stop, not the item's failure.
				const storage = findStorageError(error);
				end = storage ? {kind: 'storage', code: storage.code, message: storage.message} : {kind: 'start_failed', message: `worker ${message.worker}: ${errorMessage(error)}${message.shared ? ` (it wrote to a shared folder, which must be ${store.dir} here)` : ''}`};
			}
		}
		for (const call of message.calls) context.onCall(call);
		settle(message.sessionId, end);
		if (end.kind === 'done') await retireCheckpoint(redis, message.sessionId);
		return 'recorded';
	};
	const taker = new Worker<ResultMessage>(resultQueueName(spec.name), takeResult, {connection, prefix: PREFIX, concurrency: 4, autorun: false, removeOnComplete: {count: 0}, removeOnFail: {count: 1000}});
	taker.on('error', () => undefined);

	events.on('progress', ({jobId, data}) => {
		const progress = WorkProgress.safeParse(data);
		if (progress.success) pending.get(jobId)?.hooks.started(progress.data.status, progress.data.resumed);
	});
	events.on('failed', ({jobId, failedReason}) => {
		if (!pending.has(jobId)) return;
		void work
			.getJob(jobId)
			.then(async (job) => {
				// A failed attempt that will be retried is not the end.
				if (job && (await job.getState()) === 'failed') settle(jobId, {kind: 'start_failed', message: `the job failed on the queue after ${job.attemptsMade} attempt(s): ${failedReason}`});
			})
			.catch(() => undefined);
	});

	// The queue emptied while items are still followed (Redis restarted without its data, jobs removed
	// by hand): they are put back. Placing is idempotent, so a false alarm costs only look-ups.
	// Refusals are said within a second: a batch no worker serves would otherwise just seem slow.
	const refusals = setInterval(() => {
		if (!stopped) void reportRefusals().catch(() => undefined);
	}, 1000);
	refusals.unref();
	const sweep = setInterval(() => {
		if (placed === null || stopped) return;
		void (async () => {
			const [mine, back] = await Promise.all([work.getJobCounts('waiting', 'active', 'delayed', 'prioritized'), results.getJobCounts('waiting', 'active', 'delayed', 'prioritized')]);
			const first = endpoints[0];
			if (first) {
				const limit = await readEndpointLimit(redis, first);
				if (limit) width = {limit: limit.limit, max: limit.max};
			}
			const live = Object.values(mine).reduce((sum, n) => sum + n, 0) + Object.values(back).reduce((sum, n) => sum + n, 0);
			if (live === 0 && pending.size > 0 && !stopped) await placeAll([...pending.values()]);
		})().catch(() => undefined);
	}, 5000);
	sweep.unref();

	const schedule = () => {
		if (placed !== null) return;
		// Every item of the run registers in the same tick (the runner starts them all): place them together, then take results.
		placed = new Promise<void>((resolve) => setImmediate(resolve)).then(async () => {
			const entries = placing;
			placing = [];
			try {
				await placeAll(entries);
			} catch (error) {
				notice(`could not put every item on the queue: ${errorMessage(error)}`);
			}
			if (!stopped) void taker.run().catch((error: unknown) => notice(`results: ${errorMessage(error)}`));
		});
	};

	return {
		width: Math.max(1, context.todo.length),
		run(index, item, hooks) {
			return new Promise<ItemEnd>((resolve) => {
				const entry = {index, item, hooks, resolve};
				pending.set(item.sessionId, entry);
				if (placed === null) placing.push(entry);
				else void placeAll([entry]);
				schedule();
			});
		},
		stop() {
			stopped = true;
			// Following stops; the items go on on the workers and a rerun follows them again.
			for (const id of [...pending.keys()]) settle(id, {kind: 'done', patch: {}, session: {id, status: 'running'}});
		},
		async close() {
			stopped = true;
			clearInterval(sweep);
			clearInterval(refusals);
			await placed;
			await taker.close();
			await Promise.all([events.close(), work.close(), results.close()]);
			redis.disconnect();
		},
		globalWidth() {
			return width;
		},
		async pause() {
			await work.pause();
		},
	};
}

/** Counts a batch's jobs on the queue (for `batch status --queue`). */
export async function queueCounts(target: QueueTarget, name: string): Promise<{work: Record<string, number>; results: number; paused: boolean}> {
	const connection = connectionOptions(target, {failFast: true});
	const work = new Queue(workQueueName(name), {connection, prefix: PREFIX});
	const results = new Queue(resultQueueName(name), {connection, prefix: PREFIX});
	try {
		const counts = await work.getJobCounts('waiting', 'active', 'delayed', 'prioritized', 'completed', 'failed');
		const back = await results.getJobCounts('waiting', 'active', 'delayed', 'prioritized');
		return {work: counts, results: Object.values(back).reduce((sum, n) => sum + n, 0), paused: await work.isPaused()};
	} finally {
		await Promise.all([work.close(), results.close()]);
	}
}

/** Stops workers taking a batch's jobs (a run of set-up failures); the next `batch --queue` run resumes it. */
export async function pauseBatch(target: QueueTarget, name: string): Promise<void> {
	const work = new Queue(workQueueName(name), {connection: connectionOptions(target, {failFast: true}), prefix: PREFIX});
	try {
		await work.pause();
	} finally {
		await work.close();
	}
}

function safeJson(text: string): unknown {
	try {
		return JSON.parse(text);
	} catch {
		return null;
	}
}
