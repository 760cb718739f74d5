import {resumeEpisode, startEpisode} from '../app/episodes.js';
import type {Runtime} from '../app/runtime.js';
import type {BatchItem} from '../domain/batch.js';
import type {Seed} from '../domain/seed.js';
import type {ModelRole, Session, SessionStatus} from '../domain/session.js';
import type {EpisodeOptions} from '../episode/createSession.js';
import type {EpisodeEngine} from '../episode/engine.js';
import type {EngineEvent} from '../episode/events.js';
import {errorMessage} from '../util/errors.js';
import {SessionTooLarge, findStorageError} from '../util/storageError.js';

/*
 * One batch item, start to end, on whatever thread runs it: the in-process runner and the worker
 * threads of a multi-core batch both call `executeItem`, and only the coordinator writes the batch
 * journal, from what this returns.
 */

export type ItemSettings = {
	/** The episode settings of every item (the id is the item's own). */
	readonly episode: Omit<EpisodeOptions, 'id'>;
	readonly allowModelChange?: boolean;
};

/** How an item's episode ended, as the coordinator needs it (everything serialisable). */
export type ItemEnd =
	/** It could not even start or resume (a damaged session file, a lock held elsewhere). */
	| {readonly kind: 'start_failed'; readonly message: string}
	/** The engine threw: a bug, not a model failure (or a session past its size limit: errorFlag SESSION_TOO_LARGE). */
	| {readonly kind: 'internal'; readonly patch: Partial<BatchItem>; readonly message: string}
	/**
	 * The session could not be saved: the folder is full, read-only, not writable or failing (`code`
	 * is the errno). The session stays as last saved and resumable; the item's status is left as it
	 * was, so the next run picks it up.
	 */
	| {readonly kind: 'storage'; readonly code: string; readonly message: string}
	/** `alreadyEnded`: a resumed session that had ended before this run (nothing ran: not this run's work). */
	| {readonly kind: 'done'; readonly patch: Partial<BatchItem>; readonly alreadyEnded?: boolean; readonly session: {readonly id: string; readonly status: SessionStatus; readonly errorKind?: string; readonly errorRole?: ModelRole; readonly errorMessage?: string}};

export type ItemHooks = {
	readonly started: (status: SessionStatus, resumed: boolean) => void;
	readonly retried: (reason: string, delayMs: number) => void;
	/** Every engine event of the item (a queue worker streams each saved step back: src/queue/). */
	readonly event?: (event: EngineEvent) => void;
};

/** The episode settings of one item: a paired batch's variant sets its language and mode. */
export function itemEpisode(episode: ItemSettings['episode'], item: Pick<BatchItem, 'variant'>): ItemSettings['episode'] {
	if (!item.variant) return episode;
	return {...episode, language: item.variant.language, assistant: item.variant.mode === 'gold' ? 'gold' : 'llm'};
}

/**
 * The item's new episode, saved before its first step: a paired variant starts from the session of
 * its seed's first variant (`sharedFrom`). Nobody watches tokens in a batch.
 */
export async function startItem(runtime: Runtime, item: BatchItem, seedOf: (seedId: string) => Seed, settings: ItemSettings, listener?: (event: EngineEvent) => void): Promise<EpisodeEngine> {
	const sharedFrom = item.sharedFrom ? await runtime.store.load(item.sharedFrom) : undefined;
	return startEpisode(runtime, seedOf(item.seedId), {...itemEpisode(settings.episode, item), id: item.sessionId, trial: item.trial}, listener, {streamTokens: false, ...(sharedFrom ? {sharedFrom} : {})});
}

/** What a batch item records from its session when the episode stops. */
export function itemPatch(session: Session): Partial<BatchItem> {
	return {
		status: session.status,
		threeH: session.judge?.threeH ?? null,
		tdq: session.judge?.tdq ?? null,
		clean: session.judge?.clean ?? null,
		errorFlag: session.error?.flag ?? null,
		termination: session.termination?.reason ?? null,
	};
}

/**
 * Starts (or resumes, retrying a failed step) the item's episode and runs it to its end or until
 * `signal` stops it. The session is released when the episode stops, so nothing of it stays in memory.
 */
export async function executeItem(runtime: Runtime, item: BatchItem, seedOf: (seedId: string) => Seed, settings: ItemSettings, signal: AbortSignal, hooks: ItemHooks): Promise<ItemEnd> {
	const listener = (event: EngineEvent) => {
		if (event.type === 'call_retried') hooks.retried(event.reason, event.delayMs);
		hooks.event?.(event);
	};
	const resumed = runtime.store.exists(item.sessionId);
	let engine: EpisodeEngine;
	try {
		if (resumed) {
			// Nobody watches tokens in a batch: whole replies cost the harness less than a stream of events.
			engine = await resumeEpisode(runtime, item.sessionId, {allowModelChange: settings.allowModelChange, streamTokens: false}, listener);
			if (engine.session.status === 'error') await engine.retryAfterError();
		} else {
			engine = await startItem(runtime, item, seedOf, settings, listener);
		}
	} catch (error) {
		return stopped(error) ?? {kind: 'start_failed', message: errorMessage(error)};
	}
	const endedBefore = resumed && engine.session.status === 'completed';
	hooks.started(engine.session.status, resumed);
	try {
		await engine.runToEnd(signal);
	} catch (error) {
		engine.close();
		return stopped(error) ?? {kind: 'internal', patch: {...itemPatch(engine.session), status: 'error', errorFlag: 'INTERNAL'}, message: errorMessage(error)};
	}
	engine.close();
	const session = engine.session;
	return {
		kind: 'done',
		patch: itemPatch(session),
		...(endedBefore ? {alreadyEnded: true} : {}),
		session: {id: session.id, status: session.status, ...(session.error?.kind ? {errorKind: session.error.kind} : {}), ...(session.error?.role ? {errorRole: session.error.role} : {}), ...(session.error ? {errorMessage: session.error.message} : {})},
	};
}

/** A storage failure or a session past its size limit as the item's end; null for anything else. */
function stopped(error: unknown): ItemEnd | null {
	const storage = findStorageError(error);
	if (storage) return {kind: 'storage', code: storage.code, message: storage.message};
	if (error instanceof SessionTooLarge) return {kind: 'internal', patch: {status: 'error', errorFlag: 'SESSION_TOO_LARGE'}, message: error.message};
	return null;
}
