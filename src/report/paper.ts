import {METRICS, type Metric} from '../domain/session.js';
import {type BootstrapOptions, type Estimate, isSmall} from './bootstrap.js';
import {buildReport, type ReportRow} from './aggregate.js';
import {type CellKey, type Selection, singleCellProblem} from './cells.js';
import {distributionOf, trapGaps, type MetricDistribution} from './distribution.js';
import {sliceDisparities} from './disparities.js';
import {pairedDeltas} from './paired.js';
import type {JudgeHumanReport} from './humanAgreement.js';

/*
 * The CultureConverse paper's tables and figures by number, from the same cells as every other view.
 * Each is a pure function of a selection: rows in the paper's layout with its Average / Combined rows
 * (labelled with what they average), or a refusal naming why this selection cannot fill it.
 */

export const PAPER_TABLES = ['3', '4', '10', '11', '12', '13', '14', '15', '17'] as const;
export const PAPER_FIGURES = ['4', '37', '38', '39', '41'] as const;

/** A selection that cannot fill a table: what varies that the table keeps fixed, and what to do. */
export class PaperRefusal extends Error {}

function require(selection: Selection, what: string, allowed: readonly CellKey[]): void {
	const problem = singleCellProblem(selection, allowed);
	if (problem) throw new PaperRefusal(`${what} cannot be filled from this selection: it has ${allowed.length > 0 ? `one row per ${allowed.join(' and ')}, with everything else fixed` : 'one cell'}, but these sessions differ in ${problem}. Choose one with the filters (--setup, --lang, --mode, --model, --judge, --batch) or pool on purpose with --pool (the paper's Table 4 pools its English and native episodes: --pool language).`);
}

const SHORT: Record<Metric, string> = {helpfulness: 'Help', honesty: 'Hon', harmlessness: 'Harm', naturalness: 'Nat', plausibility: 'Plaus', typicality: 'Typ'};

export type ModelRow = {readonly model: string; readonly n: number; readonly seeds: number; readonly small: boolean; readonly metrics: Readonly<Record<Metric, Estimate | null>>; readonly threeH: Estimate | null; readonly tdq: Estimate | null; readonly clean: Estimate | null};

export type Table4 = {
	readonly table: '4' | '17';
	readonly title: string;
	readonly columns: readonly string[];
	readonly rows: readonly ModelRow[];
	/** The unweighted mean over the models' rows (the paper's Average row); null with one model. */
	readonly average: {readonly label: string; readonly metrics: Readonly<Record<Metric, number | null>>; readonly threeH: number | null; readonly tdq: number | null; readonly clean: number | null} | null;
	readonly notes: readonly string[];
};

const unweighted = (values: readonly (number | null | undefined)[]) => {
	const present = values.filter((v): v is number => typeof v === 'number');
	return present.length === values.length && present.length > 0 ? present.reduce((a, b) => a + b, 0) / present.length : null;
};

/** Table 4 (means) and Table 17 (the same with intervals): one row per assistant model, sorted by 3H, and the Average row. */
export function table4(selection: Selection, options: BootstrapOptions, table: '4' | '17' = '4'): Table4 {
	require(selection, `Table ${table}`, ['model']);
	const report = buildReport(selection, ['model'], options);
	const rows: ModelRow[] = (report.rows.length > 0 ? report.rows : report.overall ? [report.overall] : [])
		.map((row: ReportRow) => ({model: row.slice.model ?? selection.values.model.join('+'), n: row.n, seeds: row.seeds, small: row.small, metrics: row.metrics, threeH: row.threeH, tdq: row.tdq, clean: row.clean}))
		.sort((a, b) => (b.threeH?.mean ?? -1) - (a.threeH?.mean ?? -1) || a.model.localeCompare(b.model));
	const average = rows.length > 1 ? {label: `Average (unweighted over ${rows.length} models)`, metrics: Object.fromEntries(METRICS.map((m) => [m, unweighted(rows.map((r) => r.metrics[m]?.mean))])) as Record<Metric, number | null>, threeH: unweighted(rows.map((r) => r.threeH?.mean)), tdq: unweighted(rows.map((r) => r.tdq?.mean)), clean: unweighted(rows.map((r) => r.clean?.mean))} : null;
	return {table, title: table === '4' ? 'Table 4: aggregate results per assistant model' : 'Table 17: metric means with 95% seed-cluster bootstrap intervals', columns: ['Model', ...['helpfulness', 'honesty', 'harmlessness'].map((m) => SHORT[m as Metric]), '3H Avg', ...['naturalness', 'plausibility', 'typicality'].map((m) => SHORT[m as Metric]), 'TDQ Avg', 'Clean %'], rows, average, notes: report.notes};
}

