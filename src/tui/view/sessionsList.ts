import {type SessionSummary, statusLabel} from '../../domain/sessionSummary.js';

export const SORTS = ['newest', 'oldest', '3H', 'TDQ', 'status', 'persona'] as const;
export type SessionSort = (typeof SORTS)[number];

export function nextSort(sort: SessionSort): SessionSort {
	return SORTS[(SORTS.indexOf(sort) + 1) % SORTS.length]!;
}

/** Unfinished sessions can be resumed live. */
export function resumable(summary: Pick<SessionSummary, 'status'>): boolean {
	return summary.status === 'running' || summary.status === 'awaiting_assistant';
}

const nullsLast = (a: number | null, b: number | null) => (a === null ? (b === null ? 0 : 1) : b === null ? -1 : b - a);

const haystack = (s: SessionSummary) => `${s.id} ${s.personaId} ${s.identity} ${s.region} ${s.templateId} ${s.status} ${s.errorFlag ?? ''} ${s.tier} ${s.language} ${s.mode} ${s.assistant} ${s.createdAt.slice(0, 10)}`.toLowerCase();

/**
 * Sessions matching the typed filter, in the chosen order. Every word of the filter must occur in the
 * row (id, persona, identity, region, template, status, tier, language, mode, date): plain
 * substrings, since a fuzzy match over ids of the same shape matches nearly everything.
 */
export function visibleSessions(sessions: readonly SessionSummary[], query: string, sort: SessionSort): SessionSummary[] {
	const terms = query.toLowerCase().split(/\s+/).filter(Boolean);
	const matched = sessions.filter((s) => {
		const text = haystack(s);
		return terms.every((term) => text.includes(term));
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

/** One row of the sessions table, as fixed-width columns. */
export function sessionRow(s: SessionSummary): string[] {
	return [
		statusLabel(s),
		s.personaId,
		s.templateId,
		s.tier,
		s.language,
		score(s.threeH),
		score(s.tdq),
		s.clean === null ? '–' : s.clean ? 'yes' : 'no',
		s.createdAt.slice(0, 16).replace('T', ' '),
	];
}

export const SESSION_COLUMNS: ReadonlyArray<{readonly header: string; readonly width: number}> = [
	{header: 'STATUS', width: 18},
	{header: 'PERSONA', width: 26},
	{header: 'TEMPLATE', width: 30},
	{header: 'TIER', width: 10},
	{header: 'LANG', width: 7},
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
	/** What the last key asks the screen to do. */
	readonly command: 'open' | 'resume' | 'back' | 'quit' | null;
};

export const initialSessionsScreen = (): SessionsScreenState => ({query: '', filtering: false, sort: 'newest', selected: 0, note: null, command: null});

type KeyLike = {readonly upArrow?: boolean; readonly downArrow?: boolean; readonly pageUp?: boolean; readonly pageDown?: boolean; readonly return?: boolean; readonly escape?: boolean; readonly backspace?: boolean; readonly delete?: boolean; readonly ctrl?: boolean; readonly meta?: boolean};

/** The sessions screen's keys: / filter, s sort, ↑↓ select, Enter open, r resume (unfinished only), Esc back, q quit. */
export function sessionsKey(sessions: readonly SessionSummary[], state: SessionsScreenState, input: string, key: KeyLike, page: number): SessionsScreenState {
	const s: SessionsScreenState = {...state, command: null};
	const rows = () => visibleSessions(sessions, s.query, s.sort);
	const move = (delta: number) => {
		const last = Math.max(0, rows().length - 1);
		return {...s, selected: Math.min(last, Math.max(0, Math.min(s.selected, last) + delta))};
	};
	if (s.filtering) {
		if (key.return || key.escape) return {...s, filtering: false};
		if (key.backspace || key.delete) return {...s, query: s.query.slice(0, -1), selected: 0};
		if (key.upArrow) return move(-1);
		if (key.downArrow) return move(1);
		if (input && !key.ctrl && !key.meta && input >= ' ') return {...s, query: s.query + input, selected: 0};
		return s;
	}
	if (key.escape || input === 'b') return s.query ? {...s, query: '', selected: 0} : {...s, command: 'back'};
	if (input === 'q') return {...s, command: 'quit'};
	if (input === '/') return {...s, filtering: true, note: null};
	if (input === 's') return {...s, sort: nextSort(s.sort), note: null};
	if (key.upArrow || input === 'k') return move(-1);
	if (key.downArrow || input === 'j') return move(1);
	if (key.pageUp) return move(-page);
	if (key.pageDown) return move(page);
	const summary = rows()[Math.min(s.selected, Math.max(0, rows().length - 1))];
	if (key.return && summary) return {...s, command: 'open'};
	if (input === 'r' && summary) {
		return resumable(summary) ? {...s, command: 'resume'} : {...s, note: `${summary.id} is ${summary.status}: only running or awaiting_assistant sessions resume. Enter replays it.`};
	}
	return s;
}
