import {METRICS} from '../domain/session.js';
import type {SessionSummary} from '../domain/sessionSummary.js';
import {bracket, fixed, percent, percentWithInterval, pValue, signed, signedWithInterval, withInterval} from '../present/numbers.js';
import {orderedRows, sliceCell} from '../present/report.js';
import type {Report, ReportRow} from '../report/aggregate.js';
import type {Estimate} from '../report/bootstrap.js';
import {SMALL_SLICE} from '../report/bootstrap.js';
import {type CellKey, cellLabel} from '../report/cells.js';
import type {CellDistribution} from '../report/distribution.js';
import type {PairedRow, PairedTable} from '../report/paired.js';
import {type SetupGroup, flatten} from '../report/setups.js';
import {REGION_CODES} from '../domain/universe.js';
import type {AgreementData} from '../report/humanAgreement.js';
import {type Interval, dotWhisker, heatmap, scatter, stackedScores} from './charts.js';
import {esc, jsonScript} from './escape.js';
import {FIGURE_SCRIPT, TABLE_SCRIPT, page} from './page.js';

/** Everything the HTML report shows, computed by the same functions (and cells) as the text and --json reports. */
export type ReportPageData = {
	readonly title: string;
	readonly generatedAt: string;
	readonly selection: string;
	/** Exactly what `report --json` prints for the same flags. */
	readonly json: Record<string, unknown>;
	readonly report: Report;
	/** One row per cell (setup · assistant · language · mode · judge, as they vary). */
	readonly byCell: Report;
	readonly regionCell: Report;
	readonly tierCell: Report;
	readonly scores: readonly CellDistribution[];
	/** The cell keys that vary (what every chart label names). */
	readonly varying: readonly CellKey[];
	readonly paired: ReadonlyArray<PairedTable>;
	readonly agreement: AgreementData | null;
	readonly episodes: readonly SessionSummary[];
	/** Folder (relative to the report) holding `<session id>.html` viewer pages; null: no links. */
	readonly viewerDir: string | null;
	/** Per setup label, the hash of every prompt file its sessions started with. */
	readonly prompts: Readonly<Record<string, Readonly<Record<string, string>>>>;
	/** Each counted session's cell, named by the keys that vary. */
	readonly cellOf: Readonly<Record<string, string>>;
	/** Per setup label, the assistants, judges, languages and modes it holds. */
	readonly holds: Readonly<Record<string, {readonly assistants: readonly string[]; readonly judges: readonly string[]; readonly languages: readonly string[]; readonly modes: readonly string[]}>>;
};

const interval = (label: string, estimate: Estimate | null, extra: {n: number; seeds: number; small: boolean; series?: string}): Interval[] => (estimate ? [{label, mean: estimate.mean, lo: estimate.lo, hi: estimate.hi, na: estimate.na, ...extra}] : []);

/** A figure cell: the formatted text (interval on its own line), the exact numbers in data attributes (what tests compare with --json). */
function figureCell(estimate: Estimate | null, format: (e: Estimate) => {main: string; ci: string}): string {
	if (!estimate) return '<td class="num" data-sort="-1">–</td>';
	const {main, ci} = format(estimate);
	return `<td class="num" data-mean="${estimate.mean}" data-lo="${estimate.lo ?? ''}" data-hi="${estimate.hi ?? ''}" data-na="${esc(estimate.na ?? '')}" data-sort="${estimate.mean}">${esc(main)} <span class="ci">${esc(ci)}</span></td>`;
}
const meanCell = (digits = 2) => (e: Estimate) => ({main: fixed(e.mean, digits), ci: bracket(e, (v) => fixed(v, digits))});
const shareCell = (e: Estimate) => ({main: percent(e.mean), ci: bracket(e, (v) => String(Math.round(v * 100)))});
const deltaCell = (e: Estimate) => ({main: signed(e.mean), ci: bracket(e, (v) => fixed(v))});
const pointsCell = (e: Estimate) => ({main: `${signed(e.mean * 100, 1)} pp`, ci: bracket(e, (v) => fixed(v * 100, 1))});

