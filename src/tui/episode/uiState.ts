import {FOLLOW, type ScrollState, TOP, pageSize, scrollBy, scrollToEnd} from '../text/scroll.js';
import {PANES, type PaneId} from '../view/layout.js';

/*
 * Presentation state of the episode screen (focus, scroll, overlays), apart from episode state.
 * Scroll actions carry every pane's content length and window height, which only the render knows
 * (the reducer picks the pane focused when the action arrives, so Tab then PgDn scrolls the new pane); the arithmetic itself lives in text/scroll.ts.
 */

export type Overlay = 'none' | 'help' | 'inspector' | 'quit' | 'back';

export type UiState = {
	readonly focus: PaneId;
	readonly scroll: Readonly<Record<PaneId, ScrollState>>;
	readonly overlay: Overlay;
	/** The awaited turn t whose input box the user left with Esc (keys go to the panes), or null. */
	readonly inputLeftAt: number | null;
};

export type Extent = {readonly total: number; readonly height: number};
/** Every pane's extent: the reducer scrolls whichever pane has focus when the action arrives. */
export type Extents = Readonly<Record<PaneId, Extent>>;

export type UiAction =
	| {readonly type: 'focus'; readonly pane: PaneId}
	| {readonly type: 'focus-step'; readonly delta: 1 | -1}
	| {readonly type: 'scroll'; readonly lines: number; readonly extents: Extents}
	| {readonly type: 'page'; readonly pages: number; readonly extents: Extents}
	| {readonly type: 'top'}
	| {readonly type: 'bottom'; readonly extents: Extents}
	| {readonly type: 'overlay'; readonly overlay: Overlay}
	| {readonly type: 'leave-input'; readonly t: number}
	| {readonly type: 'enter-input'};

/** The Public pane follows the newest message; Private and Oracle keep their newest content on top. */
export const FOLLOWS: Readonly<Record<PaneId, boolean>> = {public: true, private: false, oracle: false};

export function initialUi(): UiState {
	return {focus: 'public', scroll: {public: FOLLOW, private: TOP, oracle: TOP}, overlay: 'none', inputLeftAt: null};
}

export function uiReducer(state: UiState, action: UiAction): UiState {
	const setScroll = (next: ScrollState): UiState => ({...state, scroll: {...state.scroll, [state.focus]: next}});
	const follow = {followAtEnd: FOLLOWS[state.focus]};
	switch (action.type) {
		case 'focus':
			return {...state, focus: action.pane};
		case 'focus-step': {
			const index = (PANES.indexOf(state.focus) + action.delta + PANES.length) % PANES.length;
			return {...state, focus: PANES[index]!};
		}
		case 'scroll': {
			const extent = action.extents[state.focus];
			return setScroll(scrollBy(state.scroll[state.focus], action.lines, extent.total, extent.height, follow));
		}
		case 'page': {
			const extent = action.extents[state.focus];
			return setScroll(scrollBy(state.scroll[state.focus], action.pages * pageSize(extent.height), extent.total, extent.height, follow));
		}
		case 'top':
			return setScroll(TOP);
		case 'bottom': {
			const extent = action.extents[state.focus];
			return setScroll(scrollToEnd(extent.total, extent.height, follow));
		}
		case 'overlay':
			return {...state, overlay: action.overlay};
		case 'leave-input':
			return {...state, inputLeftAt: action.t};
		case 'enter-input':
			return {...state, inputLeftAt: null};
		default: {
			const never: never = action;
			return never;
		}
	}
}
