import {METRICS, type Metric} from '../domain/session.js';
import type {SessionSummary} from '../domain/sessionSummary.js';
import {type BootstrapOptions, DEFAULT_RESAMPLES, DEFAULT_SEED, type Estimate, INTERVALS, type Observation, SMALL_SLICE, clusterMean, clusterShare, holm, isSmall} from './bootstrap.js';
import {CELL_KEYS, type CellKey, type CellValues, KEY_NAMES, type Selection, compareLabels, dialogueOf, groupBy, isScored} from './cells.js';
import {type RangeTest, SLICES, type SeedSlice, type Slice, isCellKey, sliceDisplay, sliceTest, sliceValue} from './slices.js';
import {type SetupGroup, judgeLabel, setupDifferences} from './setups.js';

export {judgeLabel, SLICES, type Slice, sliceValue};

/*
 * The main benchmark table, from the cells layer: one row per cell and combination of the seed slices
 * asked for (region, identity, tier, ...), each with seed-cluster intervals; a cell's own total when
 * it is sliced; one overall row only when the selection is one cell. Deviations from the parent and the
 * range of the last slice come with permutation p-values (Holm-adjusted over the table's rows).
 */

export type ReportRow = {
	/** The row's key: the cell keys shown as columns, then the seed slices. */
	readonly slice: Readonly<Partial<Record<Slice, string>>>;
	/** How a slice value reads (an identity id with its label and region), where it differs from the value. */
	readonly labels: Readonly<Partial<Record<Slice, string>>>;
	/** Completed and fully judged episodes: the only ones scored. */
	readonly n: number;
	/** Distinct seeds among them: the independent units the intervals rest on. */
	readonly seeds: number;
	/** Fewer than SMALL_SLICE seeds (the one small-sample rule). */
	readonly small: boolean;
	/** Episodes that ended in an error flag: counted, never scored. */
	readonly errors: number;
	readonly unfinished: number;
	readonly threeH: Estimate | null;
	readonly tdq: Estimate | null;
	/** Share of clean episodes (no oracle tripwire or taboo violated), with a Wilson interval. */
	readonly clean: Estimate | null;
	readonly metrics: Readonly<Record<Metric, Estimate | null>>;
	/**
	 * This row's mean minus its parent's (its cell's total, or the row without its last slice), with a
	 * permutation p-value and the same Holm-adjusted over every deviation in the table.
	 */
	readonly deviation: {readonly threeH: number | null; readonly tdq: number | null; readonly p: number | null; readonly pHolm: number | null} | null;
};

/** Spread of one slice's rows within a parent: the paper's per-slice range (max − min) of 3H and TDQ. */
export type Disparity = {
	readonly parent: Readonly<Partial<Record<Slice, string>>>;
	readonly slice: SeedSlice;
	readonly rows: number;
	/** Range with its bootstrap interval, permutation p-value and Holm-adjusted p over the table's ranges. */
	readonly threeH: (RangeTest & {readonly pHolm: number | null}) | null;
	readonly tdq: (RangeTest & {readonly pHolm: number | null}) | null;
};

export type Report = {
	/** The slices asked for. */
	readonly by: readonly Slice[];
	/** The columns the rows carry: the cell keys that vary (or were asked for), then the seed slices. */
	readonly columns: readonly Slice[];
	/** The cell keys among the columns. */
	readonly cellColumns: readonly CellKey[];
	/** Cell keys pooled on request, and what each pooled label holds. */
	readonly pooled: Readonly<Partial<Record<CellKey, readonly string[]>>>;
	/** The whole selection, only when it is one cell (a figure over several cells would pool them). */
	readonly overall: ReportRow | null;
	/** Each cell's own total, when the rows slice it further. */
	readonly cells: readonly ReportRow[];
	readonly rows: readonly ReportRow[];
	readonly disparities: readonly Disparity[];
	readonly setups: readonly SetupGroup[];
	readonly notes: readonly string[];
	/** The one mock notice for the counted sessions, or null. */
	readonly mockNotice: string | null;
	/** No counted session is free of the offline mock provider. */
	readonly mock: boolean;
	/** Scored, errored and unfinished episodes; dialogues (a re-judged copy adds a judgement, not a dialogue). */
	readonly totals: {readonly n: number; readonly dialogues: number; readonly errors: number; readonly unfinished: number};
	/** How many rows are marked small, and the rule. */
	readonly small: {readonly rows: number; readonly below: number; readonly unit: 'seeds'};
	/** How many comparisons each p-value family holds (for the Holm adjustment). */
	readonly comparisons: {readonly deviations: number; readonly ranges: number};
	readonly interval: string;
	readonly resamples: number;
	readonly seed: string;
	readonly confidence: number;
};

export type ReportOptions = BootstrapOptions;

/** One observation per scored session for an interval: clustered by seed, keyed by session id. */
export const observe = (sessions: readonly SessionSummary[], value: (s: SessionSummary) => number | null | undefined): Observation[] =>
	sessions.flatMap((s) => {
		const v = value(s);
		return typeof v === 'number' ? [{cluster: s.seedId, key: s.id, value: v}] : [];
	});

