import {setMaxListeners} from 'node:events';
import type {ModelRole} from '../domain/session.js';
import {type FailureKind, SETUP_FAILURES} from './types.js';

/** Why a run of items stopped early: the same set-up failure hit `count` items in a row. */
export type SetupStop = {readonly kind: string; readonly role: ModelRole; readonly count: number; readonly message: string; readonly id: string};

/** Why a run stopped on its storage: the same errno hit `count` items in a row (or the run's own journal once). */
export type StorageStop = {readonly code: string; readonly count: number; readonly message: string; readonly id: string | null};

/**
 * Failures of a server that is down or unreachable: retried within each call, but once a call has
 * spent its retries on them the next item meets the same dead server. Like set-up failures, K items
 * in a row ending so stop the run (issue 24: 44 retries for 12 items against a dead server).
 */
export const OUTAGE_FAILURES: ReadonlySet<FailureKind> = new Set(['network', 'server', 'timeout']);

/** What to do when the run stopped on an outage (set-up failures have `setupAdvice`). */
export function outageAdvice(kind: string, role: ModelRole, baseURL: string | null): string {
	const where = baseURL ?? 'https://api.openai.com/v1';
	if (kind === 'server') return `The server at ${where} (the ${role} role's) kept answering with server errors after every retry: check its log and that it is healthy, then continue.`;
	if (kind === 'timeout') return `The server at ${where} (the ${role} role's) did not answer in time after every retry: check that it is running and not overloaded (or raise the role's timeoutMs), then continue.`;
	return `The server at ${where} (the ${role} role's) could not be reached after every retry: check that it is running and the address is right, then continue.`;
}

/**
 * Stops a run of many items (a batch, a re-judging, CRISP builds and evaluations) once the same
 * failure that no retry fixes (SETUP_FAILURES: a refused key, no quota, an unknown model, a rejected
 * parameter; OUTAGE_FAILURES: a server that stays down or unreachable through every retry; a folder
 * that cannot be written) has ended `stopAfter` items in a row: without it a bad key fails every one of thousands
 * of items, one by one. `signal` aborts when the user interrupts or the breaker trips; items still in
 * flight stop at their next step and stay resumable.
 */
export class SetupBreaker {
	private readonly controller = new AbortController();
	private streak: {signature: string; count: number} | null = null;
	private tripped: SetupStop | null = null;
	private storageTripped: StorageStop | null = null;
	private readonly forward = () => this.controller.abort(this.outer?.reason);

	constructor(
		private readonly stopAfter: number,
		private readonly outer?: AbortSignal,
	) {
		// Every model call of the run listens to this signal: no listener-count warning at high concurrency.
		setMaxListeners(0, this.controller.signal);
		if (outer?.aborted) this.forward();
		outer?.addEventListener('abort', this.forward, {once: true});
	}

	get signal(): AbortSignal {
		return this.controller.signal;
	}

	get stopped(): SetupStop | null {
		return this.tripped;
	}

	/** Set when the run stopped because its folder could not be written. */
	get storageStopped(): StorageStop | null {
		return this.storageTripped;
	}

	/**
	 * An item whose session could not be saved (disk full, read-only, permissions): counted like a
	 * set-up failure (same errno in a row), or, `now`, a stop at once (the run's own journal cannot
	 * be written, so nothing more can be recorded).
	 */
	storageFailure(failure: {readonly code: string; readonly message: string; readonly id: string | null; readonly now?: boolean}): void {
		const signature = `storage|${failure.code}`;
		this.streak = this.streak?.signature === signature ? {signature, count: this.streak.count + 1} : {signature, count: 1};
		const due = failure.now || (this.stopAfter > 0 && this.streak.count >= this.stopAfter);
		if (due && !this.storageTripped && !this.tripped) {
			this.storageTripped = {code: failure.code, count: this.streak.count, message: failure.message, id: failure.id};
			this.controller.abort(new Error('stopped: the sessions folder cannot be written'));
		}
	}

	/** An item that finished without a set-up failure breaks the streak. */
	success(): void {
		this.streak = null;
	}

	/** An item that failed; only set-up failures of one role and kind make a streak. */
	failure(failure: {readonly kind?: string | undefined; readonly role?: ModelRole | undefined; readonly message: string; readonly id: string}): void {
		const {kind, role} = failure;
		if (this.stopAfter === 0 || !kind || !role || !(SETUP_FAILURES.has(kind as FailureKind) || OUTAGE_FAILURES.has(kind as FailureKind))) {
			this.streak = null;
			return;
		}
		const signature = `${role}|${kind}`;
		this.streak = this.streak?.signature === signature ? {signature, count: this.streak.count + 1} : {signature, count: 1};
		if (this.streak.count >= this.stopAfter && !this.tripped && !this.storageTripped) {
			this.tripped = {kind, role, count: this.streak.count, message: failure.message, id: failure.id};
			this.controller.abort(new Error('stopped after repeated set-up failures'));
		}
	}

	dispose(): void {
		this.outer?.removeEventListener('abort', this.forward);
	}
}