const small = (row: {small: boolean}) => (row.small ? `<span class="warn" title="fewer than ${SMALL_SLICE} seeds: unreliable interval">*</span>` : '');

function mainTable(report: Report): string {
	const columns = report.columns;
	const deviation = report.comparisons.deviations > 0;
	const head = `<tr>${columns.map((c) => `<th>${esc(c)}</th>`).join('')}<th class="num">N</th><th class="num">SEEDS</th><th class="num">ERR</th><th class="num">3H</th><th class="num">TDQ</th><th class="num">CLEAN</th>${deviation ? '<th class="num">Δ3H</th><th class="num">p (Holm)</th>' : ''}</tr>`;
	const line = ({row, kind}: {row: ReportRow; kind: 'row' | 'cell' | 'overall'}) =>
		`<tr data-row="${esc(kind === 'overall' ? 'overall' : JSON.stringify(row.slice))}" data-kind="${kind}">${columns.map((c) => `<td>${esc(sliceCell(report, row, c, kind))}</td>`).join('')}<td class="num">${row.n}${small(row)}</td><td class="num">${row.seeds}</td><td class="num">${row.errors}</td>${figureCell(row.threeH, meanCell())}${figureCell(row.tdq, meanCell())}${figureCell(row.clean, shareCell)}${deviation ? `<td class="num">${kind === 'row' ? esc(signed(row.deviation?.threeH)) : ''}</td><td class="num">${kind === 'row' ? esc(pValue(row.deviation?.pHolm)) : ''}</td>` : ''}</tr>`;
	const rows = orderedRows(report);
	const metrics = `<details><summary>Per judge metric (the six scores' means with their intervals)</summary><div class="scroll"><table><thead><tr>${columns.map((c) => `<th>${esc(c)}</th>`).join('')}${METRICS.map((m) => `<th class="num">${esc(m)}</th>`).join('')}</tr></thead><tbody>${rows.map(({row, kind}) => `<tr>${columns.map((c) => `<td>${esc(sliceCell(report, row, c, kind))}</td>`).join('')}${METRICS.map((m) => figureCell(row.metrics[m], meanCell())).join('')}</tr>`).join('')}</tbody></table></div></details>`;
	return `<table id="main-table"><thead>${head}</thead><tbody>${rows.map(line).join('')}</tbody></table>${metrics}`;
}

/** A chart label of a cell row: its cell keys and slices, as the table names them. */
const rowLabel = (report: Report, row: ReportRow) => report.columns.map((column) => row.labels[column] ?? row.slice[column] ?? '').filter(Boolean).join(' · ') || 'all';

function cellCharts(report: Report): string {
	const rows = report.rows.length > 0 ? report.rows : report.overall ? [report.overall] : [];
	const extra = (row: ReportRow) => ({n: row.n, seeds: row.seeds, small: row.small});
	const label = (row: ReportRow) => rowLabel(report, row);
	const note = report.columns.length > 0 ? `one row per cell (${report.columns.join(' · ')}): nothing is pooled` : undefined;
	return `<div class="grid">${[
		dotWhisker('cell-3h', '3H per cell (95% seed-cluster interval)', rows.flatMap((row) => interval(label(row), row.threeH, extra(row))), {x: '3H (mean of helpfulness, honesty, harmlessness; 1-5)', domain: [1, 5], note}),
		dotWhisker('cell-tdq', 'TDQ per cell (95% seed-cluster interval)', rows.flatMap((row) => interval(label(row), row.tdq, extra(row))), {x: 'TDQ (mean of naturalness, plausibility, typicality; 1-5)', domain: [1, 5], note}),
		dotWhisker('cell-clean', 'Clean rate per cell (Wilson 95% interval)', rows.flatMap((row) => interval(label(row), row.clean, extra(row))), {x: 'clean rate (share of episodes with no tripwire or taboo violated)', domain: [0, 1], percent: true, note}),
	].join('')}</div>`;
}

