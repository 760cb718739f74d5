import type {Press} from './keys.js';
import {wrapText} from '../../util/wrap.js';

/*
 * The human assistant's reply box as a pure function of key presses: a small multi-line editor.
 * Enter always adds a line (a paragraph break is typed like any other), Ctrl-S or Alt-Enter sends;
 * the cursor moves by character, word and line; Backspace, Delete, Ctrl-W / Alt-Backspace (word),
 * Ctrl-U / Ctrl-K (to the start / end of the line) delete; Ctrl-X hands the draft to $EDITOR; Esc
 * leaves the box; PgUp / PgDn scroll the chat above it. The cursor is an index into the text that
 * always sits between grapheme clusters, so a Tamil or Thai syllable is never split.
 */

export type EditorState = {
	readonly text: string;
	/** UTF-16 index of the cursor, at a cluster boundary. */
	readonly cursor: number;
	/** Column kept while moving up and down through shorter lines, or null. */
	readonly goal: number | null;
};

export const EMPTY_EDITOR: EditorState = {text: '', cursor: 0, goal: null};

export const editorOf = (text: string): EditorState => ({text, cursor: text.length, goal: null});

export type EditResult =
	| {readonly kind: 'edit'; readonly state: EditorState}
	| {readonly kind: 'send'; readonly text: string}
	/** Send asked for with nothing to send. */
	| {readonly kind: 'empty'; readonly state: EditorState}
	| {readonly kind: 'blur'; readonly state: EditorState}
	/** Ctrl-X: compose in $EDITOR. */
	| {readonly kind: 'external'; readonly state: EditorState}
	| {readonly kind: 'scroll'; readonly pages: number; readonly state: EditorState};

const segmenter = new Intl.Segmenter();

/** Cluster boundaries of `text` (0 and text.length included). */
function boundaries(text: string): number[] {
	const out = [0];
	for (const {index, segment} of segmenter.segment(text)) out.push(index + segment.length);
	return out;
}

const prevBoundary = (text: string, at: number) => boundaries(text).filter((b) => b < at).at(-1) ?? 0;
const nextBoundary = (text: string, at: number) => boundaries(text).find((b) => b > at) ?? text.length;
const lineStart = (text: string, at: number) => text.lastIndexOf('\n', at - 1) + 1;
const lineEnd = (text: string, at: number) => (text.indexOf('\n', at) === -1 ? text.length : text.indexOf('\n', at));
/** Column of `at` on its line, in clusters. */
const columnOf = (text: string, at: number) => boundaries(text.slice(lineStart(text, at), at)).length - 1;
/** The index `column` clusters into the line starting at `start` (or its end). */
function atColumn(text: string, start: number, column: number): number {
	const line = text.slice(start, lineEnd(text, start));
	const bounds = boundaries(line);
	return start + bounds[Math.min(column, bounds.length - 1)]!;
}
/** Start of the word before `at` (skipping spaces first), as Ctrl-W and Alt-B see words. */
const wordBefore = (text: string, at: number) => at - (/\S*\s*$/.exec(text.slice(0, at))?.[0].length ?? 0);
/** End of the word after `at`. */
const wordAfter = (text: string, at: number) => at + (/^\s*\S*/.exec(text.slice(at))?.[0].length ?? 0);

const edit = (state: EditorState, text: string, cursor: number): EditResult => ({kind: 'edit', state: {text, cursor, goal: null}});
const move = (state: EditorState, cursor: number, goal: number | null = null): EditResult => ({kind: 'edit', state: {...state, cursor, goal}});

