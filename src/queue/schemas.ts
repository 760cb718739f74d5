import {z} from 'zod';
import {BatchItem} from '../domain/batch.js';
import {AssistantKind, JudgeMode, LanguageMode, ModelRole, RoleSettings, SessionStatus, TokenUsage} from '../domain/session.js';

/*
 * Every shape that travels through Redis between a batch's coordinator and its workers. Each is
 * parsed on arrival, so a worker of another version, or a hand-edited key, is refused with the
 * field named instead of running an episode on half-understood settings.
 */

/** The episode settings of every item (ItemSettings of src/batch/item.ts, as data). */
export const QueueEpisode = z.strictObject({
	language: LanguageMode,
	assistant: AssistantKind,
	judgeMode: JudgeMode,
	maxTurns: z.number().int().min(1).max(20),
	bestOf: z.number().int().min(2).max(16).nullable(),
});

/**
 * A batch as its coordinator recorded it: the models of every role as the coordinator resolved them
 * (provider, model, endpoint, sampling settings), the names of the environment variables that hold
 * the keys (never a key: each worker reads its own environment), and the global cap of calls in
 * flight per endpoint.
 */
export const BatchSpec = z.strictObject({
	format: z.literal('cultureconverse.queue-batch'),
	version: z.literal(1),
	name: z.string(),
	createdAt: z.string(),
	episode: QueueEpisode,
	allowModelChange: z.boolean(),
	roles: z.record(ModelRole, RoleSettings),
	apiKeyEnv: z.record(ModelRole, z.string()),
	retry: z.strictObject({maxAttempts: z.number().int().positive(), baseDelayMs: z.number().nonnegative(), maxDelayMs: z.number().nonnegative()}),
	validationRetries: z.number().int().nonnegative(),
	cache: z.boolean(),
	offline: z.boolean(),
	/** Calls in flight per endpoint across every worker. */
	cap: z.number().int().positive(),
	adaptive: z.boolean(),
	/** How the workers meet rate limits (llm/limiter.ts `Pacing`); absent in batches recorded before it: 'headers'. */
	pacing: z.enum(['headers', 'aimd']).optional(),
	/** The coordinator's --embedder, when given (the default is resolved by each worker alike). */
	embedder: z.string().nullable(),
});
export type BatchSpec = z.infer<typeof BatchSpec>;

export const WorkJob = z.strictObject({batch: z.string(), index: z.number().int().nonnegative(), item: BatchItem});
export type WorkJob = z.infer<typeof WorkJob>;

/** What a worker reports while it works on a job (`job.updateProgress`). */
export const WorkProgress = z.strictObject({type: z.literal('started'), status: SessionStatus, resumed: z.boolean(), worker: z.string()});
export type WorkProgress = z.infer<typeof WorkProgress>;

const UsageCallShape = z.strictObject({
	ok: z.boolean(),
	cached: z.boolean(),
	provider: z.enum(['openai', 'mock', 'replay']),
	tokensEstimated: z.boolean().optional(),
	attempts: z.number().int().nonnegative(),
	validationRetries: z.number().int().nonnegative(),
	latencyMs: z.number().nonnegative(),
	tokens: TokenUsage,
	model: z.string(),
	/** A call to a local server (costs nothing). */
	local: z.boolean().optional(),
});

const Patch = BatchItem.partial();
const SessionEnd = z.strictObject({id: z.string(), status: SessionStatus, errorKind: z.string().optional(), errorRole: ModelRole.optional(), errorMessage: z.string().optional()});

/** How an item ended on a worker (ItemEnd of src/batch/item.ts, as data). */
export const QueueItemEnd = z.discriminatedUnion('kind', [
	z.strictObject({kind: z.literal('start_failed'), message: z.string()}),
	z.strictObject({kind: z.literal('internal'), patch: Patch, message: z.string()}),
	z.strictObject({kind: z.literal('storage'), code: z.string(), message: z.string()}),
	z.strictObject({kind: z.literal('done'), patch: Patch, alreadyEnded: z.boolean().optional(), session: SessionEnd}),
]);

/**
 * A finished item on its way back to the coordinator: the end, the calls this attempt made (for the
 * run's usage figures), and the session file itself, gzip-compressed and base64-encoded (`file`), or
 * `shared` when the worker wrote it straight into a shared sessions folder.
 */
export const ResultMessage = z.strictObject({
	batch: z.string(),
	index: z.number().int().nonnegative(),
	sessionId: z.string(),
	worker: z.string(),
	end: QueueItemEnd,
	calls: z.array(UsageCallShape),
	file: z.string().nullable(),
	shared: z.boolean(),
});
export type ResultMessage = z.infer<typeof ResultMessage>;

/** A worker's heartbeat in the workers hash. */
export const WorkerBeat = z.strictObject({
	id: z.string(),
	host: z.string(),
	pid: z.number().int(),
	batches: z.array(z.string()),
	inFlight: z.number().int().nonnegative(),
	done: z.number().int().nonnegative(),
	startedAt: z.string(),
	lastSeen: z.string(),
});
export type WorkerBeat = z.infer<typeof WorkerBeat>;

/**
 * A worker that does not serve a batch now, and why (its preflight failed: the endpoint was down or
 * refused; its environment lacks a key). It tries again at `retryAt`, backing off; the coordinator
 * says each refusal once.
 */
export const WorkerRefusal = z.strictObject({worker: z.string(), host: z.string(), reason: z.string(), at: z.string(), retryAt: z.string(), attempts: z.number().int().positive()});
export type WorkerRefusal = z.infer<typeof WorkerRefusal>;
