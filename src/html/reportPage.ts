import {METRICS} from '../domain/session.js';
import type {SessionSummary} from '../domain/sessionSummary.js';
import {fixed, percent, percentWithInterval, signed, withInterval} from '../present/numbers.js';
import type {Report, ReportRow} from '../report/aggregate.js';
import type {Estimate} from '../report/bootstrap.js';
import type {MetricDistribution} from '../report/distribution.js';
import type {JudgeHumanReport} from '../report/humanAgreement.js';
import type {PairedRow} from '../report/paired.js';
import {type SetupGroup, flatten} from '../report/setups.js';
import {type Interval, dotWhisker, heatmap, scatter, stackedScores} from './charts.js';
import {esc, jsonScript} from './escape.js';
import {TABLE_SCRIPT, page} from './page.js';

/** Everything the HTML report shows, computed by the same functions as the text and --json reports. */
export type ReportPageData = {
	readonly title: string;
	readonly generatedAt: string;
	readonly selection: string;
	/** Exactly what `report --json` prints for the same flags. */
	readonly json: Record<string, unknown>;
	readonly report: Report;
	readonly byModel: Report;
	readonly regionModel: Report;
	readonly tierModel: Report;
	readonly scores: readonly MetricDistribution[];
	readonly paired: ReadonlyArray<{readonly label: string; readonly unit: string; readonly rows: readonly PairedRow[]}>;
	readonly agreement: (JudgeHumanReport & {readonly ratings: number; readonly raters: number; readonly units: ReadonlyArray<{judge: number; human: number; metric: string}>}) | null;
	readonly episodes: readonly SessionSummary[];
	/** Folder (relative to the report) holding `<session id>.html` viewer pages; null: no links. */
	readonly viewerDir: string | null;
	/** Per setup label, the hash of every prompt file its sessions started with. */
	readonly prompts: Readonly<Record<string, Readonly<Record<string, string>>>>;
};

const sliceLabel = (row: ReportRow, columns: readonly string[]) => columns.map((column) => row.slice[column as keyof ReportRow['slice']] ?? '').join(' · ') || 'all';

const interval = (label: string, estimate: Estimate | null, n: number): Interval[] => (estimate ? [{label, mean: estimate.mean, lo: estimate.lo, hi: estimate.hi, n}] : []);

/** A figure cell: the formatted text, the exact numbers in data attributes (what tests compare with --json). */
function figureCell(estimate: Estimate | null, format: (e: Estimate | null) => string): string {
	return estimate ? `<td class="num" data-mean="${estimate.mean}" data-lo="${estimate.lo}" data-hi="${estimate.hi}" data-sort="${estimate.mean}">${esc(format(estimate))}</td>` : '<td class="num" data-sort="-1">–</td>';
}

function mainTable(report: Report): string {
	const columns = report.columns;
	const head = `<tr>${columns.map((c) => `<th>${esc(c)}</th>`).join('')}<th class="num">N</th><th class="num">SEEDS</th><th class="num">ERR</th><th class="num">3H</th><th class="num">TDQ</th><th class="num">CLEAN</th><th class="num">Δ3H</th>${METRICS.map((m) => `<th class="num">${esc(m.slice(0, 5))}</th>`).join('')}</tr>`;
	const line = (row: ReportRow, overall: boolean) =>
		`<tr data-row="${esc(overall ? 'overall' : JSON.stringify(row.slice))}">${columns.map((c, i) => `<td>${esc(overall ? (i === 0 ? 'all' : '') : (row.slice[c] ?? ''))}</td>`).join('')}<td class="num">${row.n}${row.small ? '<span class="warn" title="fewer than 10 seeds: unreliable interval">*</span>' : ''}</td><td class="num">${row.seeds}</td><td class="num">${row.errors}</td>${figureCell(row.threeH, withInterval)}${figureCell(row.tdq, withInterval)}${figureCell(row.clean, percentWithInterval)}<td class="num">${overall ? '' : esc(signed(row.deviation?.threeH))}</td>${METRICS.map((m) => figureCell(row.metrics[m], (e) => fixed(e?.mean))).join('')}</tr>`;
	return `<table id="main-table"><thead>${head}</thead><tbody>${report.rows.map((row) => line(row, false)).join('')}${report.overall ? line(report.overall, columns.length > 0) : ''}</tbody></table>`;
}

function modelCharts(report: Report): string {
	const rows = report.rows.length > 0 ? report.rows : report.overall ? [report.overall] : [];
	const label = (row: ReportRow) => sliceLabel(row, report.columns);
	return `<div class="grid">${[
		dotWhisker('model-3h', '3H per assistant model (95% interval)', rows.flatMap((row) => interval(label(row), row.threeH, row.n)), {domain: [1, 5]}),
		dotWhisker('model-tdq', 'TDQ per assistant model (95% interval)', rows.flatMap((row) => interval(label(row), row.tdq, row.n)), {domain: [1, 5]}),
		dotWhisker('model-clean', 'Clean rate per assistant model (Wilson 95% interval)', rows.flatMap((row) => interval(label(row), row.clean, row.n)), {domain: [0, 1], percent: true}),
	].join('')}</div>`;
}

