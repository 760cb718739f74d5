import {stringify} from 'csv-stringify/sync';
import {METRICS} from '../domain/session.js';
import type {Disparity, Report, ReportRow} from '../report/aggregate.js';
import type {Estimate} from '../report/bootstrap.js';
import type {HumanBaseline, JudgeFigures, JudgeHumanReport, SliceAgreement} from '../report/humanAgreement.js';
import type {PairedRow, PairedTable} from '../report/paired.js';
import {type SetupGroup, describeSetup, setupDifferences} from '../report/setups.js';
import {renderTable} from '../util/table.js';
import {counted, fixed, percent, percentWithInterval, pointsWithInterval, pValue, signed, signedWithInterval, withInterval} from './numbers.js';

/* The text, markdown and CSV renderings of `report` and its sub-reports: pure functions of their rows. */

export type Table = {columns: string[]; rows: string[][]; textColumns: number};

/** The rows of the main table in print order: each cell's rows, then its total; the overall row last. */
export function orderedRows(report: Report): Array<{row: ReportRow; kind: 'row' | 'cell' | 'overall'}> {
	const out: Array<{row: ReportRow; kind: 'row' | 'cell' | 'overall'}> = [];
	const cellOf = (row: ReportRow) => JSON.stringify(report.cellColumns.map((key) => row.slice[key] ?? ''));
	const totals = new Map(report.cells.map((cell) => [cellOf(cell), cell]));
	report.rows.forEach((row, index) => {
		out.push({row, kind: 'row'});
		const next = report.rows[index + 1];
		const total = totals.get(cellOf(row));
		if (total && (!next || cellOf(next) !== cellOf(row))) out.push({row: total, kind: 'cell'});
	});
	if (report.overall) out.push({row: report.overall, kind: 'overall'});
	return out;
}

/** A row's value in a slice column: the slice value (with its label where it has one), or "all" for a total. */
export function sliceCell(report: Report, row: ReportRow, column: (typeof report.columns)[number], kind: 'row' | 'cell' | 'overall'): string {
	const index = report.columns.indexOf(column);
	if (kind === 'overall') return index === 0 ? 'all' : '';
	const value = row.slice[column];
	if (value === undefined) return index === report.cellColumns.length ? 'all' : '';
	const label = row.labels[column];
	return label ? `${value} (${label})` : value;
}

/** The main table as strings: slice columns (left-aligned), then figures; '*' marks a small row. */
export function reportTable(report: Report, withMetrics: boolean): Table {
	const by = report.columns;
	const deviation = report.comparisons.deviations > 0;
	const columns = [...by.map((slice) => slice.toUpperCase()), 'N', 'SEEDS', 'ERR', '3H', 'TDQ', 'CLEAN', ...(deviation ? ['Δ3H', 'p(Holm)'] : []), ...(withMetrics ? METRICS.map((metric) => metric.slice(0, 5).toUpperCase()) : [])];
	const cells = ({row, kind}: {row: ReportRow; kind: 'row' | 'cell' | 'overall'}) => [
		...by.map((slice) => sliceCell(report, row, slice, kind)),
		counted(row.n, row.small),
		String(row.seeds),
		String(row.errors),
		withInterval(row.threeH),
		withInterval(row.tdq),
		percentWithInterval(row.clean),
		...(deviation ? [kind === 'row' ? signed(row.deviation?.threeH) : '', kind === 'row' ? pValue(row.deviation?.pHolm) : ''] : []),
		...(withMetrics ? METRICS.map((metric) => fixed(row.metrics[metric]?.mean)) : []),
	];
	return {columns, rows: orderedRows(report).map(cells), textColumns: by.length};
}

export function textTable(table: Table): string {
	return renderTable(table.rows, table.columns.map((header, index) => ({header, value: (cells: string[]) => cells[index]!, align: index >= table.textColumns ? ('right' as const) : undefined})));
}

export function markdownTable(table: Table): string {
	const line = (cells: string[]) => `| ${cells.map((cell) => cell.replace(/\|/g, '\\|')).join(' | ')} |`;
	return [line(table.columns), line(table.columns.map((_, index) => (index < table.textColumns ? '---' : '---:'))), ...table.rows.map(line)].join('\n');
}

