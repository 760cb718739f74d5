import {setMaxListeners} from 'node:events';
import type {ModelRole} from '../domain/session.js';
import {type FailureKind, SETUP_FAILURES} from './types.js';

/** Why a run of items stopped early: the same set-up failure hit `count` items in a row. */
export type SetupStop = {readonly kind: string; readonly role: ModelRole; readonly count: number; readonly message: string; readonly id: string};

/**
 * Stops a run of many items (a batch, a re-judging, CRISP builds and evaluations) once the same
 * failure that no retry fixes (SETUP_FAILURES: a refused key, no quota, an unknown model, a rejected
 * parameter) has ended `stopAfter` items in a row: without it a bad key fails every one of thousands
 * of items, one by one. `signal` aborts when the user interrupts or the breaker trips; items still in
 * flight stop at their next step and stay resumable.
 */
export class SetupBreaker {
	private readonly controller = new AbortController();
	private streak: {signature: string; count: number} | null = null;
	private tripped: SetupStop | null = null;
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

	/** An item that finished without a set-up failure breaks the streak. */
	success(): void {
		this.streak = null;
	}

	/** An item that failed; only set-up failures of one role and kind make a streak. */
	failure(failure: {readonly kind?: string | undefined; readonly role?: ModelRole | undefined; readonly message: string; readonly id: string}): void {
		const {kind, role} = failure;
		if (this.stopAfter === 0 || !kind || !role || !SETUP_FAILURES.has(kind as FailureKind)) {
			this.streak = null;
			return;
		}
		const signature = `${role}|${kind}`;
		this.streak = this.streak?.signature === signature ? {signature, count: this.streak.count + 1} : {signature, count: 1};
		if (this.streak.count >= this.stopAfter && !this.tripped) {
			this.tripped = {kind, role, count: this.streak.count, message: failure.message, id: failure.id};
			this.controller.abort(new Error('stopped after repeated set-up failures'));
		}
	}

	dispose(): void {
		this.outer?.removeEventListener('abort', this.forward);
	}
}