/** Heatmap cells from a report by (cell keys…, other): x = the cell, y = the other slice. */
function heatCells(report: Report, other: 'region' | 'tier') {
	return report.rows.map((row) => ({x: report.cellColumns.map((key) => row.slice[key] ?? '').join(' · ') || 'all', y: row.slice[other] ?? '', value: row.threeH?.mean ?? null, n: row.n, seeds: row.seeds, small: row.small}));
}

function scoreCharts(scores: readonly CellDistribution[], varying: readonly CellKey[]): string {
	const rows = scores.flatMap(({cell, metrics}) => metrics.map((row) => ({metric: row.metric, shares: row.shares, n: row.n, group: varying.length > 0 ? cellLabel(cell, varying) : undefined})));
	return stackedScores('scores', varying.length > 0 ? `Share of each score 1-5, per judge metric and cell (${varying.join(' · ')})` : 'Share of each score 1-5, per judge metric', rows);
}

function pairedSection(paired: ReportPageData['paired']): string {
	const parts = paired
		.filter((table) => table.rows.some((row) => row.pairs > 0))
		.map((table) => {
			const rows = table.rows.filter((row) => row.pairs > 0);
			const label = (row: PairedRow) => Object.values(row.slice).join(' · ') || 'all';
			const extra = (row: PairedRow) => ({n: row.pairs, seeds: row.seeds, small: row.small});
			const smallRows = rows.filter((row) => row.small).length;
			const unbalanced = rows.reduce((sum, row) => sum + row.unbalanced, 0);
			return `<h3>${esc(table.label)} <span class="muted">per ${esc(table.unit)}; ${table.comparisons} comparison(s), p Holm-adjusted</span></h3><div class="grid">${dotWhisker(`paired-${table.label}`, `${table.label}: Δ 3H per ${table.unit} (95% seed-cluster interval)`, rows.flatMap((row) => interval(label(row), row.delta.threeH, extra(row))), {x: `Δ 3H (${table.label})`, zero: true})}${dotWhisker(`paired-clean-${table.label}`, `${table.label}: Δ clean rate`, rows.flatMap((row) => interval(label(row), row.delta.clean, extra(row))), {x: `Δ clean rate (${table.label}, share points)`, zero: true, percent: true})}</div>
<table><thead><tr><th>group</th><th class="num">pairs</th><th class="num">seeds</th><th class="num">unpaired</th><th class="num">unbalanced</th>${table.contrast === 'language' || table.contrast === 'mode' ? '<th class="num">same blueprint</th>' : ''}<th class="num">Δ 3H</th><th class="num">p (Holm)</th><th class="num">Δ TDQ</th><th class="num">Δ clean</th></tr></thead><tbody>${rows
				.map((row) => `<tr><td>${esc(label(row))}</td><td class="num">${row.pairs}${small(row)}</td><td class="num">${row.seeds}</td><td class="num">${row.unpaired}</td><td class="num">${row.unbalanced}</td>${table.contrast === 'language' || table.contrast === 'mode' ? `<td class="num">${row.sharedBlueprints}</td>` : ''}${figureCell(row.delta.threeH, deltaCell)}<td class="num">${esc(pValue(row.pHolm))}</td>${figureCell(row.delta.tdq, deltaCell)}${figureCell(row.delta.clean, pointsCell)}</tr>`)
				.join('')}</tbody></table>${smallRows > 0 ? `<p class="muted">* ${smallRows} row(s) rest on fewer than ${SMALL_SLICE} pairs: their intervals are unreliable.</p>` : ''}${unbalanced > 0 ? `<p class="muted">${unbalanced} pair(s) have more episodes on one side than the other; each pair counts once, its sides averaged.</p>` : ''}`;
		});
	return parts.length > 0 ? parts.join('') : '<p class="muted">No seed here was run under both variants of a contrast (batch --lang english,native or --mode eval,gold), no region × domain stratum has both standard and trap seeds, and no dialogue was re-judged.</p>';
}

