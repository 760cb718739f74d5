import path from 'node:path';
import {type Interval, deviationBars, dotWhisker, stackedScores, xyIntervals} from '../html/charts.js';
import {esc} from '../html/escape.js';
import {FIGURE_SCRIPT, page} from '../html/page.js';
import {counted, fixed, percent, percentWithInterval, pValue, signed, signedWithInterval, withInterval} from '../present/numbers.js';
import {agreementByMetric, agreementBySlice, agreementOverall, agreementPanel, rangeBracket} from '../present/report.js';
import {SMALL_SLICE} from '../report/bootstrap.js';
import {selectCells} from '../report/cells.js';
import {PAPER_FIGURES, PAPER_TABLES, PaperRefusal, agreementCell, figure37, figure38, figure39, figure4, figure41, table10, table14, table15, table4} from '../report/paper.js';
import {writeFileAtomic} from '../util/atomicWrite.js';
import {ExitCode, UserError} from '../util/errors.js';
import {unknownMessage} from '../util/suggest.js';
import {renderTable} from '../util/table.js';
import {agreementData} from './reportAgreement.js';
import {chooseSessions, intervalOptions, poolFlag, sayNotes, selectionFor} from './reportSelection.js';
import {type Flags, type IO, write, writeJson} from './types.js';

/*
 * `report paper --table N | --figure N`: the CultureConverse paper's tables and figures in its layout,
 * from the same cells as every view (report/paper.ts); text, --json, and --html FILE for the figures.
 */

type Output = {readonly what: string; readonly json: unknown; readonly text: string; readonly html: string};

export function paper(flags: Flags, io: IO): number {
	const table = typeof flags['table'] === 'string' || typeof flags['table'] === 'number' ? String(flags['table']) : null;
	const figure = typeof flags['figure'] === 'string' || typeof flags['figure'] === 'number' ? String(flags['figure']) : null;
	if ((table === null) === (figure === null)) throw new UserError(`report paper needs one of --table ${PAPER_TABLES.join('|')} or --figure ${PAPER_FIGURES.join('|')}.`);
	if (table !== null && !(PAPER_TABLES as readonly string[]).includes(table)) throw new UserError(unknownMessage('paper table', table, PAPER_TABLES));
	if (figure !== null && !(PAPER_FIGURES as readonly string[]).includes(figure)) throw new UserError(unknownMessage('paper figure', figure, PAPER_FIGURES));
	let output: Output;
	try {
		output = table !== null ? paperTable(table, flags, io) : paperFigure(figure!, flags, io);
	} catch (error) {
		if (error instanceof PaperRefusal) throw new UserError(error.message);
		throw error;
	}
	if (typeof flags['html'] === 'string') {
		const file = path.resolve(io.cwd, flags['html']);
		writeFileAtomic(file, page({title: `cultureconverse · ${output.what}`, body: `<h1>${esc(output.what)}</h1>${output.html}<h2>As text</h2><pre>${esc(output.text)}</pre>`, script: FIGURE_SCRIPT}));
		io.stderr.write(`Wrote ${file}\n`);
	}
	if (flags['json']) writeJson(io, output.json);
	else write(io, output.text);
	return ExitCode.ok;
}

const two = (value: number | null | undefined) => fixed(value);
const mark = (small: boolean) => (small ? '*' : '');