/** Heatmap cells from a report by (…, model, other): x = model (and setup), y = the other slice. */
function cells(report: Report, other: 'region' | 'tier') {
	return report.rows.map((row) => ({x: [row.slice.setup, row.slice.model].filter(Boolean).join(' · '), y: row.slice[other] ?? '', value: row.threeH?.mean ?? null, n: row.n}));
}

function pairedSection(paired: ReportPageData['paired']): string {
	const charts = paired
		.filter((contrast) => contrast.rows.some((row) => row.pairs > 0))
		.map((contrast) => {
			const rows = contrast.rows.filter((row) => row.pairs > 0);
			const label = (row: PairedRow) => Object.values(row.slice).join(' · ') || 'all';
			return `<div class="grid">${dotWhisker(`paired-${contrast.label}`, `${contrast.label}: Δ 3H per ${contrast.unit} (paired 95% interval)`, rows.flatMap((row) => interval(label(row), row.delta.threeH, row.pairs)), {zero: true})}${dotWhisker(`paired-clean-${contrast.label}`, `${contrast.label}: Δ clean rate (share points)`, rows.flatMap((row) => interval(label(row), row.delta.clean, row.pairs)), {zero: true, percent: true})}</div>
<table><thead><tr><th>group</th><th class="num">pairs</th><th class="num">unpaired</th><th class="num">same blueprint</th><th class="num">Δ 3H</th><th class="num">Δ TDQ</th><th class="num">Δ clean</th></tr></thead><tbody>${rows
				.map((row) => `<tr><td>${esc(label(row))}</td><td class="num">${row.pairs}</td><td class="num">${row.unpaired}</td><td class="num">${row.sharedBlueprints}</td>${figureCell(row.delta.threeH, (e) => (e ? `${signed(e.mean)} [${fixed(e.lo)}, ${fixed(e.hi)}]` : '–'))}${figureCell(row.delta.tdq, (e) => (e ? `${signed(e.mean)} [${fixed(e.lo)}, ${fixed(e.hi)}]` : '–'))}${figureCell(row.delta.clean, (e) => (e ? `${signed(e.mean * 100)} pp` : '–'))}</tr>`)
				.join('')}</tbody></table>`;
		});
	return charts.length > 0 ? charts.join('') : '<p class="muted">No seed here was run under both variants of a contrast (batch --lang english,native or --mode eval,gold), and no region × domain stratum has both standard and trap seeds.</p>';
}

function agreementSection(agreement: ReportPageData['agreement']): string {
	if (!agreement) return '<p class="muted">No human ratings given (report --html FILE --ratings RATINGS, or ratings made in the TUI).</p>';
	const o = agreement.overall;
	const rows = agreement.metrics
		.map((row) => `<tr><td>${esc(row.metric)}</td><td class="num">${row.n}</td><td class="num">${esc(percent(row.humans.withinOne))}</td><td class="num">${esc(fixed(row.humans.mae, 3))}</td>${figureCell(row.withinOne, percentWithInterval)}${figureCell(row.mae, (e) => fixed(e?.mean, 3))}<td class="num">${esc(fixed(row.kappa))}</td><td class="num">${esc(signed(row.bias))}</td></tr>`)
		.join('');
	const panel = agreement.panel.length > 1 ? `<h3>Judge panel, ranked by MAE</h3><table><thead><tr><th>judge</th><th class="num">% ±1</th><th class="num">MAE</th><th class="num">bias</th><th class="num">units</th></tr></thead><tbody>${agreement.panel.map((row) => `<tr><td>${esc(row.judge)}</td>${figureCell(row.withinOne, percentWithInterval)}${figureCell(row.mae, (e) => fixed(e?.mean, 3))}<td class="num">${esc(signed(row.bias))}</td><td class="num">${row.n}</td></tr>`).join('')}</tbody></table>` : '';
	return `<p>${agreement.ratings} rating(s) by ${agreement.raters} rater(s). Human–human: ${esc(percent(o.humans.withinOne))} within one, MAE ${esc(fixed(o.humans.mae, 3))} (${o.humans.pairs} pairs). Judge vs human mean: ${esc(percentWithInterval(o.judge.withinOne))} within one, MAE ${esc(fixed(o.judge.mae?.mean, 3))}, bias ${esc(signed(o.judge.bias))}.</p>
<div class="grid">${scatter('agreement-scatter', 'Judge score against the human mean (one dot per dialogue and metric)', agreement.units)}</div>
<table><thead><tr><th>metric</th><th class="num">N</th><th class="num">HH ±1</th><th class="num">HH MAE</th><th class="num">judge ±1</th><th class="num">judge MAE</th><th class="num">kappa (QW)</th><th class="num">bias</th></tr></thead><tbody>${rows}</tbody></table>${panel}`;
}

