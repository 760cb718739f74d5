import * as Plot from '@observablehq/plot';
import {parseHTML} from 'linkedom';
import {csv} from '../present/report.js';
import {esc} from './escape.js';

/*
 * Charts as inline SVG, rendered at build time by Observable Plot on a server-side DOM (linkedom),
 * so a page needs no script and no network to show them. Chosen by measurement (npm 0.6.17 /
 * 0.18.15 against vega 6.4 + vega-lite 6.4 headless toSVG, on this 2-core machine, the four chart
 * kinds of the report over 1,000 episodes): Plot wrote 69 KB of SVG in 0.3 s after a 1.8 s import,
 * Vega 331 KB in 1.3-1.4 s after a 1.4 s import, so Plot's pages are ~5x smaller and build ~4x faster.
 *
 * Every chart is fit for a paper draft: titled axes, a legend, ticks at 12 px, drawn at a paper width
 * and scaled to the page (the SVG keeps its viewBox; CSS sets width 100%), a degenerate interval drawn
 * as a hollow point marked "n/a" (never a bar), and SVG, PNG and CSV downloads of exactly what is
 * drawn (the page script makes the PNG from the SVG).
 */

const {document} = parseHTML('<!doctype html><html><head></head><body></body></html>');

/** The width charts are drawn at; the page scales them to fit. */
const WIDTH = 720;
const FONT = {fontSize: '12px', fontFamily: 'system-ui, sans-serif', overflow: 'visible'};
const SCORE_DOMAIN = ['1', '2', '3', '4', '5'];
const SCORE_COLOURS = ['#d73027', '#fc8d59', '#fee08b', '#91cf60', '#1a9850'];
const COLORS = ['#4269d0', '#efb118', '#ff725c', '#6cc5b0', '#3ca951', '#ff8ab7', '#a463f2', '#97bbf5', '#9c6b4e', '#9498a0'];

/** A legend drawn into the chart's SVG (so the SVG and PNG downloads carry it): colour swatches or a ramp. */
type Key = {readonly kind: 'swatches'; readonly label: string; readonly items: ReadonlyArray<{readonly label: string; readonly colour: string}>} | {readonly kind: 'ramp'; readonly label: string; readonly domain: [number, number]; readonly colour: (t: number) => string};

/**
 * One SVG of the chart with its legend above it: Plot's own legends are HTML (swatches) or a canvas
 * (ramps, which a server-side DOM cannot draw), so the legend is drawn here as SVG and the plot nested
 * under it, one file to paste.
 */
function compose(chart: Element | {outerHTML: string}, key: Key | null): string {
	const svg = chart as unknown as {outerHTML: string; getAttribute?: (name: string) => string | null};
	const width = Number(svg.getAttribute?.('width') ?? WIDTH);
	const height = Number(svg.getAttribute?.('height') ?? 400);
	if (!key) return svg.outerHTML;
	let legend = '';
	let top = 0;
	if (key.kind === 'swatches') {
		let x = 10;
		let y = 16;
		const parts = [`<text x="10" y="${y}" font-weight="600">${esc(key.label)}</text>`];
		x += 8 + key.label.length * 7;
		for (const item of key.items) {
			const w = 22 + item.label.length * 6.6;
			if (x + w > width - 10) {
				x = 10;
				y += 20;
			}
			parts.push(`<rect x="${x}" y="${y - 10}" width="12" height="12" fill="${esc(item.colour)}"/><text x="${x + 16}" y="${y}">${esc(item.label)}</text>`);
			x += w + 10;
		}
		legend = parts.join('');
		top = y + 12;
	} else {
		const stops = Array.from({length: 11}, (_, i) => `<stop offset="${i * 10}%" stop-color="${esc(key.colour(i / 10))}"/>`).join('');
		const id = `ramp-${Math.abs([...key.label].reduce((h, c) => (h * 31 + c.charCodeAt(0)) | 0, 7))}`;
		const ticks = [key.domain[0], (key.domain[0] + key.domain[1]) / 2, key.domain[1]].map((value, i) => `<text x="${10 + i * 110}" y="44" text-anchor="${i === 0 ? 'start' : i === 2 ? 'end' : 'middle'}">${esc(String(Math.round(value * 100) / 100))}</text>`).join('');
		legend = `<defs><linearGradient id="${id}">${stops}</linearGradient></defs><text x="10" y="13" font-weight="600">${esc(key.label)}</text><rect x="10" y="19" width="220" height="12" fill="url(#${id})" stroke="#999" stroke-width="0.5"/>${ticks}`;
		top = 54;
	}
	const inner = svg.outerHTML.replace(/^<svg/, `<svg x="0" y="${top}"`);
	return `<svg xmlns="http://www.w3.org/2000/svg" width="${width}" height="${height + top}" viewBox="0 0 ${width} ${height + top}" role="img" font-family="system-ui, sans-serif" font-size="12"><g class="chart-legend" aria-label="legend">${legend}</g>${inner}</svg>`;
}