function paperTable(table: string, flags: Flags, io: IO): Output {
	const options = intervalOptions(flags);
	if (table === '4' || table === '17') {
		const selection = selectionFor(flags, io);
		sayNotes(io, selection);
		const data = table4(selection, options, table);
		const cell = (e: {mean: number} | null, ci = table === '17') => (e ? (ci ? withInterval(e as Parameters<typeof withInterval>[0]) : two(e.mean)) : '–');
		const rows = data.rows.map((row) => [`${row.model}${mark(row.small)}`, cell(row.metrics.helpfulness), cell(row.metrics.honesty), cell(row.metrics.harmlessness), cell(row.threeH), cell(row.metrics.naturalness), cell(row.metrics.plausibility), cell(row.metrics.typicality), cell(row.tdq), table === '17' ? percentWithInterval(row.clean) : fixed(row.clean ? row.clean.mean * 100 : null, 1)]);
		if (data.average) rows.push([data.average.label, ...['helpfulness', 'honesty', 'harmlessness'].map((m) => two(data.average!.metrics[m as 'honesty'])), two(data.average.threeH), ...['naturalness', 'plausibility', 'typicality'].map((m) => two(data.average!.metrics[m as 'honesty'])), two(data.average.tdq), fixed(data.average.clean === null ? null : data.average.clean * 100, 1)]);
		const text = [`${data.title} (${data.rows.reduce((sum, row) => sum + row.n, 0)} scored episodes; rows sorted by 3H; * fewer than ${SMALL_SLICE} seeds)`, renderTable(rows, data.columns.map((header, index) => ({header, value: (r: string[]) => r[index]!, align: index > 0 ? ('right' as const) : undefined}))), ...data.notes.map((note) => `Note: ${note}`)].join('\n');
		const html = `<table><thead><tr>${data.columns.map((c) => `<th>${esc(c)}</th>`).join('')}</tr></thead><tbody>${rows.map((r) => `<tr>${r.map((c, i) => `<td${i > 0 ? ' class="num"' : ''}>${esc(c)}</td>`).join('')}</tr>`).join('')}</tbody></table>`;
		return {what: data.title, json: data, text, html};
	}
	if (table === '10') {
		const selection = selectionFor(flags, io);
		sayNotes(io, selection);
		const pooled = selectCells(chooseSessions(flags, io), {includeMock: Boolean(flags['includeMock']), pool: [...poolFlag(flags), 'language']});
		const data = table10(selection, pooled, options);
		const rows = data.rows.map((row) => [`${row.language}${mark(row.small)}`, String(row.pairs), two(row.eval3h), two(row.gold3h), signedWithInterval(row.delta3h), pValue(row.pHolm), two(row.evalTdq), two(row.goldTdq), row.deltaClean ? `${signed(row.deltaClean.mean * 100, 1)} pp` : '–']);
		const header = ['Lang', 'Pairs', 'Eval 3H', 'Gold 3H', 'Δ 3H [95% CI]', 'p(Holm)', 'Eval TDQ', 'Gold TDQ', 'Δ Clean'];
		const text = [`Table 10: gold (oracle-guided) against eval (blind) mode, paired per seed; Combined pools the languages (labelled); p: sign-flip permutation, Holm over the ${data.comparisons} per-language comparison(s); * fewer than ${SMALL_SLICE} pairs.`, renderTable(rows, header.map((h, i) => ({header: h, value: (r: string[]) => r[i]!, align: i > 0 ? ('right' as const) : undefined})))].join('\n');
		return {what: 'Table 10: gold against eval mode', json: data, text, html: `<pre>${esc(text)}</pre>`};
	}
	if (table === '14') {
		const selection = selectionFor(flags, io);
		sayNotes(io, selection);
		const data = table14(selection, options);
		const rows = data.rows.map((row) => [`${row.model}${mark(row.small)}`, withInterval(row.standard), withInterval(row.trap), signedWithInterval(row.delta), pValue(row.pHolm)]);
		if (data.average) rows.push([data.average.label, two(data.average.standard), two(data.average.trap), signed(data.average.delta), '']);
		const text = [`Table 14: 3H on standard against trap (contextual and normative) seeds per model; Δ = trap − standard; p: permutation, Holm over ${data.comparisons}; * fewer than ${SMALL_SLICE} seeds on a side.`, renderTable(rows, ['Model', 'Std 3H', 'Trap 3H', 'Δ 3H', 'p(Holm)'].map((h, i) => ({header: h, value: (r: string[]) => r[i]!, align: i > 0 ? ('right' as const) : undefined})))].join('\n');
		return {what: 'Table 14: performance on trap episodes', json: data, text, html: `<pre>${esc(text)}</pre>`};
	}
	if (table === '15') {
		const selection = selectionFor(flags, io);
		sayNotes(io, selection);
		const data = table15(selection, options);
		const text = ['Table 15: judge score distribution (one cell)', renderTable(data, [
			{header: 'Metric', value: (row) => row.metric},
			{header: 'N', value: (row) => counted(row.n, row.small), align: 'right'},
			{header: 'Mean', value: (row) => withInterval(row.mean), align: 'right'},
			{header: 'Std', value: (row) => two(row.sd), align: 'right'},
			{header: 'Median', value: (row) => two(row.median), align: 'right'},
			...[1, 2, 3, 4, 5].map((score) => ({header: `%${score}`, value: (row: (typeof data)[number]) => (row.shares[score - 1]! * 100).toFixed(1), align: 'right' as const})),
		])].join('\n');
		return {what: 'Table 15: judge score distribution', json: data, text, html: stackedScores('table-15', 'Judge score distribution', data.map((row) => ({metric: row.metric, shares: row.shares, n: row.n})))};
	}
	// Tables 3, 11, 12, 13: judge against people.
	const data = agreementData(flags, io, {panel: table === '11', selection: selectionFor(flags, io, {judges: true})});
	const cell = agreementCell(data.cells, table);
	const text =
		table === '3'
			? `Table 3: human agreement (${data.ratings} ratings by ${data.raters} raters); bias = judge − human mean\n${agreementOverall(cell)}`
			: table === '12'
				? `Table 12: agreement by metric (HH: mean human–human agreement over rater pairs); Overall: ${percent(cell.overall.humans.withinOne)} HH ±1, judge ${percentWithInterval(cell.overall.judge.withinOne)}, MAE ${withInterval(cell.overall.judge.mae, 3)}, bias ${signedWithInterval(cell.overall.judge.bias, 3)}\n${agreementByMetric(cell)}`
				: table === '13'
					? `Table 13: agreement by region\n${agreementBySlice('region', cell.regions)}`
					: `Table 11: judge panel against the same people, ranked by MAE\n${agreementPanel(cell, typeof flags['top'] === 'number' ? flags['top'] : 3)}`;
	return {what: `Table ${table}`, json: {...cell, ratings: data.ratings, raters: data.raters}, text, html: `<pre>${esc(text)}</pre>`};
}

