import {existsSync} from 'node:fs';
import {resumeEpisode, startEpisode} from '../app/episodes.js';
import type {Runtime} from '../app/runtime.js';
import type {BatchItem, BatchManifest} from '../domain/batch.js';
import type {CallRecord, Session} from '../domain/session.js';
import {SetupBreaker, type SetupStop} from '../llm/breaker.js';
import type {Seed} from '../domain/seed.js';
import type {EpisodeOptions} from '../episode/createSession.js';
import type {EpisodeEngine} from '../episode/engine.js';
import type {EngineEvent} from '../episode/events.js';
import type {BatchStore} from '../store/batchStore.js';
import {errorMessage} from '../util/errors.js';
import {eachLimited} from '../util/limited.js';

export type BatchEvent =
	| {readonly type: 'item_started'; readonly item: BatchItem; readonly resumed: boolean}
	| {readonly type: 'item_finished'; readonly item: BatchItem; readonly calls: readonly CallRecord[]}
	/** The item could not even start or resume (e.g. its session file is damaged); the batch goes on. */
	| {readonly type: 'item_failed'; readonly item: BatchItem; readonly message: string}
	| {readonly type: 'call_retried'; readonly item: BatchItem; readonly reason: string; readonly delayMs: number};

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
};

/** Why a batch stopped early: the same set-up failure hit `count` items in a row (`id` is the last session). */
export type BatchStop = SetupStop;

export type RunBatchResult = {
	readonly manifest: BatchManifest;
	/** Stopped by the signal before every item had its turn. */
	readonly interrupted: boolean;
	/** Model calls made by this run (not by earlier runs of the same batch). */
	readonly calls: readonly CallRecord[];
	/** Set when the batch stopped on a repeated set-up failure. */
	readonly stopped: BatchStop | null;
};

/** Items this run works on: everything unfinished, and errors unless told to leave them. */
export function itemsToRun(manifest: BatchManifest, retryErrors: boolean): number[] {
	return manifest.items.flatMap((item, index) => (item.status === 'completed' || (item.status === 'error' && !retryErrors) ? [] : [index]));
}

/**
 * Runs a batch's unfinished items through the one episode engine, `parallel` at a time. Each item is
 * an ordinary session file; the manifest is saved whenever an item starts or ends, so a killed batch
 * resumes where it stood: finished items are never re-run, running ones continue from their last
 * saved step, and items that ended in an error flag are retried (they are infrastructure failures,
 * never results).
 */
export async function runBatch(input: RunBatchInput): Promise<RunBatchResult> {
	const {runtime, store} = input;
	// The user's Ctrl-C, or the batch's own stop after repeated set-up failures.
	const breaker = new SetupBreaker(input.stopAfter ?? 3, input.signal);
	const signal = breaker.signal;
	const judgeStop = (session: Session) => {
		if (session.status === 'completed') breaker.success();
		else if (session.status === 'error') breaker.failure({kind: session.error?.kind, role: session.error?.role, message: session.error?.message ?? '', id: session.id});
	};
	const manifest = input.manifest;
	const now = input.now ?? (() => new Date());
	const todo = itemsToRun(manifest, input.retryErrors ?? true);
	const calls: CallRecord[] = [];
	let saving = Promise.resolve();
	// Saves are chained so the file always ends with the latest state, whatever order workers finish in.
	const save = () => {
		manifest.updatedAt = now().toISOString();
		const snapshot = structuredClone(manifest);
		saving = saving.then(() => store.save(snapshot));
		return saving;
	};
	const update = (index: number, patch: Partial<BatchItem>) => {
		manifest.items[index] = {...manifest.items[index]!, ...patch, updatedAt: now().toISOString()};
		return manifest.items[index]!;
	};

	const runItem = async (index: number) => {
		const item = manifest.items[index]!;
		const listener = (event: EngineEvent) => {
			if (event.type === 'call_retried') input.onEvent?.({type: 'call_retried', item: manifest.items[index]!, reason: event.reason, delayMs: event.delayMs});
		};
		const resumed = existsSync(runtime.store.fileFor(item.sessionId));
		let engine: EpisodeEngine;
		try {
			if (resumed) {
				engine = await resumeEpisode(runtime, item.sessionId, {allowModelChange: input.allowModelChange}, listener);
				if (engine.session.status === 'error') await engine.retryAfterError();
			} else {
				engine = await startEpisode(runtime, input.seedOf(item.seedId), {...input.episode, id: item.sessionId, trial: item.trial}, listener);
			}
		} catch (error) {
			const failed = update(index, {status: 'error', errorFlag: 'START_FAILED', attempts: item.attempts + 1});
			await save();
			input.onEvent?.({type: 'item_failed', item: failed, message: errorMessage(error)});
			return;
		}
		const before = engine.session.calls.length;
		input.onEvent?.({type: 'item_started', item: update(index, {status: engine.session.status, attempts: item.attempts + 1}), resumed});
		await save();
		try {
			await engine.runToEnd(signal);
		} catch (error) {
			// The engine turns model failures into error flags; anything thrown here is unexpected.
			const failed = update(index, {...fromSession(engine.session), status: 'error', errorFlag: 'INTERNAL'});
			await save();
			input.onEvent?.({type: 'item_failed', item: failed, message: errorMessage(error)});
			return;
		}
		const made = engine.session.calls.slice(before);
		calls.push(...made);
		judgeStop(engine.session);
		const finished = update(index, fromSession(engine.session));
		await save();
		if (!signal?.aborted || finished.status === 'completed' || finished.status === 'error') input.onEvent?.({type: 'item_finished', item: finished, calls: made});
	};

	await save();
	try {
		await eachLimited(todo, input.parallel, signal, runItem);
		await saving;
	} finally {
		breaker.dispose();
	}
	const unfinished = manifest.items.some((item) => item.status !== 'completed' && item.status !== 'error');
	return {manifest, interrupted: Boolean(input.signal?.aborted) && unfinished, calls, stopped: breaker.stopped};
}

function fromSession(session: Session): Partial<BatchItem> {
	return {
		status: session.status,
		threeH: session.judge?.threeH ?? null,
		tdq: session.judge?.tdq ?? null,
		clean: session.judge?.clean ?? null,
		errorFlag: session.error?.flag ?? null,
		termination: session.termination?.reason ?? null,
	};
}