function episodeTable(episodes: readonly SessionSummary[], viewerDir: string | null): string {
	const link = (s: SessionSummary) => (viewerDir ? `<a href="${esc(`${viewerDir}/${encodeURIComponent(s.id)}.html`)}">${esc(s.id)}</a>` : esc(s.id));
	const num = (value: number | null) => `<td class="num" data-sort="${value ?? -1}">${esc(fixed(value))}</td>`;
	const rows = episodes
		.map((s) => `<tr data-id="${esc(s.id)}"><td>${link(s)}</td><td>${esc(s.seedId)}</td><td>${esc(s.personaId)}</td><td>${esc(s.templateId)}</td><td>${esc(s.tier)}</td><td>${esc(s.language)}</td><td>${esc(s.mode)}</td><td>${esc(s.assistantModel)}</td>${num(s.threeH)}${num(s.tdq)}<td>${s.clean === null ? '–' : s.clean ? 'yes' : 'no'}</td><td>${esc(s.errorFlag ?? s.termination ?? s.status)}</td></tr>`)
		.join('');
	return `<p><input type="search" placeholder="Filter: every word must match (e.g. JP native no)" data-filter="episodes"> <span class="muted"><span data-count="episodes">${episodes.length}</span> of ${episodes.length} shown; click a header to sort</span></p>
<table id="episodes" class="sortable"><thead><tr><th>id</th><th>seed</th><th>persona</th><th>template</th><th>tier</th><th>language</th><th>mode</th><th>model</th><th class="num">3H</th><th class="num">TDQ</th><th>clean</th><th>termination</th></tr></thead><tbody>${rows}</tbody></table>`;
}

function provenance(setups: readonly SetupGroup[], notes: readonly string[], prompts: ReportPageData['prompts']): string {
	const one = (group: SetupGroup) => {
		const flat = flatten(group.setup);
		const files = Object.entries(prompts[group.label] ?? {});
		return `<h3>${esc(group.label)} <span class="muted">${group.sessions} session(s)${group.mock.kind === 'none' ? '' : group.mock.kind === 'all' ? ' · offline mock' : ` · partly mock: ${esc(group.mock.roles.join(', '))}`}</span></h3><dl class="kv">${Object.entries(flat).map(([key, value]) => `<dt>${esc(key)}</dt><dd>${esc(value)}</dd>`).join('')}</dl>${files.length > 0 ? `<details><summary>prompt files (${files.length}) and their hashes</summary><dl class="kv">${files.map(([name, hash]) => `<dt>${esc(name)}</dt><dd>${esc(hash)}</dd>`).join('')}</dl></details>` : ''}`;
	};
	return `${setups.map(one).join('')}<h3>Excluded, and why</h3>${notes.length > 0 ? `<ul>${notes.map((note) => `<li>${esc(note)}</li>`).join('')}</ul>` : '<p class="muted">Nothing was left out.</p>'}`;
}

/** The whole report page. */
export function reportPage(data: ReportPageData): string {
	const r = data.report;
	const banner = r.mock ? '<div class="banner">Every session here ran (at least partly) on the offline mock provider: the figures are deterministic filler, not measurements.</div>' : '';
	const body = `<h1>${esc(data.title)}</h1>
<p class="muted">${esc(data.selection)} · generated ${esc(data.generatedAt)} · ${r.totals.n} scored episode(s), ${r.totals.errors} error(s), ${r.totals.unfinished} unfinished · ${esc(r.interval)}</p>
${banner}
<h2>Summary</h2>
${mainTable(r)}
${r.notes.length > 0 ? `<ul class="muted">${r.notes.map((note) => `<li>${esc(note)}</li>`).join('')}</ul>` : ''}
<h2>Per assistant model</h2>
${modelCharts(data.byModel)}
<h2>Region × model and tier × model (3H, N in each cell)</h2>
<div class="grid">${heatmap('region-model', '3H by region and model', cells(data.regionModel, 'region'), {domain: [1, 5]})}${heatmap('tier-model', '3H by tier and model', cells(data.tierModel, 'tier'), {domain: [1, 5]})}</div>
<h2>Judge score distributions</h2>
<div class="grid">${stackedScores('scores', 'Share of each score 1-5, per judge metric', data.scores)}</div>
<h2>Paired deltas</h2>
${pairedSection(data.paired)}
<h2>Judge–human agreement</h2>
${agreementSection(data.agreement)}
<h2>Episodes</h2>
${episodeTable(data.episodes, data.viewerDir)}
<h2>Provenance</h2>
${provenance(r.setups, r.notes, data.prompts)}
${jsonScript('report-data', data.json)}`;
	return page({title: data.title, body, script: TABLE_SCRIPT});
}
