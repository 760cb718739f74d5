import {stripVTControlCharacters} from 'node:util';

/*
 * Model and human text is data, never terminal commands. A reply holding `ESC ] 0 ; title BEL`
 * would retitle the terminal, `ESC [ 2 J` would wipe it, and a bare carriage return can overwrite
 * what was printed before it on the line. Every text output (the TUI, `replay --print`, `run`)
 * passes foreign text through `safeText` before writing it.
 */

/**
 * OSC, DCS, SOS, PM and APC strings run to BEL or ST and may hold spaces and any printable text,
 * which the ansi-regex pattern behind `stripVTControlCharacters` does not cover (it stops at the
 * first space of an OSC title), so they are removed first; an unterminated one runs to the end.
 */
const STRING_SEQUENCES = /(?:\u001B[\]PX^_]|[\u0090\u0098\u009D\u009E\u009F])[\s\S]*?(?:\u0007|\u001B\\|\u009C|$)/g;
/** What is left: C0 controls but tab and newline, DEL, C1 controls and any lone ESC. */
const CONTROLS = /[\u0000-\u0008\u000B-\u001F\u007F-\u009F]/g;

/** `text` without terminal control sequences or control characters (newlines and tabs stay; CR LF becomes LF). */
export function safeText(text: string): string {
	if (!/[\u0000-\u0008\u000B-\u001F\u007F-\u009F]/.test(text)) return text;
	return stripVTControlCharacters(text.replace(/\r\n?/g, '\n').replace(STRING_SEQUENCES, '')).replace(CONTROLS, '');
}