/** The figures of a group of sessions: the same function for every row, cell total and overall row. */
export function rowOf(slice: ReportRow['slice'], labels: ReportRow['labels'], sessions: readonly SessionSummary[], options: BootstrapOptions): ReportRow {
	const scored = sessions.filter(isScored);
	const estimate = (values: Observation[], what: string) => clusterMean(values, options, `mean:${what}`);
	const metrics = Object.fromEntries(METRICS.map((metric) => [metric, estimate(observe(scored, (s) => s.scores?.[metric]), metric)])) as Record<Metric, Estimate | null>;
	const seeds = new Set(scored.map((s) => s.seedId)).size;
	return {
		slice,
		labels,
		n: scored.length,
		seeds,
		small: isSmall(seeds),
		errors: sessions.filter((s) => s.status === 'error').length,
		unfinished: sessions.filter((s) => s.status === 'running' || s.status === 'awaiting_assistant').length,
		threeH: estimate(observe(scored, (s) => s.threeH), '3h'),
		tdq: estimate(observe(scored, (s) => s.tdq), 'tdq'),
		clean: clusterShare(observe(scored, (s) => (s.clean === null ? null : s.clean ? 1 : 0)), options),
		metrics,
		deviation: null,
	};
}

/** The columns of a view: the cell keys that vary or were asked for (in `by` order first), then the seed slices. */
export function columnsFor(selection: Selection, by: readonly Slice[]): {columns: Slice[]; cellColumns: CellKey[]; seedSlices: SeedSlice[]} {
	const asked = by.filter(isCellKey);
	const cellColumns: CellKey[] = [...(selection.varying.includes('setup') || asked.includes('setup') ? (['setup'] as const) : []), ...asked.filter((key) => key !== 'setup'), ...selection.varying.filter((key) => key !== 'setup' && !asked.includes(key))];
	const seedSlices = by.filter((slice): slice is SeedSlice => !isCellKey(slice));
	return {columns: [...cellColumns, ...seedSlices], cellColumns, seedSlices};
}

/**
 * The report of a selection sliced by `by`. Cells are never pooled into one row: the cell keys that
 * vary become columns, and the overall row exists only for a single cell.
 */
export function buildReport(selection: Selection, by: readonly Slice[], options: ReportOptions = {}): Report {
	const {columns, cellColumns, seedSlices} = columnsFor(selection, by);
	const notes = [...selection.notes];
	const sessions = selection.sessions;
	const keyOf = (s: SessionSummary) => {
		const cell = selection.keyOf(s);
		return Object.fromEntries(columns.map((column) => [column, isCellKey(column) ? cell[column] : sliceValue[column](s)])) as Record<string, string>;
	};
	const labelsOf = (slice: Record<string, string>) => Object.fromEntries(seedSlices.flatMap((column) => {
		const shown = sliceDisplay(column, slice[column]!, sessions);
		return shown === slice[column] ? [] : [[column, shown]];
	}));
	const groups = groupBy(sessions, keyOf, columns);
	const rows = groups.map((group) => rowOf(group.key, labelsOf(group.key), group.items, options));
	const cellGroups = groupBy(sessions, (s) => Object.fromEntries(cellColumns.map((column) => [column, selection.keyOf(s)[column]])) as Record<string, string>, cellColumns);
	const single = cellGroups.length <= 1;
	const overall = single ? rowOf({}, {}, sessions, options) : null;
	const cells = seedSlices.length > 0 && !single ? cellGroups.map((group) => rowOf(group.key, {}, group.items, options)) : [];
	if (selection.registry.groups.length > 1 && selection.varying.includes('setup')) {
		const differences = setupDifferences(selection.registry.groups).map((d) => `${d.field} (${d.values.join(' / ')})`);
		notes.push(`These sessions ran under ${selection.registry.groups.length} setups that differ in ${differences.join(', ')}: each has its own rows (SETUP column; \`report setups\` lists them) and no figure pools them (--pool setup would).`);
	}
	const shownKeys = cellColumns.filter((key) => !by.includes(key));
	if (shownKeys.length > 0) notes.push(`Kept apart (never averaged): ${shownKeys.map((key) => KEY_NAMES[key]).join(', ')}, each a column${single ? '' : '; there is no overall row over several cells'} (--pool ${shownKeys.join(',')} would average them, labelled so).`);
	const judged = judgeSets(sessions, selection);
	if (judged) notes.push(judged);
	const {rows: tested, disparities, comparisons} = slicesTested(rows, groups.map((g) => g.items), columns, seedSlices, options);
	const small = [...tested, ...cells, ...(overall ? [overall] : [])].filter((r) => r.small).length;
	if (small > 0) notes.push(`${small} row(s) rest on fewer than ${SMALL_SLICE} seeds (marked *): their intervals are unreliable.`);
	const dialogues = new Set(sessions.filter(isScored).map(dialogueOf)).size;
	const pooled = Object.fromEntries(selection.pool.map((key) => [key, selection.values[key]]));
	return {
		by,
		columns,
		cellColumns,
		pooled,
		overall,
		cells,
		rows: columns.length > 0 ? tested : [],
		disparities,
		setups: selection.registry.groups,
		notes,
		mockNotice: selection.mockNotice,
		mock: selection.mock,
		totals: {n: rows.reduce((sum, r) => sum + r.n, 0), dialogues, errors: rows.reduce((sum, r) => sum + r.errors, 0), unfinished: rows.reduce((sum, r) => sum + r.unfinished, 0)},
		small: {rows: small, below: SMALL_SLICE, unit: 'seeds'},
		comparisons,
		interval: INTERVALS,
		resamples: options.resamples ?? DEFAULT_RESAMPLES,
		seed: options.seed ?? DEFAULT_SEED,
		confidence: options.confidence ?? 0.95,
	};
}