/** RFC 4180 CSV (csv-stringify): every figure's mean, bounds and, where there is no interval, why. */
export function csv(rows: ReadonlyArray<readonly (string | number | null)[]>): string {
	return stringify(rows.map((row) => row.map((cell) => (cell === null ? '' : cell))), {eof: false});
}

const exact = (value: number | null | undefined) => (value === null || value === undefined ? '' : String(Math.round(value * 10_000) / 10_000 || 0));
/** A figure's CSV columns: mean, lo, hi, and the reason when lo and hi are empty. */
export const csvFigure = (estimate: Estimate | null) => (estimate ? [exact(estimate.mean), exact(estimate.lo), exact(estimate.hi), estimate.na ?? ''] : ['', '', '', 'no scored episode']);
export const csvFigureHeader = (name: string) => [`${name}_mean`, `${name}_lo`, `${name}_hi`, `${name}_na`];

export function reportCsv(report: Report): string {
	const header = [...report.columns, 'row', 'n', 'seeds', 'small', 'errors', 'unfinished', ...csvFigureHeader('threeH'), ...csvFigureHeader('tdq'), ...csvFigureHeader('clean'), ...METRICS.flatMap(csvFigureHeader), 'threeH_deviation', 'deviation_p', 'deviation_p_holm'];
	const line = ({row, kind}: {row: ReportRow; kind: 'row' | 'cell' | 'overall'}) => [
		...report.columns.map((slice) => sliceCell(report, row, slice, kind)),
		kind,
		row.n,
		row.seeds,
		row.small ? 'yes' : 'no',
		row.errors,
		row.unfinished,
		...csvFigure(row.threeH),
		...csvFigure(row.tdq),
		...csvFigure(row.clean),
		...METRICS.flatMap((metric) => csvFigure(row.metrics[metric])),
		kind === 'row' ? exact(row.deviation?.threeH) : '',
		kind === 'row' ? exact(row.deviation?.p) : '',
		kind === 'row' ? exact(row.deviation?.pHolm) : '',
	];
	return csv([header, ...orderedRows(report).map(line)]);
}

/** "gender: range 0.011 [0.002, 0.190], p = 0.41 (Holm 0.82); lowest female, highest male" lines, one per parent. */
export function disparityLines(disparities: readonly Disparity[]): string[] {
	return disparities.map((d) => {
		const parent = Object.entries(d.parent).map(([key, value]) => `${key} ${value}`).join(', ');
		const part = (name: string, figure: Disparity['threeH']) =>
			figure ? `${name} range ${fixed(figure.range, 3)} ${rangeBracket(figure)}, p ${pValue(figure.p)} (Holm ${pValue(figure.pHolm)}); lowest ${figure.lowest}, highest ${figure.highest}` : `${name} –`;
		return `${parent ? `${parent}: ` : ''}across ${d.rows} ${d.slice} values, ${part('3H', d.threeH)}; ${part('TDQ', d.tdq)}`;
	});
}

/** "[0.002, 0.190]" or "[n/a: ...]": a range's bootstrap interval. */
export const rangeBracket = (figure: {lo: number | null; hi: number | null; na: string | null}) => (figure.lo === null || figure.hi === null ? `[n/a: ${figure.na ?? 'not estimable'}]` : `[${fixed(figure.lo, 3)}, ${fixed(figure.hi, 3)}]`);

/** The setups legend: each label with its size and, for the fields that differ, its values. */
export function setupLegend(setups: readonly SetupGroup[]): string[] {
	const differing = new Set(setupDifferences(setups).map((d) => d.field));
	return setups.map((group) => {
		const fields = describeSetup(group.setup).split(', ').filter((part) => differing.has(part.split(' ')[0]!));
		const mock = group.mock.kind === 'none' ? '' : group.mock.kind === 'all' ? ' [mock]' : ` [partly mock: ${group.mock.roles.join(', ')}]`;
		return `${group.label} (${group.sessions} session(s))${mock}: ${fields.join(', ') || '(the only setup)'}`;
	});
}