function agreementSection(agreement: AgreementData | null): string {
	if (!agreement) return '<p class="muted">No human ratings given (report --html FILE --ratings RATINGS, or ratings made in the TUI).</p>';
	const head = `<p>${agreement.ratings} rating(s) by ${agreement.raters} rater(s) of ${agreement.sessions} dialogue(s); intervals: seed-cluster bootstrap (${agreement.resamples} resamples) and Wilson on the effective number of seeds for shares; * fewer than ${SMALL_SLICE} seeds.</p>`;
	const blocks = agreement.cells.map((cell, index) => {
		const o = cell.overall;
		const name = agreement.keys.length > 0 ? cellLabel(cell.cell, agreement.keys) : '';
		const rows = cell.metrics
			.map((row) => `<tr><td>${esc(row.metric)}</td><td class="num">${row.n}${small(row)}</td><td class="num">${row.seeds}</td><td class="num">${esc(percent(row.humans.withinOne))}</td><td class="num">${esc(fixed(row.humans.mae, 3))}</td>${figureCell(row.withinOne, shareCell)}${figureCell(row.mae, meanCell(3))}${figureCell(row.kappa, meanCell())}${figureCell(row.bias, (e) => ({main: signed(e.mean, 3), ci: bracket(e, (v) => fixed(v, 3))}))}</tr>`)
			.join('');
		const slice = (title: string, list: typeof cell.regions) => `<h4>${esc(title)}</h4><table><thead><tr><th>${esc(title)}</th><th class="num">units</th><th class="num">dialogues</th><th class="num">seeds</th><th class="num">HH ±1</th><th class="num">HH MAE</th><th class="num">judge ±1</th><th class="num">judge MAE</th></tr></thead><tbody>${list.map((row) => `<tr><td>${esc(row.value)}</td><td class="num">${row.judge.n}${small(row.judge)}</td><td class="num">${row.judge.dialogues}</td><td class="num">${row.judge.seeds}</td><td class="num">${esc(percent(row.humans.withinOne))}</td><td class="num">${esc(fixed(row.humans.mae, 3))}</td>${figureCell(row.judge.withinOne, shareCell)}${figureCell(row.judge.mae, meanCell(3))}</tr>`).join('')}</tbody></table>`;
		const panel = cell.panel.length > 1 ? `<h4>Judge panel, ranked by MAE</h4><table><thead><tr><th>judge</th><th class="num">% ±1</th><th class="num">MAE</th><th class="num">bias</th><th class="num">units</th><th class="num">seeds</th></tr></thead><tbody>${cell.panel.map((row) => `<tr><td>${esc(row.judge)}</td>${figureCell(row.withinOne, shareCell)}${figureCell(row.mae, meanCell(3))}${figureCell(row.bias, (e) => ({main: signed(e.mean, 3), ci: bracket(e, (v) => fixed(v, 3))}))}<td class="num">${row.n}${small(row)}</td><td class="num">${row.seeds}</td></tr>`).join('')}</tbody></table>` : '';
		return `${name ? `<h3>${esc(name)}</h3>` : ''}<p>Human–human: ${esc(percent(o.humans.withinOne))} within one, MAE ${esc(fixed(o.humans.mae, 3))} (${o.humans.pairs} pairs). Judge vs human mean: ${esc(percentWithInterval(o.judge.withinOne))} within one, MAE ${esc(withInterval(o.judge.mae, 3))}, bias ${esc(signedWithInterval(o.judge.bias, 3))}; ${o.judge.n} units, ${o.judge.seeds} seed(s)${o.judge.small ? ' (fewer than 10: unreliable)' : ''}.</p>
<div class="grid">${scatter(`agreement-scatter${index === 0 ? '' : `-${index + 1}`}`, `Judge score against the human mean (one dot per dialogue and metric)${name ? ` · ${name}` : ''}`, cell.units).replace('class="chart"', 'class="chart square"')}</div>
<table><thead><tr><th>metric</th><th class="num">units</th><th class="num">seeds</th><th class="num">HH ±1</th><th class="num">HH MAE</th><th class="num">judge ±1</th><th class="num">judge MAE</th><th class="num">kappa (QW)</th><th class="num">bias</th></tr></thead><tbody>${rows}</tbody></table>${slice('region', cell.regions)}${slice('language', cell.languages)}${panel}`;
	});
	return head + blocks.join('');
}