export type Table10Row = {readonly language: string; readonly pairs: number; readonly seeds: number; readonly small: boolean; readonly eval3h: number | null; readonly gold3h: number | null; readonly delta3h: Estimate | null; readonly evalTdq: number | null; readonly goldTdq: number | null; readonly deltaClean: Estimate | null; readonly pHolm: number | null};

/** Table 10: gold against eval per language, paired per seed, with the Combined row (pooled over language, labelled). */
export function table10(selection: Selection, pooled: Selection, options: BootstrapOptions): {rows: Table10Row[]; comparisons: number} {
	require(selection, 'Table 10', ['language', 'mode']);
	const of = (table: ReturnType<typeof pairedDeltas>, label: (row: (typeof table.rows)[number]) => string): Table10Row[] =>
		table.rows.filter((row) => row.pairs > 0).map((row) => ({language: label(row), pairs: row.pairs, seeds: row.seeds, small: row.small, eval3h: row.a.threeH?.mean ?? null, gold3h: row.b.threeH?.mean ?? null, delta3h: row.delta.threeH, evalTdq: row.a.tdq?.mean ?? null, goldTdq: row.b.tdq?.mean ?? null, deltaClean: row.delta.clean, pHolm: row.pHolm}));
	const per = pairedDeltas(selection, 'mode', [], options);
	const languages = selection.values.language;
	const rows = of(per, (row) => (row.slice['language'] ?? languages[0] ?? '').replace(/^english$/, 'English').replace(/^native$/, 'Native'));
	if (rows.length === 0) throw new PaperRefusal('Table 10 needs seeds run in both eval and gold mode (batch --mode eval,gold).');
	if (languages.length > 1) rows.push(...of(pairedDeltas(pooled, 'mode', [], options), () => `Combined (pooled over ${languages.join(' + ')})`));
	return {rows, comparisons: per.comparisons};
}

export type Table14Row = {readonly model: string; readonly standard: Estimate | null; readonly trap: Estimate | null; readonly delta: Estimate | null; readonly pHolm: number | null; readonly small: boolean};

/** Table 14: 3H on standard and trap seeds per assistant model, and the Average row. */
export function table14(selection: Selection, options: BootstrapOptions): {rows: Table14Row[]; average: {label: string; standard: number | null; trap: number | null; delta: number | null} | null; comparisons: number} {
	require(selection, 'Table 14', ['model']);
	const gaps = trapGaps(selection, options);
	const rows = gaps.rows.map((row) => ({model: row.cell.model, standard: row.standard, trap: row.trap, delta: row.delta, pHolm: row.pHolm, small: row.small})).sort((a, b) => (a.delta?.mean ?? 0) - (b.delta?.mean ?? 0));
	const average = rows.length > 1 ? {label: `Average (unweighted over ${rows.length} models)`, standard: unweighted(rows.map((r) => r.standard?.mean)), trap: unweighted(rows.map((r) => r.trap?.mean)), delta: unweighted(rows.map((r) => r.delta?.mean))} : null;
	return {rows, average, comparisons: gaps.comparisons};
}

