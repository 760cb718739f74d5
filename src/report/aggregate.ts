import {METRICS, type Metric} from '../domain/session.js';
import type {SessionSummary} from '../domain/sessionSummary.js';
import {type BootstrapOptions, type Estimate, type Observation, SMALL_SLICE, clusterMean, clusterShare} from './bootstrap.js';
import {type SetupGroup, judgeLabel, mockKind, residualKey, setupDifferences, setupGroups} from './setups.js';

export {judgeLabel};

/** What a report can be sliced by. `setup` is the setup label (S1, S2, ...) of `report setups`. */
export const SLICES = ['model', 'mode', 'language', 'region', 'identity', 'age', 'gender', 'tier', 'split', 'domain', 'template', 'judge', 'setup'] as const;
export type Slice = (typeof SLICES)[number];

/** A session's value for a slice (all but `setup`, whose labels depend on the selection). */
export const sliceValue: Record<Exclude<Slice, 'setup'>, (session: SessionSummary) => string> = {
	model: (s) => s.assistantModel,
	mode: (s) => s.mode,
	language: (s) => s.language,
	region: (s) => s.region,
	identity: (s) => s.identity,
	age: (s) => s.age,
	gender: (s) => s.gender,
	tier: (s) => s.tier,
	split: (s) => s.split,
	domain: (s) => s.templateId.split('.')[0] ?? s.templateId,
	template: (s) => s.templateId,
	judge: judgeLabel,
};

export type ReportRow = {
	readonly slice: Readonly<Partial<Record<Slice, string>>>;
	/** Completed and fully judged episodes: the only ones scored. */
	readonly n: number;
	/** Distinct seeds among them: the independent units the intervals rest on. */
	readonly seeds: number;
	/** Fewer than SMALL_SLICE seeds: the interval is unreliable. */
	readonly small: boolean;
	/** Episodes that ended in an error flag: counted, never scored. */
	readonly errors: number;
	readonly unfinished: number;
	readonly threeH: Estimate | null;
	readonly tdq: Estimate | null;
	/** Share of clean episodes (no oracle tripwire or taboo violated), with a Wilson interval. */
	readonly clean: Estimate | null;
	readonly metrics: Readonly<Record<Metric, Estimate | null>>;
	/** This row's mean minus its parent's (the row without its last slice; the overall row for one slice). */
	readonly deviation: {readonly threeH: number | null; readonly tdq: number | null} | null;
};

/** Spread of one slice's rows within a parent: the paper's per-slice range (max − min) of 3H and TDQ. */
export type Disparity = {
	readonly parent: Readonly<Partial<Record<Slice, string>>>;
	readonly slice: Slice;
	readonly rows: number;
	readonly threeH: {readonly range: number; readonly lowest: string; readonly highest: string} | null;
	readonly tdq: {readonly range: number; readonly lowest: string; readonly highest: string} | null;
};

export type Report = {
	/** The slices asked for. */
	readonly by: readonly Slice[];
	/** The slices the rows carry: `by`, with `setup` in front when setups differ and are not pooled. */
	readonly columns: readonly Slice[];
	/** Null when the sessions ran under setups that may not be pooled (see `setups`). */
	readonly overall: ReportRow | null;
	readonly rows: readonly ReportRow[];
	readonly disparities: readonly Disparity[];
	readonly setups: readonly SetupGroup[];
	/** Setups were pooled on request (--pool-setups). */
	readonly pooledSetups: boolean;
	readonly notes: readonly string[];
	/** No session here is free of the offline mock provider. */
	readonly mock: boolean;
	/** Scored, errored and unfinished episodes over every row. */
	readonly totals: {readonly n: number; readonly errors: number; readonly unfinished: number};
	readonly interval: string;
};

export type ReportOptions = BootstrapOptions & {readonly includeMock?: boolean; readonly poolSetups?: boolean};

export const INTERVALS = 'means: seed-cluster percentile bootstrap (seeds resampled with all their episodes, in canonical order); clean rate: Wilson score interval on the effective sample size';

const scoredOnly = (sessions: readonly SessionSummary[]) => sessions.filter((s) => s.status === 'completed' && s.threeH !== null && s.tdq !== null);

/** One observation per session for an interval: clustered by seed, keyed by session id. */
export const observe = (sessions: readonly SessionSummary[], value: (s: SessionSummary) => number | null | undefined): Observation[] =>
	sessions.flatMap((s) => {
		const v = value(s);
		return typeof v === 'number' ? [{cluster: s.seedId, key: s.id, value: v}] : [];
	});

