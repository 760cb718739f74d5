import type {SessionSummary} from '../domain/sessionSummary.js';
import {type MockKind, type SetupRegistry, judgeLabel, mockKind, mockNotice, setupRegistry} from './setups.js';

/*
 * The selection-to-cells layer every report view consumes (the main table and every sub-report, the
 * HTML charts and heatmaps, CSV and JSON, the paper's tables). A cell is keyed by the setup, the
 * language, the interaction mode, the assistant and the judge; a view slices within cells and never
 * averages over one of these keys unless the user pools it (`--pool language`), and then the cell's
 * label for that key names what was pooled ("english+native"). Re-judged copies are their own judge
 * cells, never extra dialogues of a cell.
 */

export const CELL_KEYS = ['setup', 'model', 'language', 'mode', 'judge'] as const;
export type CellKey = (typeof CELL_KEYS)[number];
export type CellValues = Readonly<Record<CellKey, string>>;

/** A session is scored when it completed and its judge gave 3H and TDQ: the only episodes a figure counts. */
export const isScored = (s: SessionSummary) => s.status === 'completed' && s.threeH !== null && s.tdq !== null;

/** The dialogue a session holds: a re-judged copy's is its original's. */
export const dialogueOf = (s: Pick<SessionSummary, 'id' | 'rejudgeOf'>) => s.rejudgeOf ?? s.id;

export type SelectionOptions = {
	/** Keep sessions that ran entirely on the offline mock when model sessions are present. */
	readonly includeMock?: boolean;
	/** Cell keys the user pooled (`--pool`). */
	readonly pool?: readonly CellKey[];
	/** Keep re-judged copies, as their own judge cells (views that compare judges). */
	readonly judges?: boolean;
	/** Only the sessions of these cell values (`--setup S2 --lang native`); labels stay those of the whole selection. */
	readonly only?: Readonly<Partial<Record<CellKey, string>>>;
};

export type Selection = {
	/** Every chosen session (the filters and --batch), before any is left out. */
	readonly chosen: readonly SessionSummary[];
	/** The sessions the view counts. */
	readonly sessions: readonly SessionSummary[];
	readonly registry: SetupRegistry;
	readonly pool: readonly CellKey[];
	/** What was left out and why, what was pooled, what differs: for every view to print. */
	readonly notes: readonly string[];
	/** The mock notice for the counted sessions (null: no mock anywhere). */
	readonly mockNotice: string | null;
	/** No counted session is free of the offline mock. */
	readonly mock: boolean;
	/** Cell keys with more than one value among the counted sessions, not pooled: every view shows them. */
	readonly varying: readonly CellKey[];
	/** Each key's distinct values among the counted sessions (before pooling). */
	readonly values: Readonly<Record<CellKey, readonly string[]>>;
	/** A session's cell, pooled keys replaced by their pooled label. */
	readonly keyOf: (s: SessionSummary) => CellValues;
};

/** "english+native": the label of a pooled key. */
export const pooledLabel = (values: readonly string[]) => (values.length === 1 ? values[0]! : values.join('+'));

/**
 * The sessions a view counts, their cells, and why others were left out. Sessions that ran entirely on
 * the offline mock never mix with model sessions (they are filler, not measurements); a session that
 * ran only some roles on the mock is its own setup. A re-judged copy repeats its original's dialogue:
 * it counts only in views that compare judges, as its own judge cell.
 */
export function selectCells(chosen: readonly SessionSummary[], options: SelectionOptions = {}): Selection {
	const registry = setupRegistry(chosen);
	const notes: string[] = [];
	const kinds = new Map(chosen.map((s) => [s.id, mockKind(s)] as [string, MockKind]));
	const allMock = chosen.filter((s) => kinds.get(s.id)!.kind === 'all');
	let sessions: SessionSummary[] = [...chosen];
	if (allMock.length > 0 && allMock.length < chosen.length && !options.includeMock) {
		sessions = chosen.filter((s) => kinds.get(s.id)!.kind !== 'all');
		notes.push(`${allMock.length} session(s) that ran entirely on the offline mock provider left out (filler, not measurements; --include-mock keeps them).`);
	}
	const copies = sessions.filter((s) => s.rejudgeOf !== null).length;
	if (copies > 0 && !options.judges) {
		sessions = sessions.filter((s) => s.rejudgeOf === null);
		notes.push(`${copies} re-judged cop${copies === 1 ? 'y' : 'ies'} left out (the same dialogues judged again; --by judge or report paired --by judge compares the judges, each as its own judge cell).`);
	}
	const pool = CELL_KEYS.filter((key) => options.pool?.includes(key));
	let rawKey = cellKeyFunction(sessions, registry);
	const only = Object.entries(options.only ?? {}).filter((entry): entry is [CellKey, string] => typeof entry[1] === 'string');
	if (only.length > 0) {
		const before = sessions.length;
		sessions = sessions.filter((s) => only.every(([key, value]) => rawKey(s)[key] === value || (key === 'judge' && s.judgeModel === value)));
		if (sessions.length === 0) notes.push(`No counted session has ${only.map(([key, value]) => `${key} ${value}`).join(' and ')}.`);
		else if (sessions.length < before) notes.push(`Only ${only.map(([key, value]) => `${key} ${value}`).join(', ')}: ${sessions.length} of ${before} session(s).`);
		rawKey = cellKeyFunction(sessions, registry);
	}
	const values = Object.fromEntries(CELL_KEYS.map((key) => [key, [...new Set(sessions.map((s) => rawKey(s)[key]))].sort(compareLabels)])) as Record<CellKey, string[]>;
	const pooledValue = Object.fromEntries(pool.map((key) => [key, pooledLabel(values[key])]));
	const keyOf = (s: SessionSummary): CellValues => ({...rawKey(s), ...pooledValue});
	const varying = CELL_KEYS.filter((key) => !pool.includes(key) && values[key].length > 1);
	for (const key of pool) if (values[key].length > 1) notes.push(`Pooled over ${KEY_NAMES[key]} as asked (--pool ${key}): ${values[key].join(', ')} are averaged in one figure, labelled ${pooledValue[key]}.`);
	const mock = sessions.length > 0 && sessions.every((s) => kinds.get(s.id)!.kind !== 'none');
	return {chosen, sessions, registry, pool, notes, mockNotice: mockNotice(sessions), mock, varying, values, keyOf};
}

