import {type SessionSummary, statusLabel} from '../../domain/sessionSummary.js';
import {summaryGuarded} from '../../episode/blindness.js';
import {type Binding, lookup} from './keyTable.js';

export type SessionsAction = 'explain' | 'down' | 'up' | 'pageDown' | 'pageUp' | 'open' | 'resume' | 'filter' | 'sort' | 'hide' | 'mark' | 'compare' | 'back' | 'quit';

/**
 * The sessions list's keys in its state (the footer and the key handler both read it): Enter and m
 * need a row, r an unfinished or errored one, d two marked sessions.
 */
export function sessionsKeys(state: SessionsScreenState, selected: SessionSummary | undefined): Binding<SessionsAction>[] {
	const b = (action: SessionsAction, keys: Binding<SessionsAction>['keys'], hint: string, drop: number): Binding<SessionsAction> => ({action, keys, hint, drop});
	return [
		b('down', ['down', 'j'], '↑↓ select', 6),
		b('up', ['up', 'k'], '', 9),
		b('pageDown', ['pageDown'], '', 9),
		b('pageUp', ['pageUp'], '', 9),
		...(selected ? [b('open', ['return'], 'Enter replay', 1)] : []),
		...(selected && continuable(selected) ? [b('resume', ['r'], selected.status === 'error' ? 'r retry live' : 'r resume live', 1)] : []),
		// Not advertised: r on a completed session only says why there is nothing to resume.
		...(selected && !continuable(selected) ? [b('explain', ['r'], '', 9)] : []),
		b('filter', ['/'], '/ filter (model:NAME 3h>=4 clean:no)', 2),
		b('sort', ['s'], 's sort', 5),
		b('hide', ['h'], state.hideScores ? 'h show scores' : 'h hide scores', 7),
		...(selected ? [b('mark', ['m', ' '], 'm mark', 5)] : []),
		// Advertised once two are marked; before that d says what it needs.
		b('compare', ['d'], state.marked.length === 2 ? 'd compare the two' : '', state.marked.length === 2 ? 1 : 9),
		b('back', ['escape', 'b'], state.query ? 'Esc clear the filter' : 'Esc back', 3),
		b('quit', ['q'], 'q quit', 0),
	];
}

/** The footer while typing a filter, and while asking about a blind session. */
export const FILTERING_FOOTER = 'typing a filter: words match rows; model:NAME judge:NAME status:error clean:no 3h>=4 tdq<3 · Enter/Esc done · Bksp delete';
export const ASKING_FOOTER = 'y show it (recorded on the session) · r resume it blind · any other key cancels';

export const SORTS = ['newest', 'oldest', '3H', 'TDQ', 'status', 'persona'] as const;
export type SessionSort = (typeof SORTS)[number];

export function nextSort(sort: SessionSort): SessionSort {
	return SORTS[(SORTS.indexOf(sort) + 1) % SORTS.length]!;
}

/** Unfinished sessions can be resumed live. */
export function resumable(summary: Pick<SessionSummary, 'status'>): boolean {
	return summary.status === 'running' || summary.status === 'awaiting_assistant';
}

/** Unfinished or errored: r continues it live (an errored one with its failed step run again, as `run --resume ID --retry`). */
export function continuable(summary: Pick<SessionSummary, 'status'>): boolean {
	return resumable(summary) || summary.status === 'error';
}

/** Marks: H a person played the assistant (H! after seeing hidden state), M offline mock, RJ a re-judged copy. */
export function marks(s: Pick<SessionSummary, 'assistant' | 'assistantModel' | 'mock' | 'rejudgeOf'>): string {
	return [s.assistant === 'human' ? (s.assistantModel.includes('saw hidden') ? 'H!' : 'H') : '', s.mock ? 'M' : '', s.rejudgeOf ? 'RJ' : ''].filter(Boolean).join(' ');
}

const nullsLast = (a: number | null, b: number | null) => (a === null ? (b === null ? 0 : 1) : b === null ? -1 : b - a);

/**
 * A filter word with a field: `model:gpt-5` (assistant model contains), `judge:…`, `3h>=4`, `tdq<3`
 * (scores; a session without one never matches), `clean:yes|no`, `status:error`.
 */
const FIELD = /^(model|judge|status|clean|3h|tdq)(:|>=|<=|>|<|=)(.+)$/;

function fieldMatches(s: SessionSummary, field: string, op: string, value: string): boolean {
	switch (field) {
		case 'model':
			return s.assistantModel.toLowerCase().includes(value);
		case 'judge':
			return s.judgeModel.toLowerCase().includes(value);
		case 'status':
			return `${s.status} ${s.errorFlag ?? ''}`.toLowerCase().includes(value);
		case 'clean':
			return s.clean !== null && s.clean === (value === 'yes' || value === 'true');
		default: {
			const score = field === '3h' ? s.threeH : s.tdq;
			const bound = Number(value);
			if (score === null || !Number.isFinite(bound)) return false;
			if (op === '>=') return score >= bound;
			if (op === '<=') return score <= bound;
			if (op === '>') return score > bound;
			if (op === '<') return score < bound;
			return Math.abs(score - bound) < 0.005 || (op === ':' && score >= bound);
		}
	}
}

