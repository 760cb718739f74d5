import type {Session} from '../domain/session.js';
import type {ResolvedTemplate} from '../domain/template.js';
import type {Persona} from '../domain/universe.js';
import type {EpisodeEngine} from '../episode/engine.js';
import type {SessionsScreenState} from './view/sessionsList.js';

/*
 * Which screen the TUI shows, as a reducer. Async work (starting, loading, resuming) is done by the
 * App and reported back with 'busy' / 'failed' / a screen change.
 */

export type Screen =
	| {readonly kind: 'home'}
	| {readonly kind: 'help'}
	| {readonly kind: 'persona'}
	| {readonly kind: 'template'; readonly persona: Persona}
	| {readonly kind: 'options'; readonly persona: Persona; readonly template: ResolvedTemplate}
	/** The sessions list; `state` brings back its filter, sort and selection on return from a replay. */
	| {readonly kind: 'sessions'; readonly state?: SessionsScreenState}
	| {readonly kind: 'items'}
	| {readonly kind: 'live'; readonly engine: EpisodeEngine; readonly back: Screen | null}
	/** `rate`: open with the rating form (s on an ended episode). */
	| {readonly kind: 'replay'; readonly session: Session; readonly back: Screen | null; readonly rate?: boolean}
	/** Two sessions of one seed side by side (marked on the sessions screen, d). */
	| {readonly kind: 'compare'; readonly left: Session; readonly right: Session; readonly back: Screen};

/**
 * What the launcher reports when the TUI exits: the episode last on screen (its id and how to
 * resume it are printed) and whether a step was in flight (Ctrl-C then exits 130).
 */
export class TuiOutcome {
	session: Session | null = null;
	busy = false;
	/** Ctrl-C while a step was in flight: the launcher exits 130, like an interrupted headless run. */
	interrupted = false;
	update(session: Session, busy: boolean): void {
		this.session = session;
		this.busy = busy;
	}
}

export type AppState = {
	readonly screen: Screen;
	/** What is being loaded or started, shown on the current screen; null when idle. */
	readonly busy: string | null;
	/** Why the last load or start failed, shown on the current screen. */
	readonly error: string | null;
};

export type AppAction =
	| {readonly type: 'go'; readonly screen: Screen}
	| {readonly type: 'busy'; readonly message: string}
	| {readonly type: 'failed'; readonly message: string};

export function appReducer(state: AppState, action: AppAction): AppState {
	switch (action.type) {
		case 'go':
			return {screen: action.screen, busy: null, error: null};
		case 'busy':
			return {...state, busy: action.message, error: null};
		case 'failed':
			return {...state, busy: null, error: action.message};
		default: {
			const never: never = action;
			return never;
		}
	}
}

/** Where `b` leads from a screen. */
export function backOf(screen: Screen): Screen | null {
	switch (screen.kind) {
		case 'home':
			return null;
		case 'help':
		case 'persona':
		case 'sessions':
		case 'items':
			return {kind: 'home'};
		case 'template':
			return {kind: 'persona'};
		case 'options':
			return {kind: 'template', persona: screen.persona};
		case 'live':
		case 'replay':
		case 'compare':
			return screen.back;
		default: {
			const never: never = screen;
			return never;
		}
	}
}