const intervalOf = (label: string, e: {mean: number; lo: number | null; hi: number | null; na: string | null} | null, n: number, seeds: number): Interval[] => (e ? [{label, mean: e.mean, lo: e.lo, hi: e.hi, na: e.na, n, seeds, small: seeds < SMALL_SLICE}] : []);

function paperFigure(figure: string, flags: Flags, io: IO): Output {
	const options = intervalOptions(flags);
	const selection = selectionFor(flags, io);
	sayNotes(io, selection);
	if (figure === '4') {
		const points = figure4(selection, options);
		const text = ['Figure 4: 3H against TDQ per assistant model (95% seed-cluster intervals)', renderTable(points, [
			{header: 'MODEL', value: (p) => p.model},
			{header: 'N', value: (p) => p.n, align: 'right'},
			{header: 'SEEDS', value: (p) => counted(p.seeds, p.seeds < SMALL_SLICE), align: 'right'},
			{header: '3H', value: (p) => withInterval(p.threeH)},
			{header: 'TDQ', value: (p) => withInterval(p.tdq)},
		])].join('\n');
		const html = xyIntervals('figure-4', 'Figure 4: 3H against TDQ per assistant model', points.flatMap((p) => (p.threeH && p.tdq ? [{label: p.model, x: {...p.tdq, label: p.model, n: p.n}, y: {...p.threeH, label: p.model, n: p.n}}] : [])), {x: 'TDQ (training data quality, 1-5)', y: '3H (assistance quality, 1-5)'});
		return {what: 'Figure 4', json: points, text, html};
	}
	if (figure === '37') {
		const cells = figure37(selection, options);
		const text = cells.map((cell) => [`Figure 37: regional 3H deviation from ${cell.model}'s average; range ${cell.range ? `${fixed(cell.range.range, 3)} ${rangeBracket(cell.range)}, permutation p ${pValue(cell.range.p)}` : '–'}`, renderTable(cell.bars, [
			{header: 'REGION', value: (b) => b.value},
			{header: 'N', value: (b) => b.n, align: 'right'},
			{header: 'SEEDS', value: (b) => counted(b.seeds, b.small), align: 'right'},
			{header: '3H', value: (b) => fixed(b.mean), align: 'right'},
			{header: 'Δ', value: (b) => signed(b.deviation, 3), align: 'right'},
			{header: 'p', value: (b) => pValue(b.p), align: 'right'},
		])].join('\n')).join('\n\n');
		const html = cells.map((cell) => deviationBars(`figure-37-${cell.model}`, `Figure 37: regional 3H deviation from ${cell.model}'s average`, cell.bars.map((b) => ({label: b.label, value: b.deviation, n: b.n, seeds: b.seeds, small: b.small, p: b.p})), {x: "3H deviation from the model's average", note: cell.range ? `range ${fixed(cell.range.range, 3)} ${rangeBracket(cell.range)}, permutation p ${pValue(cell.range.p)}` : undefined})).join('');
		return {what: 'Figure 37', json: cells, text, html};
	}
	if (figure === '38') {
		const data = figure38(selection, options);
		const text = [`Figure 38: each identity's 3H minus its region's mean; p Holm-adjusted over ${data.comparisons.deviations} comparisons`, renderTable(data.bars, [
			{header: 'REGION', value: (b) => b.region},
			{header: 'IDENTITY', value: (b) => `${b.value} (${b.label})`},
			{header: 'SEEDS', value: (b) => counted(b.seeds, b.small), align: 'right'},
			{header: '3H', value: (b) => fixed(b.mean), align: 'right'},
			{header: 'Δ', value: (b) => signed(b.deviation, 3), align: 'right'},
			{header: 'p(Holm)', value: (b) => pValue(b.p), align: 'right'},
		]), ...data.ranges.map((r) => `${r.region}: identity range ${r.range ? `${fixed(r.range.range, 3)} ${rangeBracket(r.range)}, p ${pValue(r.range.p)}` : '–'}`)].join('\n');
		const html = deviationBars('figure-38', "Figure 38: identity 3H deviation from its region's mean", data.bars.map((b) => ({label: `${b.region} · ${b.label}`, value: b.deviation, n: b.n, seeds: b.seeds, small: b.small, p: b.p})), {x: "3H deviation from the region's mean"});
		return {what: 'Figure 38', json: data, text, html};
	}
	if (figure === '39') {
		const data = figure39(selection, options);
		const text = [`Figure 39: identity-level 3H means (${data.rows.length} identities, by id); unweighted mean over identities ${fixed(data.unweightedMean)}; range ${data.range ? `${fixed(data.range.range, 3)} ${rangeBracket(data.range)}, permutation p ${pValue(data.range.p)}` : '–'}`, renderTable(data.rows, [
			{header: 'IDENTITY', value: (r) => `${r.identity} (${r.label})`},
			{header: 'N', value: (r) => r.n, align: 'right'},
			{header: 'SEEDS', value: (r) => counted(r.seeds, r.small), align: 'right'},
			{header: '3H', value: (r) => withInterval(r.threeH)},
		])].join('\n');
		const html = dotWhisker('figure-39', 'Figure 39: identity-level 3H means', data.rows.flatMap((r) => intervalOf(r.label, r.threeH, r.n, r.seeds)), {x: '3H (1-5)', reference: data.unweightedMean === null ? undefined : {value: data.unweightedMean, label: `unweighted mean ${fixed(data.unweightedMean)}`}});
		return {what: 'Figure 39', json: data, text, html};
	}
	const data = figure41(selection, options);
	const text = data.map((group) => [`Figure 41: judge score distribution · ${group.language}`, renderTable(group.metrics, [
		{header: 'METRIC', value: (row) => row.metric},
		{header: 'N', value: (row) => counted(row.n, row.small), align: 'right'},
		{header: 'MEAN', value: (row) => withInterval(row.mean)},
		...[1, 2, 3, 4, 5].map((score) => ({header: `%${score}`, value: (row: (typeof group.metrics)[number]) => (row.shares[score - 1]! * 100).toFixed(1), align: 'right' as const})),
	])].join('\n')).join('\n\n');
	const html = stackedScores('figure-41', 'Figure 41: judge score distribution, split by language', data.flatMap((group) => group.metrics.map((row) => ({metric: row.metric, shares: row.shares, n: row.n, group: group.language}))));
	return {what: 'Figure 41', json: data, text, html};
}