/** One chart in a captioned figure, with its downloads; `name` lets tests, styles and file names find it. */
function figure(name: string, title: string, chart: {outerHTML: string}, data: ReadonlyArray<readonly (string | number | null)[]>, note?: string, legend?: string, key: Key | null = null): string {
	const file = name.replace(/[^A-Za-z0-9._-]+/g, '-').replace(/^-+|-+$/g, '') || 'figure';
	return `<figure class="chart" data-chart="${esc(name)}" data-file="${esc(file)}"><figcaption>${esc(title)}${note ? ` <span class="muted">${esc(note)}</span>` : ''}</figcaption>${compose(chart, key)}${legend ? `<p class="legend muted">${legend}</p>` : ''}<p class="downloads" data-csv="${esc(csv(data))}">Download <button type="button" data-download="svg">SVG</button> <button type="button" data-download="png">PNG</button> <button type="button" data-download="csv">CSV</button></p></figure>`;
}

const empty = (name: string, title: string, why: string) => `<figure class="chart empty" data-chart="${esc(name)}"><figcaption>${esc(title)}</figcaption><p class="muted">${esc(why)}</p></figure>`;

/** One estimate to draw: lo/hi null (with `na`) when no interval could be made. */
export type Interval = {readonly label: string; readonly mean: number; readonly lo: number | null; readonly hi: number | null; readonly n: number; readonly seeds?: number; readonly na?: string | null; readonly series?: string; readonly small?: boolean};

const rounded = (value: number | null, digits = 3) => (value === null ? null : Math.round(value * 10 ** digits) / 10 ** digits);
const seriesDomain = (rows: ReadonlyArray<{series?: string}>) => [...new Set(rows.map((row) => row.series ?? ''))];

/**
 * Dot-and-whisker: one row per label, the mean as a dot, the interval as a rule; a row without an
 * interval is a hollow dot with "n/a (reason)" beside it. Rows on fewer than 10 seeds carry a *.
 */