const baselineCells = (humans: HumanBaseline) => [percent(humans.withinOne), fixed(humans.mae, 3), String(humans.pairs)];
const judgeCells = (judge: JudgeFigures) => [percentWithInterval(judge.withinOne), withInterval(judge.mae, 3), signedWithInterval(judge.bias, 3), counted(judge.n, judge.small), String(judge.seeds)];

/** Table 3: the judge against the human mean, next to the human-human baseline. */
export function agreementOverall(report: JudgeHumanReport): string {
	return renderTable(
		[
			['Human–human (mean pairwise)', ...baselineCells(report.overall.humans).slice(0, 2), '–', `${report.overall.humans.pairs} pairs`, '–'],
			[`${report.judges.join(' + ') || 'judge'} vs human mean`, ...judgeCells(report.overall.judge).slice(0, 3), `${counted(report.overall.judge.n, report.overall.judge.small)} units`, String(report.overall.judge.seeds)],
		],
		['COMPARISON', '% ±1', 'MAE', 'BIAS', 'N', 'SEEDS'].map((header, index) => ({header, value: (cells: string[]) => cells[index]!, align: index > 0 ? ('right' as const) : undefined})),
	);
}

const statistic = (estimate: Estimate | null) => withInterval(estimate);

/** Table 12 with the correlation figures: per metric, human-human, then the judge. */
export function agreementByMetric(report: JudgeHumanReport): string {
	return renderTable(report.metrics, [
		{header: 'METRIC', value: (row) => row.metric},
		{header: 'N', value: (row) => counted(row.n, row.small), align: 'right'},
		{header: 'SEEDS', value: (row) => row.seeds, align: 'right'},
		{header: 'HH ±1', value: (row) => percent(row.humans.withinOne), align: 'right'},
		{header: 'HH MAE', value: (row) => fixed(row.humans.mae, 3), align: 'right'},
		{header: 'JUDGE ±1', value: (row) => percentWithInterval(row.withinOne), align: 'right'},
		{header: 'JUDGE MAE', value: (row) => withInterval(row.mae, 3), align: 'right'},
		{header: 'BIAS', value: (row) => signedWithInterval(row.bias, 3), align: 'right'},
		{header: 'EXACT', value: (row) => percentWithInterval(row.exact), align: 'right'},
		{header: 'PEARSON', value: (row) => statistic(row.pearson), align: 'right'},
		{header: 'SPEARMAN', value: (row) => statistic(row.spearman), align: 'right'},
		{header: 'KAPPA(QW)', value: (row) => statistic(row.kappa), align: 'right'},
		{header: 'α HUMANS', value: (row) => statistic(row.humanAlpha), align: 'right'},
		{header: 'α +JUDGE', value: (row) => statistic(row.withJudgeAlpha), align: 'right'},
	]);
}

/** Table 13 (and the same by language): per slice value, human-human next to the judge, with n and the small mark. */
export function agreementBySlice(name: string, rows: readonly SliceAgreement[]): string {
	return renderTable(rows, [
		{header: name.toUpperCase(), value: (row) => row.value},
		{header: 'N', value: (row) => counted(row.judge.n, row.judge.small), align: 'right'},
		{header: 'DIALOGUES', value: (row) => row.judge.dialogues, align: 'right'},
		{header: 'SEEDS', value: (row) => row.judge.seeds, align: 'right'},
		{header: 'HH ±1', value: (row) => percent(row.humans.withinOne), align: 'right'},
		{header: 'HH MAE', value: (row) => fixed(row.humans.mae, 3), align: 'right'},
		{header: 'JUDGE ±1', value: (row) => percentWithInterval(row.judge.withinOne), align: 'right'},
		{header: 'JUDGE MAE', value: (row) => withInterval(row.judge.mae, 3), align: 'right'},
		{header: 'BIAS', value: (row) => signedWithInterval(row.judge.bias, 3), align: 'right'},
	]);
}

