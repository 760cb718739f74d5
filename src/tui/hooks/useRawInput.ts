import {useStdin} from 'ink';
import {useEffect, useRef} from 'react';
import {type Press, parsePresses} from '../text/keys.js';

/**
 * Every key press of the raw input, one call each and in order (see text/keys.ts): for the reply
 * box, which must not lose a Backspace typed in the same read as text. Reads Ink's input events
 * (already split at escape sequences by Ink's parser) instead of useInput, which merges a text run
 * into one "input" and reports Backspace and Delete alike.
 */
export function useRawInput(handler: (press: Press) => void, options: {isActive: boolean}): void {
	const {internal_eventEmitter: events, setRawMode} = useStdin();
	const latest = useRef(handler);
	latest.current = handler;
	useEffect(() => {
		if (!options.isActive) return;
		setRawMode(true);
		return () => setRawMode(false);
	}, [options.isActive, setRawMode]);
	useEffect(() => {
		if (!options.isActive) return;
		const onInput = (raw: string) => {
			for (const press of parsePresses(raw)) latest.current(press);
		};
		events.on('input', onInput);
		return () => {
			events.off('input', onInput);
		};
	}, [options.isActive, events]);
}