function row(slice: ReportRow['slice'], sessions: readonly SessionSummary[], options: BootstrapOptions): ReportRow {
	const scored = scoredOnly(sessions);
	const seed = `${options.seed ?? 'cultureconverse'}|${JSON.stringify(slice)}`;
	const estimate = (values: Observation[], what: string) => clusterMean(values, {...options, seed: `${seed}|${what}`});
	const metrics = Object.fromEntries(METRICS.map((metric) => [metric, estimate(observe(scored, (s) => s.scores?.[metric]), metric)])) as Record<Metric, Estimate | null>;
	const seeds = new Set(scored.map((s) => s.seedId)).size;
	return {
		slice,
		n: scored.length,
		seeds,
		small: scored.length > 0 && seeds < SMALL_SLICE,
		errors: sessions.filter((s) => s.status === 'error').length,
		unfinished: sessions.filter((s) => s.status === 'running' || s.status === 'awaiting_assistant').length,
		threeH: estimate(observe(scored, (s) => s.threeH), '3h'),
		tdq: estimate(observe(scored, (s) => s.tdq), 'tdq'),
		clean: clusterShare(observe(scored, (s) => (s.clean === null ? null : s.clean ? 1 : 0)), options),
		metrics,
		deviation: null,
	};
}

/**
 * The sessions a report counts, and why others were left out. Sessions that ran entirely on the
 * offline mock never mix with model sessions (they are filler, not measurements); a session that ran
 * only some roles on the mock is its own setup (the mock roles are part of the setup) and is labelled
 * so. A re-judged copy repeats its original's dialogue, so it counts only when judges are compared.
 */
export function reportable(all: readonly SessionSummary[], options: {includeMock?: boolean; comparingJudges?: boolean} = {}): {sessions: SessionSummary[]; notes: string[]; mock: boolean} {
	const notes: string[] = [];
	const kinds = new Map(all.map((s) => [s.id, mockKind(s)]));
	const allMock = all.filter((s) => kinds.get(s.id)!.kind === 'all');
	const partly = all.filter((s) => kinds.get(s.id)!.kind === 'partly');
	let sessions: SessionSummary[] = [...all];
	if (allMock.length > 0 && allMock.length < all.length && !options.includeMock) {
		sessions = all.filter((s) => kinds.get(s.id)!.kind !== 'all');
		notes.push(`${allMock.length} session(s) that ran entirely on the offline mock provider left out (filler, not measurements; --include-mock keeps them).`);
	} else if (allMock.length === all.length && all.length > 0) {
		notes.push('Every session here ran on the offline mock provider: the numbers below are deterministic filler, not measurements.');
	}
	const partlyKept = partly.filter((s) => sessions.includes(s));
	if (partlyKept.length > 0) {
		const roles = [...new Set(partlyKept.flatMap((s) => kinds.get(s.id)!.roles))].sort();
		notes.push(`${partlyKept.length} session(s) ran partly on the offline mock provider (${roles.join(', ')}): their figures involve filler, and they form setups of their own.`);
	}
	const copies = sessions.filter((s) => s.rejudgeOf !== null).length;
	if (copies > 0 && !options.comparingJudges) {
		sessions = sessions.filter((s) => s.rejudgeOf === null);
		notes.push(`${copies} re-judged cop${copies === 1 ? 'y' : 'ies'} left out (the same dialogues judged again; --by judge compares the judges).`);
	}
	const mock = sessions.length > 0 && sessions.every((s) => kinds.get(s.id)!.kind !== 'none');
	return {sessions, notes, mock};
}

/** Rows grouped by the values of `columns`, sorted by them. */
function grouped(sessions: readonly SessionSummary[], columns: readonly Slice[], value: (slice: Slice, s: SessionSummary) => string): Array<{slice: ReportRow['slice']; sessions: SessionSummary[]}> {
	const groups = new Map<string, {slice: ReportRow['slice']; sessions: SessionSummary[]}>();
	for (const session of sessions) {
		const slice = Object.fromEntries(columns.map((key) => [key, value(key, session)])) as ReportRow['slice'];
		const key = JSON.stringify(slice);
		let group = groups.get(key);
		if (!group) groups.set(key, (group = {slice, sessions: []}));
		group.sessions.push(session);
	}
	return [...groups.values()].sort((a, b) => columns.map((key) => compareLabels(a.slice[key] ?? '', b.slice[key] ?? '')).find((order) => order !== 0) ?? 0);
}

/** S2 before S10; otherwise plain text order. */
const compareLabels = (a: string, b: string) => a.localeCompare(b, 'en', {numeric: true});

/**
 * A benchmark table from session summaries: one overall row and one per combination of the `by`
 * slices, each with intervals. Sessions of different setups are never pooled into one row: when the
 * selection holds several (beyond what `by` compares), each setup gets its own rows (the `setup`
 * column) and there is no overall row, unless `poolSetups` asks for pooling.
 */
