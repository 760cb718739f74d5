import {type Key, useInput} from 'ink';
import {useCallback, useRef} from 'react';

const NO_KEY: Key = {upArrow: false, downArrow: false, leftArrow: false, rightArrow: false, pageDown: false, pageUp: false, home: false, end: false, return: false, escape: false, ctrl: false, shift: false, tab: false, backspace: false, delete: false, meta: false, super: false, hyper: false, capsLock: false, numLock: false};

/**
 * The key presses in one input event. Ink splits escape sequences apart but hands plain characters
 * read together as one string ("\r\r" for two quick Enters, "nn" for two quick n's); for command
 * keys each character is its own press.
 */
export function splitKeys(input: string, key: Key): Array<[string, Key]> {
	const chars = [...input];
	if (chars.length <= 1) return [[input, key]];
	return chars.map(pressOf);
}

/** One character as the key press Ink would report for it alone. */
function pressOf(char: string): [string, Key] {
	const code = char.codePointAt(0)!;
	if (char === '\r' || char === '\n') return ['\r', {...NO_KEY, return: true}];
	if (char === '\t') return ['', {...NO_KEY, tab: true}];
	if (code === 0x7f || code === 0x08) return ['', {...NO_KEY, backspace: true}];
	if (code < 0x20) return [String.fromCharCode(code + 96), {...NO_KEY, ctrl: true}];
	return [char, {...NO_KEY, shift: char !== char.toLowerCase()}];
}

/**
 * useInput for command keys: one handler call per key press, even when presses arrive together. The
 * handler of the latest render answers: Ink re-subscribes a new handler only in an effect after the
 * frame is written, so a key pressed right after a frame appeared reached the previous render's
 * handler (its key table of the state before: a `n` just after a step ended was dropped).
 */
export function useKeys(handler: (input: string, key: Key) => void, options: {isActive?: boolean} = {}): void {
	const latest = useRef(handler);
	latest.current = handler;
	// Whether the region has the keys is read at key time too: a box opened by the last render (a y/N
	// question) must take the very next key, not the region under it, whose subscription Ink would only
	// drop in an effect after the frame. So the hook stays subscribed and the latest render decides.
	const active = useRef(options.isActive !== false);
	active.current = options.isActive !== false;
	const stable = useCallback((input: string, key: Key) => {
		for (const [one, oneKey] of splitKeys(input, key)) if (active.current) latest.current(one, oneKey);
	}, []);
	useInput(stable);
}