const haystack = (s: SessionSummary) => `${s.id} ${s.personaId} ${s.identity} ${s.region} ${s.templateId} ${s.status} ${s.errorFlag ?? ''} ${s.tier} ${s.language} ${s.mode} ${s.assistant} ${s.createdAt.slice(0, 10)}`.toLowerCase();

/**
 * Sessions matching the typed filter, in the chosen order. Every word of the filter must occur in the
 * row (id, persona, identity, region, template, status, tier, language, mode, model, date): plain
 * substrings, since a fuzzy match over ids of the same shape matches nearly everything; words with a
 * field (`model:qwen`, `3h>=4`, `clean:no`) test that field.
 */
export function visibleSessions(sessions: readonly SessionSummary[], query: string, sort: SessionSort): SessionSummary[] {
	const terms = query.toLowerCase().split(/\s+/).filter(Boolean);
	const matched = sessions.filter((s) => {
		const text = haystack(s);
		return terms.every((term) => {
			const field = FIELD.exec(term);
			return field ? fieldMatches(s, field[1]!, field[2]!, field[3]!) : text.includes(term);
		});
	});
	const by: Record<SessionSort, (a: SessionSummary, b: SessionSummary) => number> = {
		newest: (a, b) => b.createdAt.localeCompare(a.createdAt),
		oldest: (a, b) => a.createdAt.localeCompare(b.createdAt),
		'3H': (a, b) => nullsLast(a.threeH, b.threeH),
		TDQ: (a, b) => nullsLast(a.tdq, b.tdq),
		status: (a, b) => a.status.localeCompare(b.status),
		persona: (a, b) => a.personaId.localeCompare(b.personaId),
	};
	return matched.sort((a, b) => by[sort](a, b) || b.createdAt.localeCompare(a.createdAt) || a.id.localeCompare(b.id));
}

const score = (value: number | null) => (value === null ? '  –' : value.toFixed(2));

/**
 * One row of the sessions table, as fixed-width columns. With `hideScores` the judge's figures are
 * blanked: choosing what to rate by its score would anchor the rating.
 */
export function sessionRow(s: SessionSummary, options: {hideScores?: boolean} = {}): string[] {
	const hidden = options.hideScores;
	return [
		statusLabel(s),
		s.id,
		s.assistantModel,
		marks(s),
		s.templateId,
		s.tier,
		hidden ? ' ··' : score(s.threeH),
		hidden ? ' ··' : score(s.tdq),
		hidden ? '··' : s.clean === null ? '–' : s.clean ? 'yes' : 'no',
		s.createdAt.slice(0, 16).replace('T', ' '),
	];
}

export type SessionColumn = {readonly header: string; readonly width: number; readonly min?: number; readonly middle?: boolean};

/**
 * The columns that fit a width, each with its width: the flexible ones (ID, ASSISTANT, TEMPLATE)
 * shrink to their minimum first (TEMPLATE, ASSISTANT, then ID), then columns go in a fixed order (TIER, CLEAN, MARK, TDQ, ASSISTANT,
 * TEMPLATE); STATUS, ID, 3H and DATE stay, DATE always whole. `index` is the column's place in a row
 * of `sessionRow`. `prefix` columns go to the selection and mark signs.
 */
export function sessionColumns(width: number, prefix = 3): Array<SessionColumn & {readonly index: number}> {
	let columns = SESSION_COLUMNS.map((column, index) => ({...column, index}));
	const total = () => prefix + columns.reduce((sum, column) => sum + column.width + 1, -1);
	for (const column of ['TEMPLATE', 'ASSISTANT', 'ID'].map((header) => columns.find((c) => c.header === header)!)) {
		if (total() <= width) return columns;
		column.width = Math.max(column.min!, column.width - (total() - width));
	}
	for (const header of ['TIER', 'CLEAN', 'MARK', 'TDQ', 'ASSISTANT', 'TEMPLATE']) {
		if (total() <= width) break;
		columns = columns.filter((column) => column.header !== header);
	}
	// Still too wide: the ID gives what it must (it is cut in the middle, keeping its distinguishing end).
	const id = columns.find((column) => column.header === 'ID')!;
	if (total() > width) id.width = Math.max(8, id.width - (total() - width));
	return columns;
}

export const SESSION_COLUMNS: ReadonlyArray<SessionColumn> = [
	{header: 'STATUS', width: 16},
	{header: 'ID', width: 50, min: 24, middle: true},
	{header: 'ASSISTANT', width: 18, min: 10},
	{header: 'MARK', width: 5},
	{header: 'TEMPLATE', width: 28, min: 16, middle: true},
	{header: 'TIER', width: 10},
	{header: '3H', width: 5},
	{header: 'TDQ', width: 5},
	{header: 'CLEAN', width: 5},
	{header: 'DATE', width: 16},
];

