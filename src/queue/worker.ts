import {randomBytes} from 'node:crypto';
import {hostname} from 'node:os';
import path from 'node:path';
import {setTimeout as sleep} from 'node:timers/promises';
import {Queue, WaitingError, Worker, type Job} from 'bullmq';
import {Redis} from 'ioredis';
import {createRuntime, episodeRoles, type Runtime, type RuntimeOptions} from '../app/runtime.js';
import {executeItem, type ItemEnd, type ItemSettings} from '../batch/item.js';
import {ModelRole, type RoleSettings} from '../domain/session.js';
import {createLimiter, type Limiter} from '../llm/limiter.js';
import type {ModelSettings} from '../llm/settings.js';
import {type UsageCall, usageCall} from '../llm/usage.js';
import type {Universe} from '../universe/load.js';
import {SeedSpace} from '../universe/seeds.js';
import {errorMessage} from '../util/errors.js';
import type {Streams} from '../util/streams.js';
import {appendCheckpoint, claimCheckpoint, isDelivered, JournalTail, markDelivered, readCheckpoint, restoreJournal} from './checkpoint.js';
import {Outbox, packSession, placeSession, unpackSession} from './delivery.js';
import {BATCHES_KEY, PREFIX, refusalsKey, resultQueueName, WORKERS_KEY, workQueueName} from './keys.js';
import {createRedisLimiter, type RedisLimiter} from './redisLimiter.js';
import {BatchSpec, type ResultMessage, type WorkerBeat, type WorkerRefusal, WorkJob, type WorkProgress} from './schemas.js';
import {connectionOptions, type QueueTarget} from './target.js';

/*
 * A worker process of distributed batches (`npx cultureconverse worker`): it finds the batches recorded
 * in Redis, takes their jobs, runs each item through the same engine and code as a local batch
 * (executeItem) with the settings the batch recorded, saves every step in its own sessions folder,
 * streams each step back (checkpoint.ts), and hands each finished session back through the results
 * queue. Keys come from this process's environment; endpoints may be overridden here (a GPU node's
 * own vLLM).
 */

export type EndpointOverrides = {readonly all?: string; readonly roles: Partial<Record<ModelRole, string>>};

export type WorkerOptions = {
	readonly target: QueueTarget;
	readonly io: Streams;
	readonly universe: Universe;
	/** This worker's own choices (--embedder, --no-cache, --no-preflight); the models are the batch's. */
	readonly own: WorkerOwnOptions;
	/** Local sessions folder (every step saved here as it runs). */
	readonly sessionsDir: string;
	/** Items in flight per batch. */
	readonly parallel: number;
	/** Model calls in flight in this process (each also holds a slot of the endpoint's global cap). */
	readonly concurrency: number;
	/** Batches whose name matches (`*` for any run of characters); all when absent. */
	readonly nameFilter?: string;
	readonly endpoints: EndpointOverrides;
	/** The coordinator's sessions folder as mounted here: finished sessions are written into it instead of sent through Redis. */
	readonly sharedDir?: string;
	/** How long a job's lock lasts without renewal: a killed worker's item moves on after about this long (BullMQ lockDuration). */
	readonly lockMs: number;
	readonly signal?: AbortSignal;
	readonly log: (line: string) => void;
};

/** What a worker decides for itself, over what its batches recorded. */
export type WorkerOwnOptions = Pick<RuntimeOptions, 'embedder' | 'cache' | 'preflight'>;

type Served = {readonly spec: BatchSpec; readonly runtime: Runtime; readonly worker: Worker<WorkJob>; readonly results: Queue<ResultMessage>; readonly limiter: RedisLimiter; readonly space: SeedSpace};

export function nameMatcher(filter: string | undefined): (name: string) => boolean {
	if (!filter) return () => true;
	const pattern = new RegExp(`^${filter.split('*').map((part) => part.replace(/[.*+?^${}()|[\]\\]/g, '\\$&')).join('.*')}$`);
	return (name) => pattern.test(name);
}

