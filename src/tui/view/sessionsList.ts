import type {SessionSummary} from '../../store/sessionStore.js';
import {fuzzyFilter} from '../text/fuzzy.js';

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

/** Sessions matching the typed filter (fuzzy over id, persona, template, status...), in the chosen order. */
export function visibleSessions(sessions: readonly SessionSummary[], query: string, sort: SessionSort): SessionSummary[] {
	const matched = fuzzyFilter(sessions, query, (s) => `${s.id} ${s.personaId} ${s.identity} ${s.region} ${s.templateId} ${s.status} ${s.errorFlag ?? ''} ${s.tier} ${s.language}`);
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
		s.errorFlag ?? s.status,
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
