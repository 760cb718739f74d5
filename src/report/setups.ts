import type {ModelRole} from '../domain/session.js';
import type {SessionSummary} from '../domain/sessionSummary.js';
import type {RoleIdentity, SessionSetup} from '../domain/setup.js';
import {shortHash} from '../util/hash.js';

/*
 * Setups kept apart, and their labels. Two sessions' scores compare only when they ran under the same
 * setup identity (domain/setup.ts). A report cell is keyed by the setup, the language, the interaction
 * mode, the assistant and the judge (report/cells.ts); the setup part of that key is the identity minus
 * what the other keys already say (`cellSetup`), so S1, S2, ... name only what the columns do not.
 * Labels come from one registry over the chosen sessions (`setupRegistry`), the same in every command
 * and page for the same selection.
 */

/** "judge-1", "judge-1 (combined)", "judge-1 (repeat 2)": a judge as a report compares it. */
export const judgeLabel = (s: Pick<SessionSummary, 'judgeModel' | 'judgeMode' | 'rejudgeRepeat'>) => {
	const notes = [s.judgeMode === 'combined' ? 'combined' : '', s.rejudgeRepeat ? `repeat ${s.rejudgeRepeat}` : ''].filter(Boolean);
	return notes.length > 0 ? `${s.judgeModel} (${notes.join(', ')})` : s.judgeModel;
};

/** The setup part of a cell key: the identity minus language, mode, who the assistant and the judge were. */
export type CellSetup = Omit<SessionSetup, 'language' | 'mode' | 'assistant' | 'judgeMode' | 'roles' | 'mockRoles'> & {
	readonly roles: Readonly<Record<string, Partial<RoleIdentity>>>;
	/** Roles other than the assistant and the judge that ran on the offline mock. */
	readonly mockRoles: readonly ModelRole[];
};

/** Who the assistant and the judge were is a cell key of its own (model and endpoint): the rest of their settings stays in the setup. */
export function cellSetup(setup: SessionSetup): CellSetup {
	const roles: Record<string, Partial<RoleIdentity>> = {};
	for (const [role, identity] of Object.entries(setup.roles)) {
		if (role === 'assistant' || role === 'judge') {
			const {model: _model, endpoint: _endpoint, ...rest} = identity;
			roles[role] = rest;
		} else roles[role] = identity;
	}
	const {language: _language, mode: _mode, assistant: _assistant, judgeMode: _judgeMode, roles: _roles, mockRoles, ...rest} = setup;
	return {...rest, roles, mockRoles: mockRoles.filter((role) => role !== 'assistant' && role !== 'judge')};
}

export const cellSetupKey = (setup: SessionSetup) => shortHash(JSON.stringify(cellSetup(setup)));

/** One setup among the sessions of a selection: a short label (S1, S2, ...) and what it is. */
export type SetupGroup = {
	readonly key: string;
	readonly label: string;
	readonly sessions: number;
	readonly setup: CellSetup;
	/** Mock roles among the group's sessions, and whether every role that ran was the mock. */
	readonly mock: MockKind;
};

/** The labels of every setup among the chosen sessions, and the label of each session. */
export type SetupRegistry = {
	readonly groups: readonly SetupGroup[];
	readonly labelOf: (session: SessionSummary) => string;
};

/**
 * The one registry of setup labels: over the chosen sessions (after the filters and --batch, before a
 * view leaves any out), largest setup first, then by key. Every command and page builds it from the
 * same selection, so S2 is the same setup everywhere.
 */
export function setupRegistry(chosen: readonly SessionSummary[]): SetupRegistry {
	const groups = new Map<string, {setup: CellSetup; sessions: SessionSummary[]}>();
	const keys = new Map<string, string>();
	for (const session of chosen) {
		const key = cellSetupKey(session.setup);
		keys.set(session.id, key);
		const group = groups.get(key);
		if (group) group.sessions.push(session);
		else groups.set(key, {setup: cellSetup(session.setup), sessions: [session]});
	}
	const ordered = [...groups.entries()]
		.sort(([ka, a], [kb, b]) => b.sessions.length - a.sessions.length || (ka < kb ? -1 : 1))
		.map(([key, group], index): SetupGroup => ({key, label: `S${index + 1}`, sessions: group.sessions.length, setup: group.setup, mock: mockOfGroup(group.sessions)}));
	const labels = new Map(ordered.map((group) => [group.key, group.label]));
	return {
		groups: ordered,
		labelOf: (session) => labels.get(keys.get(session.id) ?? cellSetupKey(session.setup)) ?? `S?${cellSetupKey(session.setup)}`,
	};
}