/** The model settings a batch recorded, with this worker's endpoint overrides (keys are read from its own environment at call time). */
export function workerSettings(spec: BatchSpec, endpoints: EndpointOverrides, own: Pick<WorkerOwnOptions, 'cache' | 'preflight'>): ModelSettings {
	const roles = Object.fromEntries(
		ModelRole.options.map((role) => {
			const recorded: RoleSettings = spec.roles[role];
			const override = endpoints.roles[role] ?? endpoints.all;
			return [role, recorded.provider === 'openai' && override ? {...recorded, baseURL: override} : recorded];
		}),
	) as Record<ModelRole, RoleSettings>;
	return {
		roles,
		apiKeyEnv: spec.apiKeyEnv,
		concurrency: spec.cap,
		adaptiveConcurrency: spec.adaptive,
		rateLimitPacing: spec.pacing ?? 'headers',
		cache: spec.cache && own.cache !== false,
		retry: spec.retry,
		validationRetries: spec.validationRetries,
		record: null,
		configFile: null,
		offline: spec.offline,
		unset: [],
		prices: {},
		preflight: own.preflight !== false,
	};
}

/** A role on OpenAI's own endpoint needs its key in this worker's environment (checked before taking a job). */
function missingKeys(settings: ModelSettings, roles: readonly ModelRole[], env: NodeJS.ProcessEnv): string[] {
	return roles.filter((role) => settings.roles[role].provider === 'openai' && settings.roles[role].baseURL === null && !env[settings.apiKeyEnv[role]]).map((role) => `${role} (${settings.apiKeyEnv[role]})`);
}

/** The local limiter in front of the endpoint's global one: this process's share first, then the shared budget. */
function stacked(local: Limiter, global: RedisLimiter): Limiter {
	return {
		run: (task, signal, endpoint) => local.run(() => global.run(task, signal, endpoint), signal),
		rateLimited: (ticket) => global.rateLimited(ticket),
		observe: (observation) => global.observe(observation),
		succeeded: () => global.succeeded(),
		get active() {
			return global.active;
		},
		get pending() {
			return local.pending;
		},
		get limit() {
			return global.limit;
		},
		get max() {
			return global.max;
		},
		get overdue() {
			return global.overdue;
		},
	};
}

