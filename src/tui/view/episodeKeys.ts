import type {Binding} from './keyTable.js';

/*
 * The episode screens' key tables, one per state: the live frame, the blind seat, the replay, and
 * the overlays over them. The footer and the key handlers both read these (view/keyTable.ts).
 */

/** Where a live episode is, as its keys see it. */
export type LivePhase = 'running' | 'idle' | 'awaiting' | 'done' | 'error';

/** Keys the episode frame handles itself, whatever the mode. */
export type FrameAction = 'nextPane' | 'prevPane' | 'pane1' | 'pane2' | 'pane3' | 'lineUp' | 'lineDown' | 'pageUp' | 'pageDown' | 'top' | 'bottom' | 'inspector' | 'help' | 'back' | 'quit';

/** Keys of the live modes (frame or blind seat). */
export type LiveAction = 'step' | 'auto' | 'interrupt' | 'retry' | 'type' | 'reveal' | 'scores' | 'rate' | 'replay' | 'page';

export type ReplayAction = 'forward' | 'backward' | 'first' | 'last' | 'resume' | 'retry' | 'explain' | 'rate';

export type EpisodeAction = FrameAction | LiveAction | ReplayAction;

const b = <A extends string>(action: A, keys: Binding<A>['keys'], hint: string, drop: number): Binding<A> => ({action, keys, hint, drop});

/** Scrolling and panes. `panes`: the three panes exist (not the blind seat); `homeEnd`: Home/End scroll (a replay uses them for steps). */
function viewKeys(options: {panes: boolean; homeEnd: boolean}): Binding<FrameAction>[] {
	return [
		...(options.panes ? [b<FrameAction>('nextPane', ['tab'], 'Tab/1-3 pane', 6), b<FrameAction>('prevPane', ['shiftTab'], '', 9), b<FrameAction>('pane1', ['1'], '', 9), b<FrameAction>('pane2', ['2'], '', 9), b<FrameAction>('pane3', ['3'], '', 9)] : []),
		b('lineDown', ['down', 'j'], '↑↓ PgUp PgDn scroll', 7),
		b('lineUp', ['up', 'k'], '', 9),
		b('pageDown', ['pageDown'], '', 9),
		b('pageUp', ['pageUp'], '', 9),
		b('top', options.homeEnd ? ['g', 'home'] : ['g'], '', 9),
		b('bottom', options.homeEnd ? ['G', 'end'] : ['G'], '', 9),
	];
}

/** Help, back and quit: the end of every footer, `q quit` never dropped. */
function exitKeys(options: {inspector: boolean; back: boolean}): Binding<FrameAction>[] {
	return [...(options.inspector ? [b<FrameAction>('inspector', ['i'], 'i inspector', 5)] : []), b('help', ['?'], '? help', 3), ...(options.back ? [b<FrameAction>('back', ['b'], 'b back', 4)] : []), b('quit', ['q'], 'q quit', 0)];
}

/** The next actions of an ended episode: its scores, rating it, its replay, its HTML page. */
function endKeys(phase: LivePhase): Binding<LiveAction>[] {
	if (phase === 'done') return [b('scores', ['o'], 'o scores', 1), b('rate', ['s'], 's rate', 2), b('replay', ['p'], 'p replay', 2), b('page', ['w'], 'w HTML page', 4)];
	if (phase === 'error') return [b('retry', ['r'], 'r retry the failed step', 1), b('replay', ['p'], 'p replay', 4)];
	return [];
}

export type LiveKeyState = {
	readonly phase: LivePhase;
	/** A person plays the assistant (the reply box exists while the dialogue is open). */
	readonly human: boolean;
	/** The dialogue is open: a reply can still be written (episode/blindness.ts dialogueOpen). */
	readonly open: boolean;
	readonly auto: boolean;
	readonly canBack: boolean;
};

/** The live frame (all three panes). */
export function liveFrameKeys(state: LiveKeyState): Binding<EpisodeAction>[] {
	const {phase} = state;
	const mode: Binding<LiveAction>[] = [];
	if (phase === 'running') mode.push(b('interrupt', ['x', 'escape'], 'x interrupt', 1), b('auto', ['a'], state.auto ? 'a auto off' : 'a auto', 3));
	if (phase === 'idle') mode.push(b('step', ['n', ' '], 'n step', 1), b('auto', ['a'], 'a auto', 3));
	// The reply box takes keys whenever the dialogue is open, also while the user answers (typing ahead).
	if (state.human && state.open) mode.push(b('type', ['e', 'return'], 'e type the reply', 1));
	mode.push(...endKeys(phase));
	return [...mode, ...viewKeys({panes: true, homeEnd: true}), ...exitKeys({inspector: true, back: state.canBack})];
}

/** The blind seat in command mode (the reply box left with Esc, or the dialogue over). */
export function blindSeatKeys(state: {readonly phase: LivePhase; readonly open: boolean; readonly paused: boolean}): Binding<EpisodeAction>[] {
	const mode: Binding<LiveAction>[] = [];
	if (state.open) mode.push(b('type', ['e', 'return'], 'e type the reply', 1));
	if (state.phase === 'running') mode.push(b('interrupt', ['x'], 'x interrupt', 2));
	if (state.phase === 'idle' && state.paused) mode.push(b('step', ['n', ' '], 'n continue', 1));
	mode.push(...endKeys(state.phase));
	if (state.open) mode.push(b('reveal', ['v'], 'v show hidden panes (asks; recorded)', 5));
	return [...mode, ...viewKeys({panes: false, homeEnd: true}), ...exitKeys({inspector: false, back: false})];
}

export type ReplayKeyState = {
	readonly step: number;
	readonly total: number;
	/** Unfinished: r resumes it live. */
	readonly resumable: boolean;
	/** Errored: r retries its failed step live. */
	readonly retryable: boolean;
	/** It has an assistant turn to rate. */
	readonly rateable: boolean;
	readonly canBack: boolean;
};

export function replayKeys(state: ReplayKeyState): Binding<EpisodeAction>[] {
	const mode: Binding<ReplayAction>[] = [];
	if (state.step < state.total) mode.push(b('forward', ['right', 'n', ' ', 'l'], '→ step', 1));
	if (state.step > 0) mode.push(b('backward', ['left', 'p', 'h'], '← back a step', 2));
	if (state.step > 0) mode.push(b('first', ['home'], '', 9));
	if (state.step < state.total) mode.push(b('last', ['end'], '', 9));
	if (state.resumable) mode.push(b('resume', ['r'], 'r resume live', 1));
	else if (state.retryable) mode.push(b('retry', ['r'], 'r retry the failed step', 1));
	// Not advertised: r on a completed session says why there is nothing to resume.
	else mode.push(b('explain', ['r'], '', 9));
	if (state.rateable) mode.push(b('rate', ['s'], 's rate', 2));
	return [...mode, ...viewKeys({panes: true, homeEnd: false}), ...exitKeys({inspector: true, back: state.canBack})];
}

/** Keys of the overlays, drawn in the footer while one is open (each overlay handles its own). */
export const INSPECTOR_FOOTER = '↑↓ call · PgUp PgDn j k scroll · g/G top/end · r reasoning · Esc/i close';
export const HELP_FOOTER = '↑↓ PgUp PgDn scroll · Esc/?/q close';
export const RATING_FOOTER = 'rating: ↑↓ metric · 1-5 score · 0 clear · Enter save · Esc leave · PgUp PgDn Tab transcript';
export const CONFIRM_FOOTER = 'y yes · any other key no';