/** When judges are compared, whether they judged the same dialogues (a fair comparison) or not. */
function judgeSets(sessions: readonly SessionSummary[], selection: Selection): string | null {
	if (!selection.varying.includes('judge')) return null;
	const byJudge = new Map<string, Set<string>>();
	for (const s of sessions.filter(isScored)) {
		const judge = selection.keyOf(s).judge;
		const set = byJudge.get(judge) ?? new Set<string>();
		set.add(dialogueOf(s));
		byJudge.set(judge, set);
	}
	const all = new Set([...byJudge.values()].flatMap((set) => [...set]));
	const partial = [...byJudge.entries()].filter(([, set]) => set.size < all.size);
	if (partial.length === 0) return `The ${byJudge.size} judges scored the same ${all.size} dialogue(s).`;
	return `The judges scored different dialogue sets (${[...byJudge.entries()].map(([judge, set]) => `${judge}: ${set.size}`).join(', ')} of ${all.size} dialogues): their rows do not compare like for like; \`report paired --by judge\` compares them on the dialogues both scored.`;
}

/** Deviations from each row's parent and the range of the last slice within each parent, tested. */
function slicesTested(rows: readonly ReportRow[], members: readonly (readonly SessionSummary[])[], columns: readonly Slice[], seedSlices: readonly SeedSlice[], options: BootstrapOptions): {rows: ReportRow[]; disparities: Disparity[]; comparisons: {deviations: number; ranges: number}} {
	if (seedSlices.length === 0) return {rows: [...rows], disparities: [], comparisons: {deviations: 0, ranges: 0}};
	const last = seedSlices.at(-1)!;
	const parentColumns = columns.slice(0, -1);
	const parents = new Map<string, {slice: ReportRow['slice']; indices: number[]}>();
	rows.forEach((r, index) => {
		const slice = Object.fromEntries(parentColumns.map((key) => [key, r.slice[key]!])) as ReportRow['slice'];
		const key = JSON.stringify(slice);
		const entry = parents.get(key) ?? {slice, indices: []};
		entry.indices.push(index);
		parents.set(key, entry);
	});
	const scoredOf = (index: number) => members[index]!.filter(isScored);
	const deviations: Array<{threeH: number | null; tdq: number | null; p: number | null} | null> = rows.map(() => null);
	const disparities: Array<Omit<Disparity, 'threeH' | 'tdq'> & {threeH: RangeTest | null; tdq: RangeTest | null}> = [];
	for (const entry of parents.values()) {
		if (entry.indices.length < 2) continue;
		const stat = (what: string) => `${what}|${JSON.stringify(entry.slice)}|${last}`;
		const test = (value: (s: SessionSummary) => number | null, what: string) =>
			sliceTest(entry.indices.map((index) => ({label: rows[index]!.slice[last]!, observations: observe(scoredOf(index), value)})), options, stat(what));
		const three = test((s) => s.threeH, '3h');
		const tdq = test((s) => s.tdq, 'tdq');
		for (const index of entry.indices) {
			const label = rows[index]!.slice[last]!;
			const d3 = three.deviations.find((d) => d.label === label);
			const dt = tdq.deviations.find((d) => d.label === label);
			if (d3 || dt) deviations[index] = {threeH: d3?.deviation ?? null, tdq: dt?.deviation ?? null, p: d3?.p ?? null};
		}
		disparities.push({parent: entry.slice, slice: last, rows: entry.indices.length, threeH: three.range, tdq: tdq.range});
	}
	const adjusted = holm(deviations.map((d) => d?.p ?? null));
	const rangeHolm3 = holm(disparities.map((d) => d.threeH?.p ?? null));
	const rangeHolmT = holm(disparities.map((d) => d.tdq?.p ?? null));
	return {
		rows: rows.map((r, index) => (deviations[index] ? {...r, deviation: {...deviations[index]!, pHolm: adjusted[index] ?? null}} : r)),
		disparities: disparities.map((d, index) => ({...d, threeH: d.threeH ? {...d.threeH, pHolm: rangeHolm3[index] ?? null} : null, tdq: d.tdq ? {...d.tdq, pHolm: rangeHolmT[index] ?? null} : null})),
		comparisons: {deviations: adjusted.filter((p) => p !== null).length, ranges: rangeHolm3.filter((p) => p !== null).length},
	};
}

export {CELL_KEYS, compareLabels, type CellValues};