export const KEY_NAMES: Record<CellKey, string> = {setup: 'setups', model: 'assistant models', language: 'languages', mode: 'interaction modes', judge: 'judges'};

/** S2 before S10; otherwise plain text order. */
export const compareLabels = (a: string, b: string) => a.localeCompare(b, 'en', {numeric: true});

/**
 * A session's raw cell: its setup label, assistant, language, mode and judge. The assistant and the
 * judge are named by model; when one model name ran behind two endpoints here, the endpoint is added.
 */
function cellKeyFunction(sessions: readonly SessionSummary[], registry: SetupRegistry): (s: SessionSummary) => CellValues {
	const endpointsOf = (role: 'assistant' | 'judge', name: (s: SessionSummary) => string) => {
		const seen = new Map<string, Set<string>>();
		for (const s of sessions) {
			const set = seen.get(name(s)) ?? new Set<string>();
			set.add(s.setup.roles[role]?.endpoint ?? '');
			seen.set(name(s), set);
		}
		return (s: SessionSummary) => ((seen.get(name(s))?.size ?? 0) > 1 ? `${name(s)} @${host(s.setup.roles[role]?.endpoint ?? null)}` : name(s));
	};
	const model = endpointsOf('assistant', (s) => s.assistantModel);
	const judge = endpointsOf('judge', (s) => judgeLabel(s));
	const memo = new Map<string, CellValues>();
	return (s) => {
		let key = memo.get(s.id);
		if (!key) memo.set(s.id, (key = {setup: registry.labelOf(s), model: model(s), language: s.language, mode: s.mode, judge: judge(s)}));
		return key;
	};
}

const host = (endpoint: string | null) => {
	if (!endpoint) return 'default';
	try {
		return new URL(endpoint).host;
	} catch {
		return endpoint;
	}
};

/** Sessions grouped by a key function, groups in the order of their keys' labels. */
export function groupBy<T, K extends Record<string, string>>(items: readonly T[], keyOf: (item: T) => K, order: readonly (keyof K)[]): Array<{key: K; items: T[]}> {
	const groups = new Map<string, {key: K; items: T[]}>();
	for (const item of items) {
		const key = keyOf(item);
		const id = JSON.stringify(order.map((name) => key[name]));
		let group = groups.get(id);
		if (!group) groups.set(id, (group = {key, items: []}));
		group.items.push(item);
	}
	return [...groups.values()].sort((a, b) => order.map((name) => compareLabels(String(a.key[name] ?? ''), String(b.key[name] ?? ''))).find((c) => c !== 0) ?? 0);
}

/** The cells of a selection, each with its sessions, in key order. */
export function cellsOf(selection: Selection): Array<{key: CellValues; sessions: SessionSummary[]}> {
	return groupBy(selection.sessions, selection.keyOf, CELL_KEYS).map((group) => ({key: group.key, sessions: group.items}));
}

/** "S1 · gpt-5 · native": a cell named by the keys a view shows. */
export const cellLabel = (key: Partial<CellValues>, keys: readonly CellKey[]) => keys.map((name) => key[name] ?? '').filter(Boolean).join(' · ') || 'all';

/** A note naming the keys that vary in a view that must hold one cell, or null when it holds one. */
export function singleCellProblem(selection: Selection, allowed: readonly CellKey[] = []): string | null {
	const varying = selection.varying.filter((key) => !allowed.includes(key));
	if (varying.length === 0) return null;
	return varying.map((key) => `${KEY_NAMES[key]} (${selection.values[key].join(' / ')})`).join(', ');
}
