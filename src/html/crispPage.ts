import {fixed, withInterval} from '../present/numbers.js';
import type {Estimate} from '../report/bootstrap.js';
import type {SituatedRow} from '../situated/summary.js';
import {type Interval, dotWhisker} from './charts.js';
import {esc, jsonScript} from './escape.js';
import {page} from './page.js';

/*
 * `crisp report --html`: the situated report's rows (exactly `crisp report --json`) as charts and a
 * table, with the same page shell and chart functions as the benchmark report.
 */

const cell = (estimate: Estimate | null) => (estimate ? `<td class="num" data-mean="${estimate.mean}" data-lo="${estimate.lo}" data-hi="${estimate.hi}">${esc(withInterval(estimate))}</td>` : '<td class="num">–</td>');

export function crispPage(rows: readonly SituatedRow[], options: {readonly title: string; readonly generatedAt: string; readonly mock: boolean}): string {
	const models = [...new Set(rows.map((row) => row.policyModel))];
	const charts = models
		.map((model) => {
			const mine = rows.filter((row) => row.policyModel === model);
			const pick = (what: (row: SituatedRow) => Estimate | null, label: string): Interval[] => mine.flatMap((row) => {
				const e = what(row);
				return e ? [{label: `${row.region} ${label}`, mean: e.mean, lo: e.lo, hi: e.hi, n: row.items}] : [];
			});
			return `<h2>${esc(model)}</h2><div class="grid">${dotWhisker(`outcome-${model}`, 'Outcome quality per region: first answer (@1), the reward\'s best-of-N pick (@BoN) and the ceiling (best sample)', [...pick((r) => r.outcome, '@1'), ...pick((r) => r.outcomeBestOf, '@BoN'), ...pick((r) => r.outcomeCeiling, 'ceiling')].sort((a, b) => a.label.localeCompare(b.label)), {domain: [0, 5]})}${dotWhisker(`norm-${model}`, 'Norm match of the first answer per region (0-2)', pick((r) => r.normMatch, ''), {domain: [0, 2]})}</div>`;
		})
		.join('');
	const table = `<table id="crisp-table"><thead><tr><th>policy</th><th>region</th><th class="num">items</th><th class="num">N</th><th class="num">outcome@1</th><th class="num">outcome@BoN</th><th class="num">ceiling</th><th class="num">norm match</th><th class="num">invalid</th></tr></thead><tbody>${rows
		.map((row) => `<tr><td>${esc(row.policyModel)}</td><td>${esc(row.region)}</td><td class="num">${row.items}</td><td class="num">${esc(fixed(row.samplesPerItem))}</td>${cell(row.outcome)}${cell(row.outcomeBestOf)}${cell(row.outcomeCeiling)}${cell(row.normMatch)}<td class="num">${Math.round(row.invalidRate * 100)}%</td></tr>`)
		.join('')}</tbody></table>`;
	const body = `<h1>${esc(options.title)}</h1><p class="muted">generated ${esc(options.generatedAt)} · outcome 1-5 (invalid answers count 0), norm match 0-2; 95% percentile bootstrap intervals over items</p>${options.mock ? '<div class="banner">Items or answers from the offline mock provider: deterministic filler, not measurements.</div>' : ''}${table}${charts}${jsonScript('report-data', rows)}`;
	return page({title: options.title, body});
}
