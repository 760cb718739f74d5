import type {RuntimeOptions} from '../app/runtime.js';
import type {BatchItem} from '../domain/batch.js';
import type {SessionStatus} from '../domain/session.js';
import type {UsageCall} from '../llm/usage.js';
import type {ItemEnd, ItemSettings} from './item.js';

/** What a worker thread is started with (structured-clonable). */
export type WorkerInit = {
	/** The runtime the coordinator's own options describe (models, sessions folder, embedder): each thread resolves the same settings. */
	readonly runtime: RuntimeOptions;
	readonly env: NodeJS.ProcessEnv;
	readonly cwd: string;
	readonly universe: {readonly kbDir?: string; readonly userTemplatesDir: string};
	readonly settings: ItemSettings;
	/** The batch's shared model-call limiter (sharedLimiter.ts). */
	readonly limiter: SharedArrayBuffer;
};

export type ToWorker = {readonly type: 'item'; readonly index: number; readonly item: BatchItem} | {readonly type: 'stop'} | {readonly type: 'close'};

export type FromWorker =
	| {readonly type: 'ready'}
	| {readonly type: 'started'; readonly index: number; readonly status: SessionStatus; readonly resumed: boolean}
	| {readonly type: 'retried'; readonly index: number; readonly reason: string; readonly delayMs: number}
	| {readonly type: 'ended'; readonly index: number; readonly end: ItemEnd}
	| {readonly type: 'call'; readonly call: UsageCall}
	| {readonly type: 'notice'; readonly message: string}
	/** The thread is done; `writtenChars` is what it wrote to session files (the coordinator's write figures add it). */
	| {readonly type: 'closed'; readonly writtenChars: number};