export function buildReport(all: readonly SessionSummary[], by: readonly Slice[], options: ReportOptions = {}): Report {
	const {sessions, notes, mock} = reportable(all, {includeMock: options.includeMock, comparingJudges: by.includes('judge')});
	const compared = {assistant: by.includes('model'), judge: by.includes('judge')};
	const setups = setupGroups(sessions, compared);
	const labelOf = new Map(setups.map((group) => [group.key, group.label]));
	const value = (slice: Slice, s: SessionSummary) => (slice === 'setup' ? labelOf.get(residualKey(s.setup, compared))! : sliceValue[slice](s));
	const split = setups.length > 1 && !options.poolSetups && !by.includes('setup');
	if (setups.length > 1) {
		const differences = setupDifferences(setups).map((d) => `${d.field} (${d.values.join(' / ')})`);
		const hints = [differences.some((d) => d.startsWith('models.judge') || d.startsWith('judgeMode')) ? '--by judge compares judges' : '', differences.some((d) => d.startsWith('models.assistant')) ? '--by model compares assistants' : ''].filter(Boolean);
		notes.push(
			`These sessions ran under ${setups.length} setups that differ in ${differences.join(', ')}${
				options.poolSetups ? ': pooled as asked (--pool-setups), so the figures mix setups that may not compare.' : by.includes('setup') ? '.' : `: each setup has its own rows (SETUP column; \`report setups\` lists them) and no figure pools them (--pool-setups would)${hints.length > 0 ? `; ${hints.join(', ')}` : ''}.`
			}`,
		);
	}
	const columns: Slice[] = split ? ['setup', ...by] : [...by];
	const groups = grouped(sessions, columns, value);
	const rowOf = (slice: ReportRow['slice'], members: readonly SessionSummary[]) => row(slice, members, options);
	const rows = groups.map((group) => rowOf(group.slice, group.sessions));
	const overall = split ? null : rowOf({}, sessions);
	const {rows: withDeviation, disparities} = disparity(rows, groups, columns, overall);
	const small = withDeviation.filter((r) => r.small).length;
	if (small > 0) notes.push(`${small} row(s) rest on fewer than ${SMALL_SLICE} seeds (marked *): their intervals are unreliable.`);
	return {
		by,
		columns,
		overall,
		rows: columns.length > 0 ? withDeviation : [],
		disparities,
		setups,
		pooledSetups: Boolean(options.poolSetups) && setups.length > 1,
		notes,
		mock,
		totals: {n: rows.reduce((sum, r) => sum + r.n, 0), errors: rows.reduce((sum, r) => sum + r.errors, 0), unfinished: rows.reduce((sum, r) => sum + r.unfinished, 0)},
		interval: INTERVALS,
	};
}

/** Deviations from each row's parent mean, and the range of the last slice within each parent. */
function disparity(rows: readonly ReportRow[], groups: ReadonlyArray<{slice: ReportRow['slice']; sessions: SessionSummary[]}>, columns: readonly Slice[], overall: ReportRow | null): {rows: ReportRow[]; disparities: Disparity[]} {
	if (columns.length === 0) return {rows: [...rows], disparities: []};
	const last = columns.at(-1)!;
	const parentOf = (slice: ReportRow['slice']) => Object.fromEntries(columns.slice(0, -1).map((key) => [key, slice[key]!])) as ReportRow['slice'];
	const parents = new Map<string, {slice: ReportRow['slice']; sessions: SessionSummary[]; rows: ReportRow[]}>();
	rows.forEach((r, index) => {
		const parent = parentOf(r.slice);
		const key = JSON.stringify(parent);
		let entry = parents.get(key);
		if (!entry) parents.set(key, (entry = {slice: parent, sessions: [], rows: []}));
		entry.sessions.push(...groups[index]!.sessions);
		entry.rows.push(r);
	});
	const meanOf = (sessions: readonly SessionSummary[], pick: (s: SessionSummary) => number | null) => {
		const values = scoredOnly(sessions).map(pick).filter((v): v is number => v !== null);
		return values.length > 0 ? values.reduce((sum, v) => sum + v, 0) / values.length : null;
	};
	const parentMeans = new Map([...parents].map(([key, entry]) => [key, columns.length === 1 && overall ? {threeH: overall.threeH?.mean ?? null, tdq: overall.tdq?.mean ?? null} : {threeH: meanOf(entry.sessions, (s) => s.threeH), tdq: meanOf(entry.sessions, (s) => s.tdq)}]));
	const out = rows.map((r) => {
		const key = JSON.stringify(parentOf(r.slice));
		// A row alone under its parent deviates from nothing.
		if (parents.get(key)!.rows.length < 2) return r;
		const parent = parentMeans.get(key)!;
		return {...r, deviation: {threeH: r.threeH && parent.threeH !== null ? r.threeH.mean - parent.threeH : null, tdq: r.tdq && parent.tdq !== null ? r.tdq.mean - parent.tdq : null}};
	});
	const spread = (members: readonly ReportRow[], pick: (r: ReportRow) => Estimate | null) => {
		const scored = members.filter((r) => pick(r) !== null);
		if (scored.length < 2) return null;
		const sorted = [...scored].sort((a, b) => pick(a)!.mean - pick(b)!.mean);
		return {range: pick(sorted.at(-1)!)!.mean - pick(sorted[0]!)!.mean, lowest: sorted[0]!.slice[last]!, highest: sorted.at(-1)!.slice[last]!};
	};
	const disparities = [...parents.values()]
		.filter((entry) => entry.rows.length >= 2)
		.map((entry): Disparity => ({parent: entry.slice, slice: last, rows: entry.rows.length, threeH: spread(entry.rows, (r) => r.threeH), tdq: spread(entry.rows, (r) => r.tdq)}));
	return {rows: out, disparities};
}