export function dotWhisker(name: string, title: string, rows: readonly Interval[], options: {x: string; domain?: [number, number]; zero?: boolean; percent?: boolean; note?: string; reference?: {value: number; label: string}; seriesLabel?: string} = {x: 'value'}): string {
	if (rows.length === 0) return empty(name, title, 'No data for this chart.');
	const labelled = rows.map((row) => ({...row, label: `${row.label}${row.small ? '*' : ''} (n=${row.n}${row.seeds !== undefined ? `, ${row.seeds} seed${row.seeds === 1 ? '' : 's'}` : ''})`}));
	const longest = Math.max(...labelled.map((row) => row.label.length));
	const withInterval = labelled.filter((row) => row.lo !== null && row.hi !== null);
	const without = labelled.filter((row) => row.lo === null || row.hi === null);
	const series = seriesDomain(rows);
	const colour = series.length > 1 ? {domain: series, range: COLORS} : undefined;
	const fill = series.length > 1 ? 'series' : COLORS[0]!;
	const format = options.percent ? (value: number) => `${Math.round(value * 100)}%` : (value: number) => value.toFixed(2);
	const chart = Plot.plot({
		document,
		width: WIDTH,
		height: 70 + 28 * rows.length,
		marginLeft: Math.min(340, 16 + longest * 6.8),
		marginRight: without.length > 0 ? 16 + Math.max(...without.map((row) => `n/a: ${row.na ?? 'not estimable'}`.length)) * 6.6 : 24,
		marginBottom: 44,
		style: FONT,
		x: {domain: options.domain, inset: options.domain ? 0 : 18, nice: !options.domain, grid: true, tickFormat: options.percent ? '%' : undefined, label: options.x, labelAnchor: 'center', labelArrow: 'none'},
		y: {label: null, domain: labelled.map((row) => row.label)},
		color: colour,
		marks: [
			...(options.zero ? [Plot.ruleX([0], {stroke: '#666'})] : []),
			...(options.reference ? [Plot.ruleX([options.reference.value], {stroke: '#666', strokeDasharray: '5 4'}), Plot.text([options.reference], {x: 'value', text: 'label', frameAnchor: 'top', dy: -4, fill: '#444'})] : []),
			Plot.ruleY(withInterval, {y: 'label', x1: 'lo', x2: 'hi', stroke: fill, strokeWidth: 2.5}),
			Plot.dot(withInterval, {y: 'label', x: 'mean', fill, r: 4.5, title: (row: Interval) => `${row.label}: ${format(row.mean)} [${format(row.lo!)}, ${format(row.hi!)}]`}),
			Plot.dot(without, {y: 'label', x: 'mean', stroke: fill, fill: 'white', strokeWidth: 2, r: 4.5, title: (row: Interval) => `${row.label}: ${format(row.mean)}, no interval: ${row.na ?? 'not estimable'}`}),
			Plot.text(without, {y: 'label', x: 'mean', text: (row: Interval) => `n/a: ${row.na ?? 'not estimable'}`, dx: 10, textAnchor: 'start', fill: '#92400e'}),
		],
	});
	const data = [['label', 'series', 'n', 'seeds', 'mean', 'lo', 'hi', 'na'], ...rows.map((row) => [row.label, row.series ?? '', row.n, row.seeds ?? null, rounded(row.mean), rounded(row.lo), rounded(row.hi), row.na ?? ''])];
	const legend = `Dot: the ${options.percent ? 'share' : 'mean'}; bar: its 95% interval; hollow dot marked n/a: no interval could be made (the reason is given); * fewer than 10 seeds.`;
	return figure(name, title, chart, data, options.note, legend, series.length > 1 ? {kind: 'swatches', label: options.seriesLabel ?? 'series', items: series.map((label, i) => ({label, colour: COLORS[i % COLORS.length]!}))} : null);
}

export type Cell = {readonly x: string; readonly y: string; readonly value: number | null; readonly n: number; readonly seeds: number; readonly small: boolean};

/**
 * A heatmap of a mean per (x, y), with the mean, N and seeds written in each cell and a colour legend;
 * `allY` lists every row the chart should have, so values not in the sample show as such.
 */
