import type {Session} from '../../domain/session.js';
import type {EngineEvent} from '../../episode/events.js';
import type {Streaming} from '../view/publicPane.js';

/*
 * View state of a live episode, reduced from the engine's events. The session itself is the engine's
 * (a new immutable snapshot after every change); this only adds what the session does not hold:
 * the step in flight, streamed text, retry state and a bounded log of notices.
 */

export type NoticeLevel = 'info' | 'warn' | 'error';
export type Notice = {readonly at: string; readonly level: NoticeLevel; readonly text: string};

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
};

export type LiveAction =
	| {readonly type: 'event'; readonly event: EngineEvent; readonly session: Session; readonly at: string}
	| {readonly type: 'run-start'}
	| {readonly type: 'run-end'; readonly session: Session}
	| {readonly type: 'crash'; readonly message: string; readonly session: Session; readonly at: string}
	| {readonly type: 'auto'; readonly on: boolean}
	| {readonly type: 'notice'; readonly level: NoticeLevel; readonly text: string; readonly at: string};

export const MAX_NOTICES = 200;

export function initialLive(session: Session): LiveState {
	return {session, inFlight: false, running: null, streaming: null, retry: null, lastLatencyMs: null, problem: session.error ? `${session.error.flag}: ${session.error.message}` : null, notices: [], auto: false};
}

const push = (notices: readonly Notice[], notice: Notice): readonly Notice[] => [...notices.slice(-(MAX_NOTICES - 1)), notice];

/** "retrying simulator (429, 2.0 s)" */
export function retryLabel(role: string, reason: string, delayMs: number): string {
	return `retrying ${role} (${reason.replace(/^HTTP /, '')}, ${(delayMs / 1000).toFixed(1)} s)`;
}

export function liveReducer(state: LiveState, action: LiveAction): LiveState {
	switch (action.type) {
		case 'run-start':
			return {...state, inFlight: true, problem: null};
		case 'run-end':
			return {...state, session: action.session, inFlight: false, running: null, streaming: null, retry: null, auto: action.session.status === 'completed' || action.session.status === 'error' ? false : state.auto};
		case 'crash':
			return {...state, session: action.session, inFlight: false, running: null, streaming: null, retry: null, auto: false, problem: action.message, notices: push(state.notices, {at: action.at, level: 'error', text: action.message})};
		case 'auto':
			return {...state, auto: action.on};
		case 'notice':
			return {...state, notices: push(state.notices, {at: action.at, level: action.level, text: action.text}), problem: action.level === 'error' ? action.text : state.problem};
		case 'event':
			return reduceEvent({...state, session: action.session}, action.event, action.at);
		default: {
			const never: never = action;
			return never;
		}
	}
}

function reduceEvent(state: LiveState, event: EngineEvent, at: string): LiveState {
	switch (event.type) {
		case 'step_started':
			return {...state, running: event.label, retry: null, problem: null};
		case 'assistant_token': {
			const text = state.streaming && state.streaming.t === event.t ? state.streaming.text + event.delta : event.delta;
			return {...state, streaming: {t: event.t, text}};
		}
		case 'assistant_turn':
			return {...state, streaming: null};
		case 'call_retried': {
			const label = retryLabel(event.role, event.reason, event.delayMs);
			// A retried stream starts over: drop the partial text shown so far.
			return {...state, retry: label, streaming: event.stage === 'assistant' ? null : state.streaming, notices: push(state.notices, {at, level: 'warn', text: `${event.stage}: ${label}, attempt ${event.attempt}: ${event.reason}`})};
		}
		case 'call_done':
			return {...state, retry: null, lastLatencyMs: event.call.latencyMs};
		case 'call_failed': {
			const text = `${event.call.stage} call failed (${event.kind}): ${event.call.error ?? 'no detail'}`;
			return {...state, retry: null, lastLatencyMs: event.call.latencyMs, problem: text, notices: push(state.notices, {at, level: 'error', text})};
		}
		case 'notice':
			return {...state, notices: push(state.notices, {at, level: 'warn', text: `${event.role}: ${event.message}`})};
		case 'step_done':
			return {...state, running: null, streaming: null};
		case 'episode_finished':
			return event.error ? {...state, problem: `${event.error.flag}: ${event.error.message}`, notices: push(state.notices, {at, level: 'error', text: `${event.error.flag}: ${event.error.message}`})} : state;
		case 'episode_started':
		case 'stage_done':
		case 'user_turn':
		case 'awaiting_assistant':
		case 'judge_metric':
		case 'saved':
		case 'call_started':
			return state;
		default: {
			const never: never = event;
			return never;
		}
	}
}