/** The setup fields on which these setups differ, each with its distinct values: what a note names. */
export function setupDifferences(groups: readonly SetupGroup[]): Array<{field: string; values: string[]}> {
	const flat = groups.map((group) => flatten(group.setup));
	const fields = [...new Set(flat.flatMap((entry) => Object.keys(entry)))].sort();
	return fields
		.map((field) => ({field, values: [...new Set(flat.map((entry) => entry[field] ?? '–'))].sort((a, b) => a.localeCompare(b, 'en', {numeric: true}))}))
		.filter((entry) => entry.values.length > 1);
}

/** A setup as `field: value` pairs (roles.judge.temperature, maxTurns, ...). */
export function flatten(setup: object, prefix = ''): Record<string, string> {
	const out: Record<string, string> = {};
	for (const [field, value] of Object.entries(setup)) {
		const name = prefix ? `${prefix}.${field}` : field;
		if (value && typeof value === 'object' && !Array.isArray(value) && prefix.split('.').length < 2 && field !== 'extraBody') Object.assign(out, flatten(value, name));
		else out[name] = Array.isArray(value) ? value.join('+') || '–' : value === null || value === undefined ? '–' : typeof value === 'object' ? JSON.stringify(value) : String(value);
	}
	return out;
}

/** "maxTurns 8, roles.simulator.temperature 0.2" style description of a setup, for notes and legends. */
export function describeSetup(setup: object): string {
	return Object.entries(flatten(setup))
		.map(([field, value]) => `${field} ${value}`)
		.join(', ');
}

/** How much of a session ran on the offline mock: none, some roles (partly), or every role that ran. */
export type MockKind = {readonly kind: 'none' | 'partly' | 'all'; readonly roles: readonly ModelRole[]};

/** The roles that made calls in a session: a human, gold or replayed assistant made no assistant call. */
const rolesThatRan = (setup: Pick<SessionSetup, 'assistant'>): ModelRole[] => ['generator', 'validator', 'simulator', ...(setup.assistant === 'llm' ? (['assistant'] as const) : []), 'judge'];

/** The one reading of which roles of a session ran on the mock (the TUI, the viewer and reports use it). */
export function mockKind(session: Pick<SessionSummary, 'setup' | 'mock'>): MockKind {
	const ran = rolesThatRan(session.setup);
	const roles = session.setup.mockRoles.filter((role) => ran.includes(role));
	if (roles.length === 0) return {kind: session.mock ? 'all' : 'none', roles: session.mock ? ran : []};
	return {kind: roles.length === ran.length ? 'all' : 'partly', roles};
}

function mockOfGroup(sessions: readonly SessionSummary[]): MockKind {
	const kinds = sessions.map(mockKind);
	const roles = [...new Set(kinds.flatMap((k) => k.roles))].sort() as ModelRole[];
	if (kinds.every((k) => k.kind === 'none')) return {kind: 'none', roles: []};
	return {kind: kinds.every((k) => k.kind === 'all') ? 'all' : 'partly', roles};
}

/**
 * The one mock notice, worded from what actually ran in these sessions (every page, banner and
 * report note uses it): null when no role of any of them ran on the mock.
 */
export function mockNotice(sessions: ReadonlyArray<Pick<SessionSummary, 'setup' | 'mock'>>): string | null {
	const kinds = sessions.map(mockKind);
	const touched = kinds.filter((k) => k.kind !== 'none').length;
	return mockWording({records: sessions.length, touched, all: touched > 0 && kinds.every((k) => k.kind === 'all'), roles: [...new Set(kinds.flatMap((k) => k.roles))], what: 'session'});
}

/**
 * The wording of the mock notice from counts: how many records there are, how many had a role on the
 * mock, whether every role of every record did, and which roles (CRISP evaluations use it with their
 * policy and grader roles).
 */
export function mockWording(input: {records: number; touched: number; all: boolean; roles: readonly string[]; what: string}): string | null {
	if (input.touched === 0) return null;
	const roles = [...input.roles].sort().join(', ');
	const plural = `${input.what}s`;
	// The offline judge is a rubric (mock:rubric): said wherever its scores are in the figures.
	const rubric = input.roles.includes('judge') ? ' The scores come from the offline rubric (mock:rubric), not a model judge.' : '';
	if (input.all) return `Every role of ${input.records === 1 ? `this ${input.what}` : `all ${input.records} ${plural}`} ran on the offline mock provider (${roles}): the figures are deterministic filler, not measurements.${rubric}`;
	const share = input.touched === input.records ? (input.records === 1 ? `This ${input.what}` : `All ${input.records} ${plural}`) : `${input.touched} of ${input.records} ${plural}`;
	return `${share} ran some roles on the offline mock provider (${roles}): figures that involve those roles are filler, not measurements.${rubric}`;
}