/** Table 15: one cell's judge score distribution per metric. */
export function table15(selection: Selection, options: BootstrapOptions): MetricDistribution[] {
	require(selection, 'Table 15', []);
	return distributionOf(selection.sessions, options);
}

/** Figure 41: the score distribution split by language (one cell otherwise). */
export function figure41(selection: Selection, options: BootstrapOptions): Array<{language: string; metrics: MetricDistribution[]}> {
	require(selection, 'Figure 41', ['language']);
	return selection.values.language.map((language) => ({language, metrics: distributionOf(selection.sessions.filter((s) => selection.keyOf(s).language === language), options)}));
}

/** Figure 4: 3H against TDQ per assistant model (the points of Table 4). */
export function figure4(selection: Selection, options: BootstrapOptions): Array<{model: string; threeH: Estimate | null; tdq: Estimate | null; n: number; seeds: number}> {
	require(selection, 'Figure 4', ['model']);
	return table4(selection, options).rows.map((row) => ({model: row.model, threeH: row.threeH, tdq: row.tdq, n: row.n, seeds: row.seeds}));
}

export type DeviationBar = {readonly label: string; readonly value: string; readonly deviation: number; readonly mean: number; readonly n: number; readonly seeds: number; readonly small: boolean; readonly p: number | null};

/** Figure 37: each region's 3H minus the model's global average, per model cell. */
export function figure37(selection: Selection, options: BootstrapOptions) {
	require(selection, 'Figure 37', ['model']);
	const table = sliceDisparities(selection, 'region', options);
	return table.rows.map((row) => ({model: row.cell.model, range: row.threeH, bars: row.slices.map((s): DeviationBar => ({label: s.label, value: s.value, deviation: s.deviation, mean: s.mean, n: s.n, seeds: s.seeds, small: s.small, p: s.p}))}));
}

/** Figure 38: each identity's 3H minus its region's mean (within one model cell), with each region's range. */
export function figure38(selection: Selection, options: BootstrapOptions) {
	require(selection, 'Figure 38', []);
	const report = buildReport(selection, ['region', 'identity'], options);
	const bars = report.rows.filter((row) => row.deviation).map((row): DeviationBar & {region: string} => ({region: row.slice.region!, label: row.labels.identity ?? row.slice.identity!, value: row.slice.identity!, deviation: row.deviation!.threeH ?? 0, mean: row.threeH?.mean ?? 0, n: row.n, seeds: row.seeds, small: row.small, p: row.deviation!.pHolm}));
	return {bars, ranges: report.disparities.map((d) => ({region: d.parent.region ?? '', range: d.threeH})), comparisons: report.comparisons};
}

/** Figure 39: identity-level 3H means (one cell), with the unweighted mean over the identities. */
export function figure39(selection: Selection, options: BootstrapOptions) {
	require(selection, 'Figure 39', []);
	const report = buildReport(selection, ['identity'], options);
	const rows = report.rows.map((row) => ({identity: row.slice.identity!, label: row.labels.identity ?? row.slice.identity!, threeH: row.threeH, n: row.n, seeds: row.seeds, small: isSmall(row.seeds)})).sort((a, b) => (b.threeH?.mean ?? 0) - (a.threeH?.mean ?? 0));
	return {rows, unweightedMean: unweighted(rows.map((row) => row.threeH?.mean)), range: report.disparities[0]?.threeH ?? null};
}

/** Tables 3, 11, 12, 13 come from one agreement cell: the selection's rated dialogues must be one cell. */
export function agreementCell(cells: ReadonlyArray<JudgeHumanReport & {cell: Record<string, string>}>, table: string): JudgeHumanReport {
	if (cells.length !== 1) throw new PaperRefusal(`Table ${table} compares the judge with people on one cell of dialogues, but the rated dialogues fall in ${cells.length} cells (${cells.map((c) => Object.values(c.cell).join(' · ')).join('; ')}). Choose one with the filters, or pool on purpose (--pool language, as the paper's Table 3 does).`);
	return cells[0]!;
}
