import type {Key} from 'ink';
import type {Universe} from '../../universe/load.js';
import {clamp} from '../text/scroll.js';
import {cycleFilter, FILTER_FIELDS, type FilterField, NO_FILTERS, type PersonaFilters, templateColumns, visiblePersonas} from './pickers.js';

/*
 * The pickers' key handling as reducers (pure), so several keys in a row act on the latest state.
 */

export type KeyPress = {readonly input: string; readonly key: Partial<Key>; readonly page: number};

const typed = ({input, key}: KeyPress) => input.length > 0 && !key.ctrl && !key.meta && !key.tab && !key.return && !key.escape && input >= ' ';

export type PersonaFocus = 'list' | FilterField;
export const PERSONA_FOCUS: readonly PersonaFocus[] = ['list', ...FILTER_FIELDS];

export type PersonaPickerState = {
	readonly filters: PersonaFilters;
	readonly query: string;
	readonly focus: PersonaFocus;
	readonly selected: number;
	/** Set by Enter: the persona id chosen. */
	readonly chosen: string | null;
	/** Set by Esc on an empty search: leave the picker. */
	readonly back: boolean;
};

export const initialPersonaPicker = (): PersonaPickerState => ({filters: NO_FILTERS, query: '', focus: 'list', selected: 0, chosen: null, back: false});

export function personaPickerKey(universe: Universe, state: PersonaPickerState, press: KeyPress): PersonaPickerState {
	const {input, key} = press;
	const s = {...state, chosen: null, back: false};
	const count = () => visiblePersonas(universe, s.filters, s.query).length;
	const move = (delta: number) => ({...s, selected: clamp(clamp(s.selected, 0, Math.max(0, count() - 1)) + delta, 0, Math.max(0, count() - 1))});
	if (key.escape) return s.query ? {...s, query: '', selected: 0} : {...s, back: true};
	if (key.tab) {
		const index = PERSONA_FOCUS.indexOf(s.focus);
		return {...s, focus: PERSONA_FOCUS[(index + (key.shift ? PERSONA_FOCUS.length - 1 : 1)) % PERSONA_FOCUS.length]!};
	}
	if ((key.leftArrow || key.rightArrow) && s.focus !== 'list') return {...s, filters: cycleFilter(universe, s.filters, s.focus, key.leftArrow ? -1 : 1), selected: 0};
	if (key.upArrow) return move(-1);
	if (key.downArrow) return move(1);
	if (key.pageUp) return move(-press.page);
	if (key.pageDown) return move(press.page);
	if (key.return) {
		const list = visiblePersonas(universe, s.filters, s.query);
		return {...s, chosen: list[clamp(s.selected, 0, Math.max(0, list.length - 1))]?.id ?? null};
	}
	if (key.backspace || key.delete) return {...s, query: s.query.slice(0, -1), selected: 0};
	if (typed(press)) return {...s, query: s.query + input, selected: 0};
	return s;
}

export type TemplatePickerState = {
	/** 0 domains, 1 subdomains, 2 templates. */
	readonly column: 0 | 1 | 2;
	readonly picks: readonly [number, number, number];
	readonly query: string;
	readonly chosen: string | null;
	readonly back: boolean;
};

export const initialTemplatePicker = (): TemplatePickerState => ({column: 0, picks: [0, 0, 0], query: '', chosen: null, back: false});

/** The column keys act on: the template column while searching. */
export const activeColumn = (state: TemplatePickerState): 0 | 1 | 2 => (state.query ? 2 : state.column);

export function templatePickerKey(universe: Universe, state: TemplatePickerState, press: KeyPress): TemplatePickerState {
	const {input, key} = press;
	const s = {...state, chosen: null, back: false};
	const columns = templateColumns(universe, s.picks[0], s.picks[1], s.query);
	const lengths = [columns.domains.length, columns.subdomains.length, columns.templates.length];
	const active = activeColumn(s);
	const at = (index: 0 | 1 | 2) => clamp(s.picks[index], 0, Math.max(0, lengths[index]! - 1));
	const move = (delta: number): TemplatePickerState => {
		const picks: [number, number, number] = [...s.picks];
		picks[active] = clamp(at(active) + delta, 0, Math.max(0, lengths[active]! - 1));
		for (let later = active + 1; later < 3; later++) picks[later as 1 | 2] = 0;
		return {...s, picks};
	};
	if (key.escape) return s.query ? {...s, query: ''} : {...s, back: true};
	if (key.upArrow) return move(-1);
	if (key.downArrow) return move(1);
	if (key.pageUp) return move(-press.page);
	if (key.pageDown) return move(press.page);
	if (key.leftArrow && !s.query) return {...s, column: Math.max(0, s.column - 1) as 0 | 1 | 2};
	if (key.rightArrow && !s.query) return {...s, column: Math.min(2, s.column + 1) as 0 | 1 | 2};
	if (key.return) {
		if (active < 2) return {...s, column: (active + 1) as 1 | 2};
		return {...s, chosen: columns.templates[at(2)]?.id ?? null};
	}
	if (key.backspace || key.delete) return {...s, query: s.query.slice(0, -1), picks: [s.picks[0], s.picks[1], 0]};
	if (typed(press)) return {...s, query: s.query + input, picks: [s.picks[0], s.picks[1], 0]};
	return s;
}
