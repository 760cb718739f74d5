import {displayWidth} from '../text/width.js';

/*
 * Keys as one table per screen state: the footer is drawn from the same list the key handler looks
 * actions up in, so a footer cannot advertise a key that does nothing in that state (a key bound to
 * nothing is simply absent). Pure: screens build their table from their state on every render.
 */

/** A key as the table names it: a character, or one of Ink's named keys. */
export type KeyName = string | 'up' | 'down' | 'left' | 'right' | 'pageUp' | 'pageDown' | 'home' | 'end' | 'tab' | 'shiftTab' | 'return' | 'escape';

/** The fields of Ink's Key this module reads. */
export type KeyLike = {
	readonly upArrow?: boolean;
	readonly downArrow?: boolean;
	readonly leftArrow?: boolean;
	readonly rightArrow?: boolean;
	readonly pageUp?: boolean;
	readonly pageDown?: boolean;
	readonly home?: boolean;
	readonly end?: boolean;
	readonly tab?: boolean;
	readonly shift?: boolean;
	readonly return?: boolean;
	readonly escape?: boolean;
	readonly ctrl?: boolean;
	readonly meta?: boolean;
};

export type Binding<A extends string> = {
	readonly action: A;
	/** Every key that does it; the first is the one a test presses. */
	readonly keys: readonly KeyName[];
	/** The footer's words: "n step", "q quit". Empty: bound but not advertised (scroll keys the help lists). */
	readonly hint: string;
	/**
	 * Which hints go first when the footer is too narrow: 0 never goes (q quit), then 1, 2, ...; the
	 * highest number is dropped first, ties from the end. The footer keeps the table's order.
	 */
	readonly drop: number;
};

export function keyMatches(name: KeyName, input: string, key: KeyLike): boolean {
	switch (name) {
		case 'up':
			return Boolean(key.upArrow);
		case 'down':
			return Boolean(key.downArrow);
		case 'left':
			return Boolean(key.leftArrow);
		case 'right':
			return Boolean(key.rightArrow);
		case 'pageUp':
			return Boolean(key.pageUp);
		case 'pageDown':
			return Boolean(key.pageDown);
		case 'home':
			return Boolean(key.home);
		case 'end':
			return Boolean(key.end);
		case 'tab':
			return Boolean(key.tab) && !key.shift;
		case 'shiftTab':
			return Boolean(key.tab) && Boolean(key.shift);
		case 'return':
			return Boolean(key.return);
		case 'escape':
			return Boolean(key.escape);
		default:
			return input === name && !key.ctrl && !key.meta;
	}
}

/** The binding a key press triggers in this table, or null (the key does nothing here). */
export function lookup<A extends string>(table: readonly Binding<A>[], input: string, key: KeyLike): Binding<A> | null {
	return table.find((binding) => binding.keys.some((name) => keyMatches(name, input, key))) ?? null;
}

/**
 * The footer line for a table at a width: the advertised hints joined by " · ", dropping the most
 * droppable ones until the line fits, so `q quit` and the keys of the moment stay visible. A lead
 * text (a mode such as "typing into the reply") goes first and is cut last.
 */
export function footerLine(table: readonly Binding<string>[], width: number, lead = ''): string {
	const shown = table.filter((binding) => binding.hint !== '');
	const order = shown.map((binding, index) => ({binding, index})).sort((a, b) => b.binding.drop - a.binding.drop || b.index - a.index);
	const kept = new Set(shown);
	const text = () => [lead, ...shown.filter((binding) => kept.has(binding)).map((binding) => binding.hint)].filter(Boolean).join(' · ');
	for (const {binding} of order) {
		if (displayWidth(text()) <= width) break;
		if (binding.drop === 0) break;
		kept.delete(binding);
	}
	return text();
}

/** Human names of a binding's keys, for help texts: "n/space". */
export function keyLabel(binding: Binding<string>): string {
	const names: Record<string, string> = {up: '↑', down: '↓', left: '←', right: '→', pageUp: 'PgUp', pageDown: 'PgDn', home: 'Home', end: 'End', tab: 'Tab', shiftTab: 'Shift-Tab', return: 'Enter', escape: 'Esc', ' ': 'space'};
	return binding.keys.map((name) => names[name] ?? name).join('/');
}