/** Table 11: the judge panel ranked by MAE, then the best ensembles. */
export function agreementPanel(report: JudgeHumanReport, top: number): string {
	const lines = [
		renderTable(report.panel, [
			{header: 'JUDGE', value: (row) => row.judge, max: 40},
			...['% ±1', 'MAE', 'BIAS', 'N', 'SEEDS'].map((header, index) => ({header, value: (row: (typeof report.panel)[number]) => judgeCells(row)[index]!, align: 'right' as const})),
		]),
	];
	if (report.ensembles.length > 0) {
		const shown = report.ensembles.slice(0, top);
		lines.push('', `Ensembles (mean of k judges, k = 2..${Math.max(...report.ensembles.map((row) => row.k))}; ${report.ensembles.length} in all, the best ${shown.length} by MAE, on the units every member scored; 95% seed-cluster intervals for the listed ones; the ranking itself is a point ranking):`);
		lines.push(
			renderTable(shown, [
				{header: 'RANK', value: (row) => String(report.ensembles.indexOf(row) + 1), align: 'right'},
				{header: 'K', value: (row) => row.k, align: 'right'},
				{header: 'JUDGES', value: (row) => row.judges.join(' + '), max: 70},
				{header: '% ±1', value: (row) => (row.intervals ? percentWithInterval(row.intervals.withinOne) : percent(row.withinOne)), align: 'right'},
				{header: 'MAE', value: (row) => (row.intervals ? withInterval(row.intervals.mae, 3) : fixed(row.mae, 3)), align: 'right'},
				{header: 'BIAS', value: (row) => signed(row.bias, 3), align: 'right'},
				{header: 'N', value: (row) => row.n, align: 'right'},
				{header: 'SEEDS', value: (row) => `${row.seeds}${row.small ? '*' : ''}`, align: 'right'},
			]),
		);
		const gain = report.ensembleGain;
		if (gain) lines.push(`Best ensemble (${gain.ensemble.join(' + ')}) − best single judge (${gain.judge}), paired on the ${gain.n} units both scored (${gain.seeds} seeds): MAE ${signedWithInterval(gain.mae, 3)}, % ±1 ${pointsWithInterval(gain.withinOne)} pp`);
	}
	return lines.join('\n');
}

/** Paired deltas: per group, both sides' means over the paired units, the delta with its interval and p. */
export function pairedTable(table: PairedTable): string {
	const rows = table.rows;
	const sideName = (row: PairedRow | undefined, which: 'a' | 'b') => (table.contrast === 'judge' ? (which === 'a' ? 'REF' : 'JUDGE') : (row?.sides[which] ?? which).toUpperCase());
	return renderTable(rows, [
		...table.columns.map((column) => ({header: column.toUpperCase(), value: (row: PairedRow) => row.slice[column] ?? '', max: 40})),
		{header: 'PAIRS', value: (row) => counted(row.pairs, row.small), align: 'right'},
		{header: 'SEEDS', value: (row) => row.seeds, align: 'right'},
		{header: 'UNPAIRED', value: (row) => row.unpaired, align: 'right'},
		{header: 'UNBAL', value: (row) => row.unbalanced, align: 'right'},
		...(table.contrast === 'tier' || table.contrast === 'judge' ? [] : [{header: 'SAME BP', value: (row: PairedRow) => row.sharedBlueprints, align: 'right' as const}]),
		{header: `${sideName(rows[0], 'a')} 3H`, value: (row) => fixed(row.a.threeH?.mean), align: 'right'},
		{header: `${sideName(rows[0], 'b')} 3H`, value: (row) => fixed(row.b.threeH?.mean), align: 'right'},
		{header: 'Δ 3H [95% CI]', value: (row) => signedWithInterval(row.delta.threeH)},
		{header: 'p(Holm)', value: (row) => pValue(row.pHolm), align: 'right'},
		{header: 'Δ TDQ [95% CI]', value: (row) => signedWithInterval(row.delta.tdq)},
		{header: 'Δ CLEAN pp', value: (row) => pointsWithInterval(row.delta.clean)},
	]);
}

export const deltaText = signedWithInterval;