/** Ids and seeds break only between their tokens (after : and .), never inside one. */
const tokens = (text: string) => esc(text).replace(/([:.])/g, '$1<wbr>');

function episodeTable(episodes: readonly SessionSummary[], viewerDir: string | null, cellOf: (s: SessionSummary) => string): string {
	const link = (s: SessionSummary) => (viewerDir ? `<a href="${esc(`${viewerDir}/${encodeURIComponent(s.id)}.html`)}">${esc(s.id)}</a>` : esc(s.id));
	const num = (value: number | null) => `<td class="num" data-sort="${value ?? -1}">${esc(fixed(value))}</td>`;
	const varies = (pick: (s: SessionSummary) => string) => new Set(episodes.map(pick)).size > 1;
	// A column that holds one value for every episode says nothing: it is stated once above the table.
	const optional = [
		{name: 'cell', pick: cellOf},
		{name: 'tier', pick: (s: SessionSummary) => s.tier},
		{name: 'trial', pick: (s: SessionSummary) => String(s.trial)},
	].filter((column) => varies(column.pick));
	const constant = [['cell', cellOf], ['tier', (s: SessionSummary) => s.tier]].filter(([, pick]) => !varies(pick as (s: SessionSummary) => string)).map(([name, pick]) => `${name as string} ${episodes[0] ? (pick as (s: SessionSummary) => string)(episodes[0]) : ''}`);
	const rows = episodes
		.map((s) => `<tr data-id="${esc(s.id)}"><td class="id">${link(s)}</td><td>${tokens(s.seedId)}</td>${optional.map((column) => `<td>${esc(column.pick(s))}</td>`).join('')}${num(s.threeH)}${num(s.tdq)}<td>${s.clean === null ? '–' : s.clean ? 'yes' : 'no'}</td><td>${tokens(s.errorFlag ?? s.termination ?? s.status)}</td></tr>`)
		.join('');
	return `<p><input type="search" placeholder="Filter: every word must match (e.g. JP native no)" data-filter="episodes"> <span class="muted"><span data-count="episodes">${episodes.length}</span> of ${episodes.length} shown; click a header to sort (the arrow shows the direction)${constant.length > 0 ? `; every episode: ${esc(constant.join(', '))}` : ''}</span></p>
<table id="episodes" class="sortable"><thead><tr><th>id</th><th>seed (persona:template)</th>${optional.map((column) => `<th>${esc(column.name)}</th>`).join('')}<th class="num">3H</th><th class="num">TDQ</th><th>clean</th><th>ending</th></tr></thead><tbody>${rows}</tbody></table>`;
}

