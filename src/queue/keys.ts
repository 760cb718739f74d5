/*
 * Every name this project uses in Redis, in one place. BullMQ's own keys live under the same prefix
 * (`cultureconverse:<queue>:...`); ours sit beside them.
 */
export const PREFIX = 'cultureconverse';

/** Recorded batches: name -> BatchSpec JSON (what a worker needs to run its items). */
export const BATCHES_KEY = `${PREFIX}:batches`;
/** Live workers: id -> WorkerBeat JSON, refreshed every few seconds. */
export const WORKERS_KEY = `${PREFIX}:workers`;

/** Workers that refuse a batch (its preflight failed, a key is missing): worker id -> WorkerRefusal JSON. */
export const refusalsKey = (batch: string) => `${PREFIX}:refusals:${batch}`;

/** The queue of a batch's items (job id = the item's session id). */
export const workQueueName = (batch: string) => `batch-${batch}`;
/** The queue finished sessions travel back on (job id = the session id, so a second delivery is dropped). */
export const resultQueueName = (batch: string) => `results-${batch}`;

/** A session's streamed journal (a list of journal lines) and the epoch that fences who may append to it. */
export const checkpointKeys = (sessionId: string) => ({log: `${PREFIX}:ckpt:${sessionId}:log`, epoch: `${PREFIX}:ckpt:${sessionId}:epoch`, done: `${PREFIX}:ckpt:${sessionId}:done`});

/** One endpoint's shared budget of calls in flight: a hash of numbers and a sorted set of leases. */
export const limitKeys = (endpoint: string) => ({state: `${PREFIX}:limit:${endpoint}`, holders: `${PREFIX}:limit:${endpoint}:holders`, channel: `${PREFIX}:limit:${endpoint}:released`});
export const LIMIT_PATTERN = `${PREFIX}:limit:*`;