export async function runWorker(options: WorkerOptions): Promise<{done: number}> {
	const {target, io, log} = options;
	const id = `${hostname()}:${process.pid}:${randomBytes(2).toString('hex')}`;
	const connection = connectionOptions(target);
	const redis = new Redis(connection);
	const subscriber = new Redis(connection);
	let redisDown = false;
	for (const client of [redis, subscriber]) {
		client.on('error', (error: Error) => {
			if (!redisDown) log(`lost Redis at ${target.display} (${error.message}); finished sessions are kept and delivered when it is back`);
			redisDown = true;
		});
		client.on('ready', () => {
			if (redisDown) log(`Redis at ${target.display} is back`);
			redisDown = false;
		});
	}
	const shutdown = new AbortController();
	options.signal?.addEventListener('abort', () => shutdown.abort(), {once: true});
	const outbox = new Outbox(path.join(options.sessionsDir, '.outbox'));
	const local = createLimiter(options.concurrency, {adaptive: false});
	const matches = nameMatcher(options.nameFilter);
	const served = new Map<string, Served>();
	/**
	 * Batches this worker does not serve now, and when it tries again. A preflight that failed once
	 * (the endpoint briefly down) used to refuse a batch for good, and its coordinator waited for ever:
	 * now it is tried again with backoff (2 s doubling to a minute) and served once it passes.
	 */
	const refused = new Map<string, {retryAt: number; attempts: number; reason: string}>();
	const startedAt = new Date().toISOString();
	let inFlight = 0;
	let done = 0;

	const deliver = async (batch: Served | undefined, message: ResultMessage): Promise<boolean> => {
		const results = batch?.results;
		if (!results) return false;
		// Commands wait for Redis while it is away (maxRetriesPerRequest: null); the outbox keeps the result across a restart meanwhile.
		await results.add('result', message, {jobId: message.sessionId, removeOnComplete: true, removeOnFail: 1000, attempts: 5, backoff: {type: 'exponential', delay: 1000}});
		await markDelivered(redis, message.sessionId, id);
		outbox.remove(message);
		return true;
	};

	const process_ = async (batchName: string, job: Job<WorkJob>, token: string | undefined, jobSignal: AbortSignal | undefined): Promise<{delivered: boolean}> => {
		const batch = served.get(batchName)!;
		const data = WorkJob.parse(job.data);
		const sid = data.item.sessionId;
		inFlight++;
		try {
			// Delivered already (the job came back after its completion was lost with a lock).
			if (await isDelivered(redis, sid)) return {delivered: true};
			// Finished here but not delivered yet (Redis was away, or this worker was restarted).
			const waiting = outbox.get(batchName, sid);
			if (waiting) return {delivered: await deliver(batch, waiting)};

			const epoch = await claimCheckpoint(redis, sid);
			const store = batch.runtime.store;
			const streamed = await readCheckpoint(redis, sid);
			restoreJournal(store.journalFor(sid), store.fileFor(sid), streamed);

			const controller = new AbortController();
			const abort = () => controller.abort();
			shutdown.signal.addEventListener('abort', abort, {once: true});
			jobSignal?.addEventListener('abort', abort, {once: true});
			let lost = false;
			const tail = new JournalTail(store.journalFor(sid));
			let pushes: Promise<void> = Promise.resolve();
			const calls: UsageCall[] = [];
			const settings: ItemSettings = {episode: batch.spec.episode, ...(batch.spec.allowModelChange ? {allowModelChange: true} : {})};
			let end: ItemEnd;
			try {
				end = await executeItem(batch.runtime, data.item, (seedId) => batch.space.get(seedId), settings, controller.signal, {
					started: (status, resumed) => {
						const progress: WorkProgress = {type: 'started', status, resumed, worker: id};
						job.updateProgress(progress).catch(() => undefined);
					},
					retried: () => undefined,
					event: (event) => {
						if (event.type === 'call_done' || event.type === 'call_failed') calls.push(usageCall(event.call));
						if (event.type !== 'saved') return;
						const lines = tail.read();
						if (lines.length === 0) return;
						// In order, one after another; a refusal means another worker holds the item now.
						pushes = pushes.then(async () => {
							if (lost) return;
							if (!(await appendCheckpoint(redis, sid, epoch, lines))) {
								lost = true;
								controller.abort();
							}
						});
					},
				});
			} finally {
				shutdown.signal.removeEventListener('abort', abort);
				jobSignal?.removeEventListener('abort', abort);
			}
			await pushes;
			if (lost) {
				log(`${sid}: taken over by another worker (this one was cut off); its copy stays in ${store.dir}`);
				return {delivered: false};
			}
			const finished = end.kind !== 'done' || end.session.status === 'completed' || end.session.status === 'error';
			if (!finished) {
				// Stopped before its end: back on the queue now, from the last step streamed.
				if (token) await job.moveToWait(token);
				throw new WaitingError();
			}
			let file: string | null = null;
			if (end.kind === 'done') {
				if (options.sharedDir) placeSession(options.sharedDir, sid, unpackSession(packSession(store.fileFor(sid))));
				else file = packSession(store.fileFor(sid));
			}
			const message: ResultMessage = {batch: batchName, index: data.index, sessionId: sid, worker: id, end, calls, file, shared: Boolean(options.sharedDir) && end.kind === 'done'};
			outbox.put(message);
			await deliver(batch, message);
			done++;
			log(`${sid}: ${end.kind === 'done' ? end.session.status : `${end.kind}: ${end.message.slice(0, 200)}`}${end.kind === 'done' && end.patch.threeH != null ? ` (3H ${end.patch.threeH.toFixed(2)})` : ''}`);
			return {delivered: true};
		} finally {
			inFlight--;
		}
	};

	const serve = async (spec: BatchSpec) => {
		const settings = workerSettings(spec, options.endpoints, options.own);
		const roles = episodeRoles(spec.episode.assistant);
		const missing = missingKeys(settings, roles, io.env);
		if (missing.length > 0) throw new Error(`this worker's environment has no key for ${missing.join(', ')}`);
		const limiter = createRedisLimiter({redis, subscriber, cap: spec.cap, adaptive: spec.adaptive, pacing: spec.pacing ?? 'headers', holder: id});
		const runtime = createRuntime({
			options: {...options.own, sessionsDir: options.sessionsDir, ...(spec.embedder && options.own.embedder === undefined ? {embedder: spec.embedder} : {})},
			io,
			universe: options.universe,
			roles,
			limiter: stacked(local, limiter),
			quiet: true,
			settings,
		});
		try {
			await runtime.check(roles);
		} catch (error) {
			// Tried again later (see `refuse`): nothing of this attempt may stay open meanwhile.
			await limiter.close().catch(() => undefined);
			throw error;
		}
		const results = new Queue<ResultMessage>(resultQueueName(spec.name), {connection, prefix: PREFIX});
		results.on('error', () => undefined);
		const worker = new Worker<WorkJob>(workQueueName(spec.name), (job, token, signal) => process_(spec.name, job, token, signal), {
			connection,
			prefix: PREFIX,
			concurrency: options.parallel,
			lockDuration: options.lockMs,
			stalledInterval: options.lockMs,
			// A stall is a worker that died, not the item's fault: several are allowed before the job fails.
			maxStalledCount: 10,
			name: id,
		});
		worker.on('error', () => undefined);
		served.set(spec.name, {spec, runtime, worker, results, limiter, space: new SeedSpace(options.universe)});
		log(`serving batch ${spec.name} (${Object.values(settings.roles).filter((role) => role.provider === 'openai').map((role) => role.baseURL ?? 'api.openai.com').filter((url, i, all) => all.indexOf(url) === i).join(', ') || 'mock only'}; ${options.parallel} at a time, global cap ${spec.cap} calls per endpoint)`);
	};

	/** Records (and says, when the reason is new) that this worker does not serve `name` now. */
	const refuse = async (name: string, why: string) => {
		// One line: it goes to this worker's log and, through Redis, to the coordinator's.
		const reason = why.replace(/\s*\n\s*/g, ' ');
		const before = refused.get(name);
		const attempts = (before?.attempts ?? 0) + 1;
		const delay = Math.min(60_000, 2000 * 2 ** (attempts - 1));
		refused.set(name, {retryAt: Date.now() + delay, attempts, reason});
		if (before?.reason !== reason) log(`batch ${name}: not served: ${reason} (trying again in ${Math.round(delay / 1000)} s, backing off to a minute)`);
		const refusal: WorkerRefusal = {worker: id, host: hostname(), reason, at: new Date().toISOString(), retryAt: new Date(Date.now() + delay).toISOString(), attempts};
		await redis.hset(refusalsKey(name), id, JSON.stringify(refusal)).catch(() => undefined);
	};

	const discover = async () => {
		const recorded = await redis.hgetall(BATCHES_KEY);
		for (const [name, json] of Object.entries(recorded)) {
			if (served.has(name) || !matches(name) || shutdown.signal.aborted) continue;
			const waiting = refused.get(name);
			if (waiting && Date.now() < waiting.retryAt) continue;
			const parsed = BatchSpec.safeParse(safeJson(json));
			if (!parsed.success) {
				await refuse(name, `its recorded settings are not readable by this version (${parsed.error.issues.slice(0, 3).map((issue) => `${issue.path.join('.')}: ${issue.message}`).join('; ')})`);
				continue;
			}
			try {
				await serve(parsed.data);
			} catch (error) {
				await refuse(name, errorMessage(error));
				continue;
			}
			if (waiting) log(`batch ${name}: its preflight passes now (after ${waiting.attempts} refusal(s))`);
			refused.delete(name);
			await redis.hdel(refusalsKey(name), id).catch(() => undefined);
		}
	};

	const beat = async () => {
		const now = new Date().toISOString();
		const state: WorkerBeat = {id, host: hostname(), pid: process.pid, batches: [...served.keys()], inFlight, done, startedAt, lastSeen: now};
		await redis.hset(WORKERS_KEY, id, JSON.stringify(state));
	};

	const flushOutbox = async () => {
		for (const message of outbox.list()) {
			const batch = served.get(message.batch);
			if (batch) await deliver(batch, message).catch(() => undefined);
		}
	};

	log(`worker ${id} on ${target.display}${options.nameFilter ? `, batches matching ${options.nameFilter}` : ''}; sessions in ${options.sessionsDir}`);
	const tick = async () => {
		await discover();
		await beat();
		await flushOutbox();
	};
	await tick().catch((error: unknown) => log(`Redis: ${errorMessage(error)}`));
	while (!shutdown.signal.aborted) {
		await sleep(2000, undefined, {signal: shutdown.signal}).catch(() => undefined);
		if (shutdown.signal.aborted) break;
		await tick().catch(() => undefined);
	}
	log(`stopping: items in flight go back on the queue from their last step`);
	await Promise.all([...served.values()].map(async (batch) => {
		await batch.worker.close();
		await batch.results.close();
		await batch.limiter.close();
	}));
	await redis.hdel(WORKERS_KEY, id).catch(() => undefined);
	await Promise.all([...refused.keys()].map((name) => redis.hdel(refusalsKey(name), id).catch(() => undefined)));
	redis.disconnect();
	subscriber.disconnect();
	return {done};
}

function safeJson(text: string): unknown {
	try {
		return JSON.parse(text);
	} catch {
		return null;
	}
}