export type SessionsScreenState = {
	readonly query: string;
	/** True while typing a filter (after /). */
	readonly filtering: boolean;
	readonly sort: SessionSort;
	readonly selected: number;
	readonly note: string | null;
	/** Judge scores blanked (h): for choosing what to rate without anchoring on them. */
	readonly hideScores: boolean;
	/** Ids marked (m) for a side-by-side comparison, at most two. */
	readonly marked: readonly string[];
	/**
	 * A session still played blind that Enter would replay (its hidden panes with it): the screen asks
	 * first (y shows it, recorded on the session; r resumes it blind; anything else cancels).
	 */
	readonly asking: string | null;
	/** What the last key asks the screen to do (`open-reveal`: replay a blind session, after yes). */
	readonly command: 'open' | 'open-reveal' | 'resume' | 'compare' | 'back' | 'quit' | null;
};

export const initialSessionsScreen = (): SessionsScreenState => ({query: '', filtering: false, sort: 'newest', selected: 0, note: null, hideScores: false, marked: [], asking: null, command: null});

/** The question Enter asks for a session still played blind. */
export const askRevealText = (id: string) => `${id} is played blind and not finished: its replay shows the private and oracle panes, which is recorded on the session (sawHidden). y show it · r resume it blind · any other key cancels`;

type KeyLike = {readonly upArrow?: boolean; readonly downArrow?: boolean; readonly pageUp?: boolean; readonly pageDown?: boolean; readonly return?: boolean; readonly escape?: boolean; readonly backspace?: boolean; readonly delete?: boolean; readonly ctrl?: boolean; readonly meta?: boolean};

/**
 * The sessions screen's keys: / filter, s sort, ↑↓ select, Enter open, r resume (an errored session:
 * retry its failed step), h hide scores, m mark (two marked sessions of one seed: d compares), Esc back, q quit.
 */
export function sessionsKey(sessions: readonly SessionSummary[], state: SessionsScreenState, input: string, key: KeyLike, page: number): SessionsScreenState {
	const s: SessionsScreenState = {...state, command: null};
	const rows = () => visibleSessions(sessions, s.query, s.sort);
	const move = (delta: number) => {
		const last = Math.max(0, rows().length - 1);
		return {...s, selected: Math.min(last, Math.max(0, Math.min(s.selected, last) + delta))};
	};
	if (s.asking) {
		const asked = sessions.find((row) => row.id === s.asking);
		const cleared = {...s, asking: null, note: null};
		if (asked && input === 'y') return {...cleared, command: 'open-reveal'};
		if (asked && input === 'r') return {...cleared, command: 'resume'};
		return {...cleared, note: 'Not opened: the session stays blind.'};
	}
	if (s.filtering) {
		if (key.return || key.escape) return {...s, filtering: false};
		if (key.backspace || key.delete) return {...s, query: s.query.slice(0, -1), selected: 0};
		if (key.upArrow) return move(-1);
		if (key.downArrow) return move(1);
		if (input && !key.ctrl && !key.meta && input >= ' ') return {...s, query: s.query + input, selected: 0};
		return s;
	}
	const summary = rows()[Math.min(s.selected, Math.max(0, rows().length - 1))];
	const action = lookup(sessionsKeys(s, summary), input, key)?.action;
	switch (action) {
		case 'back':
			return s.query ? {...s, query: '', selected: 0} : {...s, command: 'back'};
		case 'quit':
			return {...s, command: 'quit'};
		case 'filter':
			return {...s, filtering: true, note: null};
		case 'sort':
			return {...s, sort: nextSort(s.sort), note: null};
		case 'up':
			return move(-1);
		case 'down':
			return move(1);
		case 'pageUp':
			return move(-page);
		case 'pageDown':
			return move(page);
		case 'open':
			return summaryGuarded(summary!) ? {...s, asking: summary!.id, note: askRevealText(summary!.id)} : {...s, command: 'open'};
		case 'resume':
			return {...s, command: 'resume'};
		case 'explain':
			return {...s, note: `${summary!.id} is completed: nothing to resume. Enter replays it; \`npx cultureconverse rejudge ${summary!.id}\` scores it again.`};
		case 'hide':
			return {...s, hideScores: !s.hideScores, note: s.hideScores ? null : 'Judge scores hidden (h shows them): pick what to rate without anchoring on them.'};
		case 'mark': {
			const marked = s.marked.includes(summary!.id) ? s.marked.filter((id) => id !== summary!.id) : [...s.marked, summary!.id].slice(-2);
			return {...s, marked, note: marked.length === 2 ? 'Two marked: d shows them side by side.' : marked.length === 1 ? 'Marked one: mark another session of the same seed, then d.' : null};
		}
		case 'compare': {
			const pair = s.marked.map((id) => sessions.find((row) => row.id === id)).filter((row): row is SessionSummary => row !== undefined);
			if (pair.length !== 2) return {...s, note: 'Mark two sessions with m first (the same seed, e.g. two assistant models or judges), then d.'};
			if (pair[0]!.seedId !== pair[1]!.seedId) return {...s, note: `The marked sessions are of different seeds (${pair[0]!.seedId}, ${pair[1]!.seedId}): a comparison needs the same seed.`};
			return {...s, command: 'compare'};
		}
		default:
			return s;
	}
}
