import {METRICS} from '../domain/session.js';
import type {Disparity, Report, ReportRow} from '../report/aggregate.js';
import type {Estimate} from '../report/bootstrap.js';
import type {HumanBaseline, JudgeFigures, JudgeHumanReport, SliceAgreement} from '../report/humanAgreement.js';
import type {PairedRow} from '../report/paired.js';
import {CONTRASTS} from '../report/paired.js';
import {type SetupGroup, describeSetup, setupDifferences} from '../report/setups.js';
import {renderTable} from '../util/table.js';
import {fixed, percent, percentWithInterval, signed, withInterval} from './numbers.js';

/* The text, markdown and CSV renderings of `report` and its sub-reports: pure functions of their rows. */

export type Table = {columns: string[]; rows: string[][]; textColumns: number};

/** The main table as strings: slice columns (left-aligned), then figures; '*' marks a small slice. */
export function reportTable(report: Report, withMetrics: boolean): Table {
	const by = report.columns;
	const deviation = by.length > 0;
	const columns = [...by.map((slice) => slice.toUpperCase()), 'N', 'ERR', '3H', 'TDQ', 'CLEAN', ...(deviation ? ['Δ3H'] : []), ...(withMetrics ? METRICS.map((metric) => metric.slice(0, 5).toUpperCase()) : [])];
	const cells = (row: ReportRow, label: string | null) => [
		...by.map((slice, index) => (label !== null ? (index === 0 ? label : '') : (row.slice[slice] ?? ''))),
		`${row.n}${row.small ? '*' : ''}`,
		String(row.errors),
		withInterval(row.threeH),
		withInterval(row.tdq),
		percentWithInterval(row.clean),
		...(deviation ? [label !== null ? '' : signed(row.deviation?.threeH)] : []),
		...(withMetrics ? METRICS.map((metric) => (row.metrics[metric] ? fixed(row.metrics[metric]!.mean) : '–')) : []),
	];
	const rows = report.rows.map((row) => cells(row, null));
	if (report.overall) rows.push(cells(report.overall, by.length > 0 ? 'all' : null));
	return {columns, rows, textColumns: by.length};
}

export function textTable(table: Table): string {
	return renderTable(table.rows, table.columns.map((header, index) => ({header, value: (cells: string[]) => cells[index]!, align: index >= table.textColumns ? ('right' as const) : undefined})));
}

export function markdownTable(table: Table): string {
	const line = (cells: string[]) => `| ${cells.join(' | ')} |`;
	return [line(table.columns), line(table.columns.map((_, index) => (index < table.textColumns ? '---' : '---:'))), ...table.rows.map(line)].join('\n');
}

