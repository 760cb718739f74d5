import {fixed, withInterval} from '../present/numbers.js';
import type {Estimate} from '../report/bootstrap.js';
import type {SituatedReport, SituatedRow} from '../situated/summary.js';
import {type Interval, dotWhisker} from './charts.js';
import {esc, jsonScript} from './escape.js';
import {page} from './page.js';

/*
 * `crisp report --html`: the situated report (exactly `crisp report --json`) as charts and a
 * table, with the same page shell and chart functions as the benchmark report.
 */

const cell = (estimate: Estimate | null) => (estimate ? `<td class="num" data-mean="${estimate.mean}" data-lo="${estimate.lo}" data-hi="${estimate.hi}">${esc(withInterval(estimate))}</td>` : '<td class="num">–</td>');

export function crispPage(report: SituatedReport, options: {readonly title: string; readonly generatedAt: string; readonly mock: boolean}): string {
	const rows = report.rows;
	const groups = [...new Set(rows.map((row) => JSON.stringify([row.policyModel, row.selector])))].map((key) => JSON.parse(key) as [string, string | null]);
	const charts = groups
		.map(([policy, selector]) => {
			const mine = rows.filter((row) => row.policyModel === policy && row.selector === selector);
			const pick = (what: (row: SituatedRow) => Estimate | null, label: string): Interval[] => mine.flatMap((row) => {
				const e = what(row);
				return e ? [{label: `${row.culture} ${label}`, mean: e.mean, lo: e.lo, hi: e.hi, n: row.items}] : [];
			});
			const name = `${policy}-${selector ?? 'none'}`;
			const outcome = [...pick((r) => r.outcome, '@1'), ...pick((r) => r.bestOf, 'BoN'), ...pick((r) => r.oracle, 'ceiling')].sort((a, b) => a.label.localeCompare(b.label));
			return `<h2>${esc(policy)} <span class="muted">reward model ${esc(selector ?? '(none)')}</span></h2><div class="grid">${dotWhisker(`outcome-${name}`, `Outcome quality per culture: first answer (@1), the reward model's best-of-N pick (BoN) and the ceiling (oracle pick)`, outcome, {domain: [0, 5]})}${dotWhisker(`norm-${name}`, 'Norm match of the first answer per culture (0-2)', pick((r) => r.normMatch, ''), {domain: [0, 2]})}</div>`;
		})
		.join('');
	const table = `<table id="crisp-table"><thead><tr><th>policy</th><th>reward model</th><th>culture</th><th class="num">items</th><th class="num">N</th><th class="num">outcome@1</th><th class="num">BoN (RM pick)</th><th class="num">ceiling</th><th class="num">norm match</th><th class="num">invalid</th></tr></thead><tbody>${rows
		.map((row) => `<tr><td>${esc(row.policyModel)}</td><td>${esc(row.selector ?? '(none)')}</td><td>${esc(row.culture)}</td><td class="num">${row.items}</td><td class="num">${esc(fixed(row.samplesPerItem))}</td>${cell(row.outcome)}${cell(row.bestOf)}${cell(row.oracle)}${cell(row.normMatch)}<td class="num">${Math.round(row.invalidRate * 100)}%</td></tr>`)
		.join('')}</tbody></table>`;
	const body = `<h1>${esc(options.title)}</h1><p class="muted">generated ${esc(options.generatedAt)} · outcome 1-5 (invalid answers count 0), norm match 0-2; 95% percentile bootstrap intervals over items; λ = ${report.lambda}</p>${options.mock ? '<div class="banner">Items or answers from the offline mock provider: deterministic filler, not measurements.</div>' : ''}${table}${charts}${jsonScript('report-data', report)}`;
	return page({title: options.title, body});
}