export function heatmap(name: string, title: string, cells: readonly Cell[], options: {x: string; y: string; value: string; domain: [number, number]; allY?: readonly string[]}): string {
	const scored = cells.filter((cell) => cell.value !== null);
	if (scored.length === 0) return empty(name, title, 'No scored episodes for this chart.');
	const xs = [...new Set(cells.map((cell) => cell.x))];
	const ys = [...new Set([...(options.allY ?? []), ...cells.map((cell) => cell.y)])].sort();
	const missing = xs.flatMap((x) => ys.filter((y) => !scored.some((cell) => cell.x === x && cell.y === y)).map((y) => ({x, y})));
	const middle = (options.domain[0] + options.domain[1]) / 2;
	const chart = Plot.plot({
		document,
		width: Math.min(WIDTH, 160 + 150 * xs.length),
		height: 110 + 34 * ys.length,
		marginLeft: 130,
		marginBottom: 56,
		marginTop: 12,
		padding: 0.06,
		style: FONT,
		x: {label: options.x, domain: xs, axis: 'bottom', labelAnchor: 'center', labelArrow: 'none', tickRotate: xs.some((x) => x.length > 18) ? -12 : 0},
		y: {label: options.y, domain: ys, labelArrow: 'none'},
		color: {type: 'linear', scheme: 'blues', domain: options.domain, legend: false},
		marks: [
			Plot.cell(missing, {x: 'x', y: 'y', fill: '#f3f4f6', stroke: '#d1d5db', strokeDasharray: '3 3'}),
			Plot.text(missing, {x: 'x', y: 'y', text: () => 'not in sample', fill: '#6b7280', fontStyle: 'italic'}),
			Plot.cell(scored, {x: 'x', y: 'y', fill: 'value', title: (cell: Cell) => `${cell.y} × ${cell.x}: ${cell.value!.toFixed(2)} (n=${cell.n}, ${cell.seeds} seed(s))`}),
			Plot.text(scored, {x: 'x', y: 'y', text: (cell: Cell) => `${cell.value!.toFixed(2)}${cell.small ? '*' : ''}\nn=${cell.n} · ${cell.seeds} seed${cell.seeds === 1 ? '' : 's'}`, fill: (cell: Cell) => (cell.value! > middle ? 'white' : 'black'), lineHeight: 1.15}),
		],
	});
	const ramp = Plot.scale({color: {type: 'linear', scheme: 'blues', domain: [0, 1]}});
	const data = [['x', 'y', 'value', 'n', 'seeds', 'small'], ...cells.map((cell) => [cell.x, cell.y, rounded(cell.value), cell.n, cell.seeds, cell.small ? 'yes' : 'no']), ...missing.map((cell) => [cell.x, cell.y, null, 0, 0, 'not in sample'])];
	return figure(name, title, chart, data, undefined, `Colour: ${esc(options.value)}; each cell: mean, episodes (n) and seeds; * fewer than 10 seeds; dashed grey: no episode of this ${esc(options.y)} in the sample.`, {kind: 'ramp', label: options.value, domain: options.domain, colour: (t) => String(ramp.apply(t))});
}

export type ScoreRow = {readonly metric: string; readonly shares: readonly number[]; readonly n: number; readonly group?: string};

/** Stacked 1-5 bars: one bar per metric (and group, e.g. language, as facets), the share of each score. */
export function stackedScores(name: string, title: string, rows: readonly ScoreRow[]): string {
	const data = rows.filter((row) => row.n > 0).flatMap((row) => row.shares.map((share, index) => ({metric: row.metric, group: row.group ?? '', score: String(index + 1), share, n: row.n})));
	if (data.length === 0) return empty(name, title, 'No judge scores.');
	const groups = [...new Set(rows.map((row) => row.group ?? ''))];
	const metrics = [...new Set(rows.map((row) => row.metric))];
	const chart = Plot.plot({
		document,
		width: WIDTH,
		height: 80 + 26 * metrics.length * groups.length + 16 * groups.length,
		marginLeft: 110,
		marginRight: groups.length > 1 ? 90 : 20,
		style: FONT,
		x: {tickFormat: '%', label: 'share of scored episodes', labelAnchor: 'center', labelArrow: 'none', domain: [0, 1]},
		y: {label: null, domain: metrics},
		fy: groups.length > 1 ? {label: null, domain: groups} : undefined,
		color: {type: 'ordinal', domain: SCORE_DOMAIN, range: SCORE_COLOURS},
		marks: [Plot.barX(data.filter((d) => d.share > 0), {y: 'metric', fy: groups.length > 1 ? 'group' : undefined, x: 'share', fill: 'score', order: 'score', title: (d: {metric: string; group: string; score: string; share: number; n: number}) => `${d.group ? `${d.group} · ` : ''}${d.metric}: ${d.score} = ${(d.share * 100).toFixed(1)}% of ${d.n}`})],
	});
	const table = [['group', 'metric', 'n', 'share_1', 'share_2', 'share_3', 'share_4', 'share_5'], ...rows.map((row) => [row.group ?? '', row.metric, row.n, ...row.shares.map((share) => rounded(share, 4))])];
	return figure(name, title, chart, table, undefined, 'Each bar: the share of the scored episodes given each score 1-5 by the judge.', {kind: 'swatches', label: 'judge score', items: SCORE_DOMAIN.map((label, i) => ({label, colour: SCORE_COLOURS[i]!}))});
}