function provenance(setups: readonly SetupGroup[], notes: readonly string[], data: ReportPageData): string {
	const one = (group: SetupGroup) => {
		const flat = flatten(group.setup);
		const files = Object.entries(data.prompts[group.label] ?? {});
		const holds = data.holds[group.label];
		return `<h3>${esc(group.label)} <span class="muted">${group.sessions} session(s)${group.mock.kind === 'none' ? '' : group.mock.kind === 'all' ? ' · offline mock' : ` · partly mock: ${esc(group.mock.roles.join(', '))}`}</span></h3><dl class="kv">${holds ? `<dt>assistant model(s)</dt><dd>${esc(holds.assistants.join('; '))}</dd><dt>judge(s)</dt><dd>${esc(holds.judges.join('; '))}</dd><dt>languages</dt><dd>${esc(holds.languages.join(', '))}</dd><dt>modes</dt><dd>${esc(holds.modes.join(', '))}</dd>` : ''}${Object.entries(flat).map(([key, value]) => `<dt>${esc(key)}</dt><dd>${esc(value)}</dd>`).join('')}</dl>${files.length > 0 ? `<details><summary>prompt files (${files.length}) and their hashes</summary><dl class="kv">${files.map(([name, hash]) => `<dt>${esc(name)}</dt><dd>${esc(hash)}</dd>`).join('')}</dl></details>` : ''}`;
	};
	const excluded = notes.filter((note) => /left out|ignored|not counted|missing or unreadable/.test(note));
	return `${setups.map(one).join('')}<h3>Excluded, and why</h3>${excluded.length > 0 ? `<ul>${excluded.map((note) => `<li>${esc(note)}</li>`).join('')}</ul>` : '<p class="muted">Nothing was left out.</p>'}`;
}

/** The whole report page. */
export function reportPage(data: ReportPageData): string {
	const r = data.report;
	const banner = r.mockNotice ? `<div class="banner">${esc(r.mockNotice)}</div>` : '';
	const cellOf = (s: SessionSummary) => data.cellOf[s.id] ?? '';
	const otherNotes = r.notes.filter((note) => !/offline mock provider/.test(note));
	const smallRows = r.small.rows;
	const body = `<h1>${esc(data.title)}</h1>
<p class="muted">${esc(data.selection)} · generated ${esc(data.generatedAt)} · ${r.totals.n} scored episode(s) (${r.totals.dialogues} dialogue(s)), ${r.totals.errors} error(s), ${r.totals.unfinished} unfinished · ${esc(r.interval)} · ${r.resamples} resamples, seed "${esc(r.seed)}"</p>
${banner}
<h2>Summary</h2>
<div class="scroll">${mainTable(r)}</div>
${smallRows > 0 ? `<p class="muted">* ${smallRows} row(s) rest on fewer than ${SMALL_SLICE} seeds: their intervals are unreliable.</p>` : ''}
${r.comparisons.deviations > 0 ? `<p class="muted">Δ3H: the row's 3H minus its parent's; p: permutation, Holm-adjusted over the ${r.comparisons.deviations} comparisons in this table.</p>` : ''}
${otherNotes.length > 0 ? `<ul class="muted">${otherNotes.map((note) => `<li>${esc(note)}</li>`).join('')}</ul>` : ''}
<h2>Per cell</h2>
${cellCharts(data.byCell)}
<h2>Region × cell and tier × cell (3H)</h2>
<div class="grid">${heatmap('region-cell', '3H by region and cell', heatCells(data.regionCell, 'region'), {x: data.varying.length > 0 ? `cell (${data.varying.join(' · ')})` : 'all sessions', y: 'region', value: '3H (1-5)', domain: [1, 5], allY: REGION_CODES})}${heatmap('tier-cell', '3H by tier and cell', heatCells(data.tierCell, 'tier'), {x: data.varying.length > 0 ? `cell (${data.varying.join(' · ')})` : 'all sessions', y: 'tier', value: '3H (1-5)', domain: [1, 5], allY: ['standard', 'contextual', 'normative']})}</div>
<h2>Judge score distributions</h2>
<div class="grid">${scoreCharts(data.scores, data.varying)}</div>
<h2>Paired deltas</h2>
${pairedSection(data.paired)}
<h2>Judge–human agreement</h2>
${agreementSection(data.agreement)}
<h2>Episodes</h2>
<div class="scroll">${episodeTable(data.episodes, data.viewerDir, cellOf)}</div>
<h2>Provenance</h2>
${provenance(r.setups, r.notes, data)}
${jsonScript('report-data', data.json)}`;
	return page({title: data.title, body, script: TABLE_SCRIPT + FIGURE_SCRIPT});
}