const quote = (value: string) => (/[",\n]/.test(value) ? `"${value.replace(/"/g, '""')}"` : value);
const triple = (estimate: Estimate | null) => (estimate ? [estimate.mean, estimate.lo, estimate.hi].map((value) => String(Math.round(value * 10_000) / 10_000)) : ['', '', '']);

export function reportCsv(report: Report): string {
	const figures = (name: string) => [`${name}_mean`, `${name}_lo`, `${name}_hi`];
	const header = [...report.columns, 'n', 'errors', 'unfinished', ...figures('threeH'), ...figures('tdq'), ...figures('clean'), ...METRICS.flatMap(figures), 'seeds', 'threeH_deviation'];
	const line = (row: ReportRow, overall: boolean) => [
		...report.columns.map((slice) => (overall ? 'all' : (row.slice[slice] ?? ''))),
		String(row.n),
		String(row.errors),
		String(row.unfinished),
		...triple(row.threeH),
		...triple(row.tdq),
		...triple(row.clean),
		...METRICS.flatMap((metric) => triple(row.metrics[metric])),
		String(row.seeds),
		row.deviation?.threeH === null || row.deviation === null || overall ? '' : String(Math.round(row.deviation.threeH * 10_000) / 10_000),
	];
	return [header, ...report.rows.map((row) => line(row, false)), ...(report.overall ? [line(report.overall, true)] : [])].map((cells) => cells.map(quote).join(',')).join('\n');
}

/** "3H range across gender: 0.011 (female 4.21 lowest, male highest)" lines, one per parent. */
export function disparityLines(disparities: readonly Disparity[]): string[] {
	return disparities.map((d) => {
		const parent = Object.entries(d.parent).map(([key, value]) => `${key} ${value}`).join(', ');
		const part = (name: string, figure: Disparity['threeH']) => (figure ? `${name} range ${fixed(figure.range, 3)} (lowest ${figure.lowest}, highest ${figure.highest})` : `${name} –`);
		return `${parent ? `${parent}: ` : ''}across ${d.rows} ${d.slice} values, ${part('3H', d.threeH)}; ${part('TDQ', d.tdq)}`;
	});
}

/** The setups legend: each label with its size and, for the fields that differ, its values. */
export function setupLegend(setups: readonly SetupGroup[]): string[] {
	const differing = new Set(setupDifferences(setups).map((d) => d.field));
	return setups.map((group) => {
		const fields = describeSetup(group.setup).split(', ').filter((part) => differing.has(part.split(' ')[0]!));
		const mock = group.mock.kind === 'none' ? '' : group.mock.kind === 'all' ? ' [mock]' : ` [partly mock: ${group.mock.roles.join(', ')}]`;
		return `${group.label} (${group.sessions} session(s))${mock}: ${fields.join(', ') || describeSetup(group.setup)}`;
	});
}

const baselineCells = (humans: HumanBaseline) => [percent(humans.withinOne), fixed(humans.mae, 3), String(humans.pairs)];
const judgeCells = (judge: JudgeFigures) => [percentWithInterval(judge.withinOne), withInterval3(judge.mae), signed3(judge.bias), String(judge.n)];
const withInterval3 = (estimate: Estimate | null) => (estimate ? `${fixed(estimate.mean, 3)} [${fixed(estimate.lo, 3)}, ${fixed(estimate.hi, 3)}]` : '–');
const signed3 = (value: number | null) => (value === null ? '–' : `${value >= 0 ? '+' : ''}${value.toFixed(3)}`);

/** Table 3: the judge against the human mean, next to the human-human baseline. */
export function agreementOverall(report: JudgeHumanReport): string {
	return renderTable(
		[
			['Human–human (mean pairwise)', ...baselineCells(report.overall.humans).slice(0, 2), '–', `${report.overall.humans.pairs} pairs`],
			[`${report.judges.join(' + ') || 'judge'} vs human mean`, percentWithInterval(report.overall.judge.withinOne), withInterval3(report.overall.judge.mae), signed3(report.overall.judge.bias), `${report.overall.judge.n} units`],
		],
		['COMPARISON', '% ±1', 'MAE', 'BIAS', 'N'].map((header, index) => ({header, value: (cells: string[]) => cells[index]!, align: index > 0 ? ('right' as const) : undefined})),
	);
}

/** Table 12 with the correlation figures: per metric, human-human, then the judge. */
export function agreementByMetric(report: JudgeHumanReport): string {
	return renderTable(report.metrics, [
		{header: 'METRIC', value: (row) => row.metric},
		{header: 'N', value: (row) => row.n, align: 'right'},
		{header: 'HH ±1', value: (row) => percent(row.humans.withinOne), align: 'right'},
		{header: 'HH MAE', value: (row) => fixed(row.humans.mae, 3), align: 'right'},
		{header: 'JUDGE ±1', value: (row) => percentWithInterval(row.withinOne), align: 'right'},
		{header: 'JUDGE MAE', value: (row) => withInterval3(row.mae), align: 'right'},
		{header: 'BIAS', value: (row) => signed3(row.bias), align: 'right'},
		{header: 'EXACT', value: (row) => percentWithInterval(row.exact), align: 'right'},
		{header: 'PEARSON', value: (row) => fixed(row.pearson), align: 'right'},
		{header: 'SPEARMAN', value: (row) => fixed(row.spearman), align: 'right'},
		{header: 'KAPPA(QW)', value: (row) => fixed(row.kappa), align: 'right'},
		{header: 'α HUMANS', value: (row) => fixed(row.humanAlpha), align: 'right'},
		{header: 'α +JUDGE', value: (row) => fixed(row.withJudgeAlpha), align: 'right'},
	]);
}

/** Table 13 (and the same by language): per slice value, human-human next to the judge. */
export function agreementBySlice(name: string, rows: readonly SliceAgreement[]): string {
	return renderTable(rows, [
		{header: name.toUpperCase(), value: (row) => row.value},
		{header: 'HH ±1', value: (row) => percent(row.humans.withinOne), align: 'right'},
		{header: 'HH MAE', value: (row) => fixed(row.humans.mae, 3), align: 'right'},
		{header: 'JUDGE ±1', value: (row) => percentWithInterval(row.judge.withinOne), align: 'right'},
		{header: 'JUDGE MAE', value: (row) => withInterval3(row.judge.mae), align: 'right'},
		{header: 'BIAS', value: (row) => signed3(row.judge.bias), align: 'right'},
		{header: 'N', value: (row) => row.judge.n, align: 'right'},
	]);
}

/** Table 11: the judge panel ranked by MAE, then the best ensembles. */
export function agreementPanel(report: JudgeHumanReport, top: number): string {
	const lines = [
		renderTable(report.panel, [
			{header: 'JUDGE', value: (row) => row.judge, max: 40},
			...['% ±1', 'MAE', 'BIAS', 'N'].map((header, index) => ({header, value: (row: (typeof report.panel)[number]) => judgeCells(row)[index]!, align: 'right' as const})),
		]),
	];
	if (report.ensembles.length > 0) {
		const shown = report.ensembles.slice(0, top);
		lines.push('', `Ensembles (mean of k judges, k = 2..${Math.max(...report.ensembles.map((row) => row.k))}; ${report.ensembles.length} in all, the best ${shown.length} by MAE; on the units every member scored):`);
		lines.push(
			renderTable(shown, [
				{header: 'RANK', value: (row) => String(report.ensembles.indexOf(row) + 1), align: 'right'},
				{header: 'K', value: (row) => row.k, align: 'right'},
				{header: 'JUDGES', value: (row) => row.judges.join(' + '), max: 70},
				{header: '% ±1', value: (row) => percent(row.withinOne), align: 'right'},
				{header: 'MAE', value: (row) => fixed(row.mae, 3), align: 'right'},
				{header: 'BIAS', value: (row) => signed3(row.bias), align: 'right'},
				{header: 'N', value: (row) => row.n, align: 'right'},
			]),
		);
		const best = report.ensembles[0]!;
		const single = report.panel[0];
		if (single?.mae && best.mae !== null) lines.push(`Best ensemble − best single judge (${single.judge}): MAE ${signed3(best.mae - single.mae.mean)}, % ±1 ${signed((best.withinOne! - single.withinOne!.mean) * 100)} pp`);
	}
	return lines.join('\n');
}

/** Paired deltas: per group, both sides' means over the paired units, the delta with its interval. */
export function pairedTable(rows: readonly PairedRow[], groupColumns: readonly string[]): string {
	const contrast = rows[0] ? CONTRASTS[rows[0].contrast] : CONTRASTS.language;
	const side = (label: string) => label.charAt(0).toUpperCase() + label.slice(1);
	return renderTable(rows, [
		...groupColumns.map((column) => ({header: column.toUpperCase(), value: (row: PairedRow) => row.slice[column] ?? '', max: 28})),
		{header: 'PAIRS', value: (row) => `${row.pairs}${row.small ? '*' : ''}`, align: 'right'},
		{header: 'UNPAIRED', value: (row) => row.unpaired, align: 'right'},
		...(rows[0]?.contrast === 'tier' ? [] : [{header: 'SAME BP', value: (row: PairedRow) => row.sharedBlueprints, align: 'right' as const}]),
		{header: `${side(contrast.a)} 3H`, value: (row) => fixed(row.a.threeH), align: 'right'},
		{header: `${side(contrast.b)} 3H`, value: (row) => fixed(row.b.threeH), align: 'right'},
		{header: 'Δ 3H [95% CI]', value: (row) => deltaText(row.delta.threeH)},
		{header: 'Δ TDQ [95% CI]', value: (row) => deltaText(row.delta.tdq)},
		{header: 'Δ CLEAN pp', value: (row) => (row.delta.clean ? `${signed(row.delta.clean.mean * 100)} [${fixed(row.delta.clean.lo * 100, 1)}, ${fixed(row.delta.clean.hi * 100, 1)}]` : '–')},
	]);
}

export const deltaText = (estimate: Estimate | null) => (estimate ? `${signed(estimate.mean)} [${fixed(estimate.lo)}, ${fixed(estimate.hi)}]` : '–');