/**
 * Judge score against the human mean, one dot per (dialogue, metric), jittered so equal pairs show:
 * square, both axes 1-5 at the same scale, so y = x runs at 45 degrees.
 */
export function scatter(name: string, title: string, points: ReadonlyArray<{readonly judge: number; readonly human: number; readonly metric: string}>): string {
	if (points.length === 0) return empty(name, title, 'No rated units.');
	// A deterministic jitter: the same data draws the same picture.
	const jitter = (index: number, salt: number) => ((((index + salt) * 7919) % 17) / 17 - 0.5) * 0.3;
	const jittered = points.map((point, index) => ({...point, x: point.human + jitter(index, 3) * 0.5, y: point.judge + jitter(index, 0)}));
	const domain: [number, number] = [0.7, 5.3];
	const metrics = [...new Set(points.map((point) => point.metric))];
	const chart = Plot.plot({
		document,
		// The frame is square (equal inner width and height over equal domains), so y = x is at 45 degrees.
		width: 460,
		height: 460 - 50 - 20 + 20 + 46,
		marginLeft: 50,
		marginRight: 20,
		marginTop: 20,
		marginBottom: 46,
		style: FONT,
		x: {domain, label: 'human mean (1-5)', labelAnchor: 'center', labelArrow: 'none', ticks: [1, 2, 3, 4, 5], tickFormat: 'd', grid: true},
		y: {domain, label: 'judge score (1-5)', labelAnchor: 'center', labelArrow: 'none', ticks: [1, 2, 3, 4, 5], tickFormat: 'd', grid: true},
		color: {domain: metrics, range: COLORS},
		marks: [Plot.line([[domain[0], domain[0]], [domain[1], domain[1]]], {stroke: '#666', strokeDasharray: '5 4'}), Plot.dot(jittered, {x: 'x', y: 'y', fill: 'metric', r: 3, fillOpacity: 0.6})],
	});
	const data = [['metric', 'human_mean', 'judge'], ...points.map((point) => [point.metric, rounded(point.human), point.judge])];
	return figure(name, title, chart, data, undefined, 'Dashed: y = x (the judge agrees with the people); points jittered by up to ±0.15 so equal pairs show; the CSV has the exact values.', {kind: 'swatches', label: 'metric', items: metrics.map((label, i) => ({label, colour: COLORS[i % COLORS.length]!}))});
}

export type XYPoint = {readonly label: string; readonly x: Interval; readonly y: Interval; readonly series?: string};

