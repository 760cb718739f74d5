import type {ChatMessage, ModelRole, Session} from '../../domain/session.js';
import type {EngineEvent} from '../../episode/events.js';
import type {CallRecord} from '../../domain/session.js';
import type {Streaming} from '../../present/panes/publicPane.js';

/*
 * View state of a live episode, reduced from the engine's events. The session itself is the engine's
 * (a new immutable snapshot after every change); this only adds what the session does not hold:
 * the step in flight, streamed text, retry state and a bounded log of notices.
 */

export type NoticeLevel = 'info' | 'warn' | 'error';
export type Notice = {readonly at: string; readonly level: NoticeLevel; readonly text: string};

/** A model call that has started and not ended: what the status line's timer and the inspector show. */
export type CallInFlight = {
	readonly callId: string;
	readonly role: ModelRole;
	readonly stage: string;
	readonly model: string;
	readonly step: number | null;
	/** Date.now() when it started. */
	readonly startedAt: number;
	/** The attempt under way (1 = the first). */
	readonly attempt: number;
	readonly maxAttempts: number | null;
	readonly timeoutMs: number | null;
	/** Why each earlier attempt failed ("HTTP 500", "timeout"), oldest first. */
	readonly failures: readonly string[];
	readonly request: readonly ChatMessage[];
};

export type LiveState = {
	readonly session: Session;
	/** True from the moment a step (or an auto-run) is started until it returns. */
	readonly inFlight: boolean;
	/** Label of the step in flight, or null when idle. */
	readonly running: string | null;
	readonly streaming: Streaming | null;
	/** e.g. "retrying simulator (429, 2.0 s)"; cleared when the call ends. */
	readonly retry: string | null;
	readonly lastLatencyMs: number | null;
	/** The latest failure, for the status line. */
	readonly problem: string | null;
	readonly notices: readonly Notice[];
	readonly auto: boolean;
	/** Calls in flight, oldest first. */
	readonly calls: readonly CallInFlight[];
};

export type LiveAction =
	| {readonly type: 'event'; readonly event: EngineEvent; readonly session: Session; readonly at: string; readonly nowMs?: number}
	| {readonly type: 'run-start'}
	| {readonly type: 'run-end'; readonly session: Session}
	| {readonly type: 'crash'; readonly message: string; readonly session: Session; readonly at: string}
	| {readonly type: 'auto'; readonly on: boolean}
	| {readonly type: 'notice'; readonly level: NoticeLevel; readonly text: string; readonly at: string};

export const MAX_NOTICES = 200;

export function initialLive(session: Session): LiveState {
	return {session, inFlight: false, running: null, streaming: null, retry: null, lastLatencyMs: null, problem: session.error ? `${session.error.flag}: ${session.error.message}` : null, notices: [], auto: false, calls: []};
}

const push = (notices: readonly Notice[], notice: Notice): readonly Notice[] => [...notices.slice(-(MAX_NOTICES - 1)), notice];

/** "retrying simulator (429, 2.0 s)" */
export function retryLabel(role: string, reason: string, delayMs: number): string {
	return `retrying ${role} (${reason.replace(/^HTTP /, '')}, ${(delayMs / 1000).toFixed(1)} s)`;
}

/**
 * How each attempt of a finished call went, oldest first: "500, 500, 500, 500, 429" says more than
 * the kind of the last failure alone (a 429 label on a call whose other four attempts were 500s).
 */
export function attemptStatuses(call: Pick<CallRecord, 'retries' | 'ok' | 'error' | 'attempts'>): string {
	const earlier = call.retries.map((retry) => retry.reason.replace(/^HTTP /, ''));
	const last = call.ok ? 'ok' : (/^(HTTP \d+|[a-z_ ]+?)(?: after|:|$)/.exec(call.error ?? '')?.[1] ?? 'failed').replace(/^HTTP /, '');
	return [...earlier, last].join(', ');
}

