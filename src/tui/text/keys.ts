/*
 * Raw terminal input as key presses, for the reply box. Ink hands plain characters read together as
 * one string ("abc\x7f\x7fdef" when someone types fast), and reports the Backspace key (DEL, 0x7f)
 * and the Delete key (ESC [3~) alike; an editor needs every press, in order, and which key it was.
 * Ink has already split escape sequences from text runs (its input parser), so a sequence arrives
 * whole, but a text run may hold any control characters.
 */

export type PressName =
	| 'text'
	| 'return'
	| 'backspace'
	| 'delete'
	| 'left'
	| 'right'
	| 'up'
	| 'down'
	| 'home'
	| 'end'
	| 'pageup'
	| 'pagedown'
	| 'tab'
	| 'escape'
	| 'paste-start'
	| 'paste-end'
	/** A control or Alt chord of a letter: `char` holds the letter. */
	| 'chord'
	| 'unknown';

export type Press = {
	readonly name: PressName;
	/** The text typed (name 'text'), or the letter of a chord. */
	readonly text: string;
	readonly ctrl: boolean;
	/** Alt / Option (ESC prefix, or modifier 3 in CSI sequences). */
	readonly meta: boolean;
	readonly shift: boolean;
};

const press = (name: PressName, extra: Partial<Press> = {}): Press => ({name, text: '', ctrl: false, meta: false, shift: false, ...extra});

const CSI_KEYS: Readonly<Record<string, PressName>> = {A: 'up', B: 'down', C: 'right', D: 'left', H: 'home', F: 'end'};
const TILDE_KEYS: Readonly<Record<string, PressName>> = {'1': 'home', '7': 'home', '4': 'end', '8': 'end', '3': 'delete', '5': 'pageup', '6': 'pagedown'};

/** ESC [ params final, ESC O final (SS3), Alt + one character (ESC x). */
function escapePress(sequence: string): Press {
	const csi = /^\u001B\[([\d;]*)([A-Za-z~])$/.exec(sequence) ?? /^\u001BO()([A-Za-z])$/.exec(sequence);
	if (csi) {
		const [, params = '', final = ''] = csi;
		if (params === '200' && final === '~') return press('paste-start');
		if (params === '201' && final === '~') return press('paste-end');
		const parts = params.split(';');
		// xterm modifiers: 1 + (shift 1 | alt 2 | ctrl 4), e.g. ESC[1;5C is Ctrl-Right.
		const modifier = Math.max(0, Number(parts[1] ?? 1) - 1);
		const mods = {shift: Boolean(modifier & 1), meta: Boolean(modifier & 2), ctrl: Boolean(modifier & 4)};
		if (final === '~') {
			const name = TILDE_KEYS[parts[0] ?? ''];
			return name ? press(name, mods) : press('unknown');
		}
		if (final === 'Z') return press('tab', {shift: true});
		const name = CSI_KEYS[final];
		return name ? press(name, mods) : press('unknown');
	}
	if (sequence === '\u001B') return press('escape');
	const rest = sequence.slice(1);
	if (rest === '\u007F' || rest === '\b') return press('backspace', {meta: true});
	if (rest === '\r') return press('return', {meta: true});
	if (rest.length === 1 && rest >= ' ') return press('chord', {text: rest.toLowerCase(), meta: true, shift: rest !== rest.toLowerCase()});
	return press('unknown');
}

/** One control character as a press. */
function controlPress(char: string): Press {
	const code = char.charCodeAt(0);
	if (char === '\r' || char === '\n') return press('return');
	if (char === '\t') return press('tab');
	if (code === 0x7f || code === 0x08) return press('backspace');
	if (code === 0x1b) return press('escape');
	if (code >= 1 && code <= 26) return press('chord', {text: String.fromCharCode(code + 96), ctrl: true});
	return press('unknown');
}

/**
 * Every press in one chunk of raw input, in order: runs of printable text stay together (a paste
 * or fast typing inserts in one go), each control character and escape sequence is its own press.
 */
export function parsePresses(raw: string): Press[] {
	if (raw.startsWith('\u001B')) return [escapePress(raw)];
	const out: Press[] = [];
	let text = '';
	let previous = '';
	for (const char of raw) {
		const code = char.codePointAt(0)!;
		const crlf = char === '\n' && previous === '\r';
		previous = char;
		// A pasted CR LF is one line break.
		if (crlf) continue;
		if (code < 0x20 || code === 0x7f) {
			if (text) out.push(press('text', {text}));
			text = '';
			out.push(controlPress(char));
		} else text += char;
	}
	if (text) out.push(press('text', {text}));
	return out;
}