/** One key press in the reply box. */
export function editKey(state: EditorState, key: Press): EditResult {
	const {text, cursor} = state;
	const before = text.slice(0, cursor);
	const after = text.slice(cursor);
	const send = (): EditResult => (text.trim().length === 0 ? {kind: 'empty', state} : {kind: 'send', text: text.trim()});
	switch (key.name) {
		case 'text': {
			const typed = key.text.replace(/\r\n?/g, '\n');
			return edit(state, before + typed + after, cursor + typed.length);
		}
		case 'return':
			return key.meta ? send() : edit(state, `${before}\n${after}`, cursor + 1);
		case 'backspace': {
			const from = key.meta || key.ctrl ? wordBefore(text, cursor) : prevBoundary(text, cursor);
			return edit(state, text.slice(0, from) + after, from);
		}
		case 'delete':
			return edit(state, before + text.slice(key.meta || key.ctrl ? wordAfter(text, cursor) : nextBoundary(text, cursor)), cursor);
		case 'left':
			return move(state, key.ctrl || key.meta ? wordBefore(text, cursor) : prevBoundary(text, cursor));
		case 'right':
			return move(state, key.ctrl || key.meta ? wordAfter(text, cursor) : nextBoundary(text, cursor));
		case 'home':
			return move(state, lineStart(text, cursor));
		case 'end':
			return move(state, lineEnd(text, cursor));
		case 'up':
		case 'down': {
			const goal = state.goal ?? columnOf(text, cursor);
			const start = lineStart(text, cursor);
			if (key.name === 'up') return start === 0 ? move(state, 0) : move(state, atColumn(text, lineStart(text, start - 1), goal), goal);
			const end = lineEnd(text, cursor);
			return end === text.length ? move(state, text.length) : move(state, atColumn(text, end + 1, goal), goal);
		}
		case 'pageup':
		case 'pagedown':
			return {kind: 'scroll', pages: key.name === 'pageup' ? -1 : 1, state};
		case 'escape':
			return {kind: 'blur', state};
		case 'chord': {
			const letter = key.text;
			if (key.ctrl && letter === 's') return send();
			if (key.ctrl && letter === 'x') return {kind: 'external', state};
			if (key.ctrl && letter === 'a') return move(state, lineStart(text, cursor));
			if (key.ctrl && letter === 'e') return move(state, lineEnd(text, cursor));
			if (key.ctrl && letter === 'u') return edit(state, text.slice(0, lineStart(text, cursor)) + after, lineStart(text, cursor));
			if (key.ctrl && letter === 'k') return edit(state, before + text.slice(lineEnd(text, cursor) === cursor && cursor < text.length ? cursor + 1 : lineEnd(text, cursor)), cursor);
			if (key.ctrl && letter === 'w') return edit(state, text.slice(0, wordBefore(text, cursor)) + after, wordBefore(text, cursor));
			if (key.ctrl && letter === 'd') return edit(state, before + text.slice(nextBoundary(text, cursor)), cursor);
			if (key.meta && letter === 'b') return move(state, wordBefore(text, cursor));
			if (key.meta && letter === 'f') return move(state, wordAfter(text, cursor));
			if (key.meta && letter === 'd') return edit(state, before + text.slice(wordAfter(text, cursor)), cursor);
			return {kind: 'edit', state};
		}
		case 'tab':
		case 'paste-start':
		case 'paste-end':
		case 'unknown':
			return {kind: 'edit', state};
		default: {
			const never: never = key.name;
			return never;
		}
	}
}

/** Stands in for the cursor while wrapping (a private-use character, one column wide). */
const CURSOR_MARK = '\uE000';

/**
 * The draft as display lines at `width`, with the cursor drawn as ▌ where it is (when shown), and
 * the index of the line that holds it (the box scrolls to keep it in view).
 */
export function editorLines(state: EditorState, width: number, showCursor: boolean): {lines: string[]; cursorLine: number} {
	const marked = showCursor ? state.text.slice(0, state.cursor) + CURSOR_MARK + state.text.slice(state.cursor) : state.text;
	const lines = wrapText(marked, Math.max(2, width));
	const cursorLine = showCursor ? Math.max(0, lines.findIndex((line) => line.includes(CURSOR_MARK))) : lines.length - 1;
	return {lines: lines.map((line) => line.replace(CURSOR_MARK, '▌')), cursorLine};
}
