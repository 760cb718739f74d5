import type {ModelRole} from '../domain/session.js';
import type {SessionSetup, SessionSummary} from '../domain/sessionSummary.js';
import {shortHash} from '../util/hash.js';

/*
 * Setups kept apart. Two sessions' scores compare only when they ran under the same setup (models and
 * endpoints per role, judge mode, max turns, best-of, prompts, mock roles, ...). A report slices by
 * some of those on purpose (`--by model` compares assistants, `--by judge` compares judges); every
 * other setup field must be equal within a row, or the row would pool things that do not compare.
 */

/** "judge-1", "judge-1 (combined)", "judge-1 (repeat 2)": a judge as a report compares it. */
export const judgeLabel = (s: Pick<SessionSummary, 'judgeModel' | 'judgeMode' | 'rejudgeRepeat'>) => {
	const notes = [s.judgeMode === 'combined' ? 'combined' : '', s.rejudgeRepeat ? `repeat ${s.rejudgeRepeat}` : ''].filter(Boolean);
	return notes.length > 0 ? `${s.judgeModel} (${notes.join(', ')})` : s.judgeModel;
};

/** Which setup fields a report compares on purpose (they become columns, so they are not pooled). */
export type Compared = {readonly assistant?: boolean; readonly judge?: boolean};

/** The part of a setup that must match for sessions to share a row, given what is compared. */
export function residualSetup(setup: SessionSetup, compared: Compared = {}): Partial<SessionSetup> {
	const models = {...setup.models};
	const endpoints = {...setup.endpoints};
	const residual: Partial<SessionSetup> = {...setup, models, endpoints};
	if (compared.assistant) {
		delete models['assistant'];
		delete endpoints['assistant'];
		delete residual.assistant;
	}
	if (compared.judge) {
		delete models['judge'];
		delete endpoints['judge'];
		delete residual.judgeMode;
	}
	return residual;
}

export const residualKey = (setup: SessionSetup, compared: Compared = {}) => shortHash(JSON.stringify(residualSetup(setup, compared)));

/** One setup among the sessions of a report: a short label (S1, S2, ...) for tables and what it is. */
export type SetupGroup = {
	readonly key: string;
	readonly label: string;
	readonly sessions: number;
	readonly setup: Partial<SessionSetup>;
	/** Mock roles, and whether every role that ran was the mock. */
	readonly mock: MockKind;
};

/** The setups among these sessions, largest first; labels are stable for the same selection. */
export function setupGroups(sessions: readonly SessionSummary[], compared: Compared = {}): SetupGroup[] {
	const groups = new Map<string, {setup: Partial<SessionSetup>; sessions: SessionSummary[]}>();
	for (const session of sessions) {
		const key = residualKey(session.setup, compared);
		const group = groups.get(key);
		if (group) group.sessions.push(session);
		else groups.set(key, {setup: residualSetup(session.setup, compared), sessions: [session]});
	}
	return [...groups.entries()]
		.sort(([ka, a], [kb, b]) => b.sessions.length - a.sessions.length || (ka < kb ? -1 : 1))
		.map(([key, group], index) => ({key, label: `S${index + 1}`, sessions: group.sessions.length, setup: group.setup, mock: mockKind(group.sessions[0]!)}));
}

/** The setup fields on which these setups differ, each with its distinct values: what a note names. */
export function setupDifferences(groups: readonly SetupGroup[]): Array<{field: string; values: string[]}> {
	const flat = groups.map((group) => flatten(group.setup));
	const fields = [...new Set(flat.flatMap((entry) => Object.keys(entry)))].sort();
	return fields
		.map((field) => ({field, values: [...new Set(flat.map((entry) => entry[field] ?? '–'))].sort((a, b) => a.localeCompare(b, 'en', {numeric: true}))}))
		.filter((entry) => entry.values.length > 1);
}

/** A setup as `field: value` pairs (models.judge, endpoints.simulator, judgeMode, ...). */
export function flatten(setup: Partial<SessionSetup>): Record<string, string> {
	const out: Record<string, string> = {};
	for (const [field, value] of Object.entries(setup)) {
		if (value && typeof value === 'object' && !Array.isArray(value)) for (const [role, inner] of Object.entries(value)) out[`${field}.${role}`] = inner === null ? '(default)' : String(inner);
		else out[field] = Array.isArray(value) ? value.join('+') || '–' : value === null ? '–' : String(value);
	}
	return out;
}

/** How much of a session ran on the offline mock: none, some roles (partly), or every role that ran. */
export type MockKind = {readonly kind: 'none' | 'partly' | 'all'; readonly roles: readonly ModelRole[]};

export function mockKind(session: Pick<SessionSummary, 'setup' | 'mock'>): MockKind {
	// A human, gold or replayed assistant made no assistant call, so its provider says nothing.
	const ran: ModelRole[] = ['generator', 'validator', 'simulator', ...(session.setup.assistant === 'llm' ? (['assistant'] as const) : []), 'judge'];
	const roles = session.setup.mockRoles.filter((role) => ran.includes(role));
	if (roles.length === 0) return {kind: session.mock ? 'all' : 'none', roles: session.mock ? ran : []};
	return {kind: roles.length === ran.length ? 'all' : 'partly', roles};
}

/** "S2: judge mode combined, max turns 8" style description of a setup, for notes and legends. */
export function describeSetup(setup: Partial<SessionSetup>): string {
	return Object.entries(flatten(setup))
		.map(([field, value]) => `${field} ${value}`)
		.join(', ');
}