/** Figure 4: one point per model, 3H against TDQ, each with both intervals as whiskers. */
export function xyIntervals(name: string, title: string, points: readonly XYPoint[], options: {x: string; y: string; domain?: [number, number]}): string {
	if (points.length === 0) return empty(name, title, 'No scored episodes.');
	const rows = points.map((p) => ({label: p.label, series: p.series ?? p.label, x: p.x.mean, y: p.y.mean, x1: p.x.lo, x2: p.x.hi, y1: p.y.lo, y2: p.y.hi, nx: p.x.na ?? null, ny: p.y.na ?? null}));
	const seriesOf = [...new Set(rows.map((r) => r.series))];
	const span = (values: number[]) => [Math.min(...values) - 0.15, Math.max(...values) + 0.15] as [number, number];
	const xs = rows.flatMap((r) => [r.x, r.x1 ?? r.x, r.x2 ?? r.x]);
	const ys = rows.flatMap((r) => [r.y, r.y1 ?? r.y, r.y2 ?? r.y]);
	const chart = Plot.plot({
		document,
		width: WIDTH,
		height: 480,
		marginLeft: 56,
		marginBottom: 46,
		style: FONT,
		x: {domain: options.domain ?? span(xs), label: options.x, labelAnchor: 'center', labelArrow: 'none', grid: true},
		y: {domain: options.domain ?? span(ys), label: options.y, labelAnchor: 'center', labelArrow: 'none', grid: true},
		color: {domain: seriesOf, range: COLORS},
		marks: [
			Plot.ruleY(rows.filter((r) => r.x1 !== null), {y: 'y', x1: 'x1', x2: 'x2', stroke: 'series', strokeWidth: 1.5}),
			Plot.ruleX(rows.filter((r) => r.y1 !== null), {x: 'x', y1: 'y1', y2: 'y2', stroke: 'series', strokeWidth: 1.5}),
			Plot.dot(rows, {x: 'x', y: 'y', fill: 'series', r: 5, title: (r: (typeof rows)[number]) => `${r.label}: ${options.x} ${r.x.toFixed(2)}, ${options.y} ${r.y.toFixed(2)}`}),
			Plot.text(rows, {x: 'x', y: 'y', text: (r: (typeof rows)[number]) => `${r.label}${r.nx || r.ny ? ' (n/a interval)' : ''}`, dy: -10, fill: '#333'}),
		],
	});
	const data = [['label', `${options.x}_mean`, `${options.x}_lo`, `${options.x}_hi`, `${options.y}_mean`, `${options.y}_lo`, `${options.y}_hi`, 'na'], ...points.map((p) => [p.label, rounded(p.x.mean), rounded(p.x.lo), rounded(p.x.hi), rounded(p.y.mean), rounded(p.y.lo), rounded(p.y.hi), [p.x.na, p.y.na].filter(Boolean).join('; ')])];
	return figure(name, title, chart, data, undefined, 'Dot: the means; whiskers: each 95% interval (absent where none could be made, marked n/a).', {kind: 'swatches', label: 'assistant', items: seriesOf.map((label, i) => ({label, colour: COLORS[i % COLORS.length]!}))});
}

export type Bar = {readonly label: string; readonly value: number; readonly n: number; readonly seeds: number; readonly small: boolean; readonly p?: number | null; readonly series?: string};

/** Deviation bars (Figure 37): one bar per slice value from a zero line; * marks values on fewer than 10 seeds. */
export function deviationBars(name: string, title: string, bars: readonly Bar[], options: {x: string; note?: string}): string {
	if (bars.length === 0) return empty(name, title, 'No data for this chart.');
	const rows = bars.map((bar) => ({...bar, label: `${bar.label}${bar.small ? '*' : ''} (n=${bar.n}, ${bar.seeds} seed${bar.seeds === 1 ? '' : 's'})`, direction: bar.value >= 0 ? 'above the average' : 'below the average'}));
	const longest = Math.max(...rows.map((row) => row.label.length));
	const chart = Plot.plot({
		document,
		width: WIDTH,
		height: 80 + 26 * rows.length,
		marginLeft: Math.min(340, 16 + longest * 6.8),
		style: FONT,
		x: {label: options.x, grid: true, labelAnchor: 'center', labelArrow: 'none'},
		y: {label: null, domain: rows.map((row) => row.label)},
		color: {domain: ['above the average', 'below the average'], range: ['#3ca951', '#ff725c']},
		marks: [Plot.barX(rows, {y: 'label', x: 'value', fill: 'direction', fillOpacity: (row: {small: boolean}) => (row.small ? 0.45 : 0.9), title: (row: Bar) => `${row.label}: ${row.value >= 0 ? '+' : ''}${row.value.toFixed(3)}${row.p !== undefined && row.p !== null ? ` (p ${row.p.toFixed(3)})` : ''}`}), Plot.ruleX([0], {stroke: '#333'})],
	});
	const data = [['label', 'deviation', 'n', 'seeds', 'small', 'p'], ...bars.map((bar) => [bar.label, rounded(bar.value), bar.n, bar.seeds, bar.small ? 'yes' : 'no', rounded(bar.p ?? null)])];
	return figure(name, title, chart, data, options.note, 'Bar: the slice mean minus the cell\'s mean; pale bars and *: fewer than 10 seeds.', {kind: 'swatches', label: 'deviation', items: [{label: 'above the average', colour: '#3ca951'}, {label: 'below the average', colour: '#ff725c'}]});
}

