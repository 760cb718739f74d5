import {safeText} from './terminalText.js';

/*
 * The terminal side of the boundary. Text from outside (server bodies, model text, files, arguments)
 * loses its control sequences where it enters (server text: llm/serverText.ts), and everything the
 * program prints passes one of these on the way out, so nothing from outside reaches a terminal as
 * a command even when it came in by another door (an argument echoed in an error, a file name, a
 * rater's name, an old session written before cleaning existed):
 *
 * - `forTerminal`: a message for stderr or stdout, without control sequences;
 * - `jsonText`: JSON whose strings carry no raw control character. JSON.stringify escapes C0 but
 *   leaves DEL and the C1 controls (U+0080-U+009F, among them U+009B CSI, U+009D OSC and U+009C ST,
 *   which many terminals obey) raw, and U+2028/U+2029 break JavaScript readers of JSON lines: all are
 *   written as \u escapes, so the text reads back identical and prints harmless.
 */

/** A message for a terminal: no escape sequences or control characters (newlines and tabs stay). */
export function forTerminal(text: string): string {
	return safeText(text);
}

const RAW_CONTROLS = /[\u007f-\u009f\u2028\u2029]/g;
const HAS_RAW_CONTROL = /[\u007f-\u009f\u2028\u2029]/;

/** JSON text (a file's, as read) with its raw DEL, C1 and line-separator characters written as \u escapes: the same JSON value. */
export function escapeJsonControls(text: string): string {
	return HAS_RAW_CONTROL.test(text) ? text.replace(RAW_CONTROLS, (char) => `\\u${char.charCodeAt(0).toString(16).padStart(4, '0')}`) : text;
}

/** JSON.stringify, with DEL, the C1 controls and the line separators escaped (the value reads back the same). */
export function jsonText(value: unknown, indent?: number): string {
	return escapeJsonControls(JSON.stringify(value, null, indent) ?? 'null');
}