export function liveReducer(state: LiveState, action: LiveAction): LiveState {
	switch (action.type) {
		case 'run-start':
			return {...state, inFlight: true, problem: null};
		case 'run-end':
			return {...state, session: action.session, inFlight: false, running: null, streaming: null, retry: null, calls: [], auto: action.session.status === 'completed' || action.session.status === 'error' ? false : state.auto};
		case 'crash':
			return {...state, session: action.session, inFlight: false, running: null, streaming: null, retry: null, calls: [], auto: false, problem: action.message, notices: push(state.notices, {at: action.at, level: 'error', text: action.message})};
		case 'auto':
			return {...state, auto: action.on};
		case 'notice':
			return {...state, notices: push(state.notices, {at: action.at, level: action.level, text: action.text}), problem: action.level === 'error' ? action.text : state.problem};
		case 'event':
			return reduceEvent({...state, session: action.session}, action.event, action.at, action.nowMs ?? Date.parse(action.at));
		default: {
			const never: never = action;
			return never;
		}
	}
}

const without = (calls: readonly CallInFlight[], callId: string) => calls.filter((call) => call.callId !== callId);

function reduceEvent(state: LiveState, event: EngineEvent, at: string, nowMs: number): LiveState {
	switch (event.type) {
		case 'step_started':
			return {...state, running: event.label, retry: null, problem: null};
		case 'assistant_token': {
			const text = state.streaming && state.streaming.t === event.t ? state.streaming.text + event.delta : event.delta;
			return {...state, streaming: {t: event.t, text}};
		}
		case 'assistant_turn':
			return {...state, streaming: null};
		case 'call_started':
			return {
				...state,
				calls: [
					...without(state.calls, event.callId),
					{callId: event.callId, role: event.role, stage: event.stage, model: event.model, step: event.step ?? null, startedAt: nowMs, attempt: 1, maxAttempts: event.maxAttempts ?? null, timeoutMs: event.timeoutMs ?? null, failures: [], request: event.request ?? []},
				],
			};
		case 'call_retried': {
			const label = retryLabel(event.role, event.reason, event.delayMs);
			const calls = state.calls.map((call) => (call.callId === event.callId ? {...call, attempt: event.attempt + 1, failures: [...call.failures, event.reason.replace(/^HTTP /, '')]} : call));
			// A retried stream starts over: drop the partial text shown so far.
			return {...state, calls, retry: label, streaming: event.stage === 'assistant' ? null : state.streaming, notices: push(state.notices, {at, level: 'warn', text: `${event.stage}: ${label}, attempt ${event.attempt}: ${event.reason}`})};
		}
		case 'call_done':
			return {...state, calls: without(state.calls, event.call.id), retry: null, lastLatencyMs: event.call.latencyMs};
		case 'call_failed': {
			const attempts = event.call.attempts > 1 ? ` after ${event.call.attempts} attempts (${attemptStatuses(event.call)})` : '';
			const text = `${event.call.stage} call failed${attempts}: ${event.call.error ?? 'no detail'}`;
			return {...state, calls: without(state.calls, event.call.id), retry: null, lastLatencyMs: event.call.latencyMs, problem: text, notices: push(state.notices, {at, level: 'error', text})};
		}
		case 'notice':
			return {...state, notices: push(state.notices, {at, level: 'warn', text: `${event.role}: ${event.message}`})};
		case 'step_done':
			return {...state, running: null, streaming: null};
		case 'episode_finished':
			return event.error ? {...state, problem: `${event.error.flag}: ${event.error.message}`, notices: push(state.notices, {at, level: 'error', text: `${event.error.flag}: ${event.error.message}`})} : state;
		case 'save_failed':
			// The disk (or the session's size limit) stopped the save: said as the episode's problem.
			return {...state, running: null, streaming: null, problem: event.message, notices: push(state.notices, {at, level: 'error', text: event.message})};
		case 'episode_started':
		case 'stage_done':
		case 'user_turn':
		case 'awaiting_assistant':
		case 'judge_metric':
		case 'saved':
			return state;
		default: {
			const never: never = event;
			return never;
		}
	}
}
