import {bracket, fixed} from '../present/numbers.js';
import type {Estimate} from '../report/bootstrap.js';
import {SMALL_SLICE} from '../report/bootstrap.js';
import type {SituatedReport, SituatedRow} from '../situated/summary.js';
import {type Interval, dotWhisker} from './charts.js';
import {esc, jsonScript} from './escape.js';
import {FIGURE_SCRIPT, page} from './page.js';

/*
 * `crisp report --html`: the situated report (exactly `crisp report --json`) as charts and a
 * table, with the same page shell, chart functions and interval rules as the benchmark report: one
 * chart pair per cell (policy model, grader, reward model), never pooled.
 */

const cell = (estimate: Estimate | null) => (estimate ? `<td class="num" data-mean="${estimate.mean}" data-lo="${estimate.lo ?? ''}" data-hi="${estimate.hi ?? ''}" data-na="${esc(estimate.na ?? '')}">${esc(fixed(estimate.mean))}<span class="ci">${esc(bracket(estimate, (v) => fixed(v)))}</span></td>` : '<td class="num">–</td>');

export function crispPage(report: SituatedReport, options: {readonly title: string; readonly generatedAt: string; readonly mockNotice: string | null; /** How the intervals were made (one sentence, as the text report says it). */ readonly intervals: string}): string {
	const rows = report.rows;
	const groups = [...new Set(rows.map((row) => JSON.stringify([row.policyModel, row.judgeModel, row.selector])))].map((key) => JSON.parse(key) as [string, string, string | null]);
	const charts = groups
		.map(([policy, judge, selector]) => {
			const mine = rows.filter((row) => row.policyModel === policy && row.judgeModel === judge && row.selector === selector);
			const pick = (what: (row: SituatedRow) => Estimate | null, label: string, series: string): Interval[] => mine.flatMap((row) => {
				const e = what(row);
				return e ? [{label: `${row.culture}${label ? ` ${label}` : ''}`, mean: e.mean, lo: e.lo, hi: e.hi, na: e.na, n: row.items, seeds: row.norms, small: row.small, series}] : [];
			});
			const name = `${policy}-${judge}-${selector ?? 'none'}`;
			const outcome = [...pick((r) => r.outcome, '@1', 'first answer (@1)'), ...pick((r) => r.bestOf, 'BoN', "reward model's pick (BoN)"), ...pick((r) => r.oracle, 'ceiling', 'oracle pick (ceiling)')].sort((a, b) => a.label.localeCompare(b.label));
			return `<h2>${esc(policy)} <span class="muted">graded by ${esc(judge)} · reward model ${esc(selector ?? '(none)')}</span></h2><div class="grid">${dotWhisker(`outcome-${name}`, `Outcome quality per culture: first answer (@1), the reward model's best-of-N pick (BoN) and the ceiling (oracle pick)`, outcome, {x: 'outcome quality (1-5; invalid answers 0)', domain: [0, 5]})}${dotWhisker(`norm-${name}`, 'Norm match of the first answer per culture', pick((r) => r.normMatch, '', 'norm match'), {x: 'norm match (0-2; invalid answers 0)', domain: [0, 2]})}</div>`;
		})
		.join('');
	const table = `<div class="scroll"><table id="crisp-table"><thead><tr><th>policy</th><th>grader</th><th>reward model</th><th>culture</th><th class="num">items</th><th class="num">norms</th><th class="num">N</th><th class="num">outcome@1</th><th class="num">BoN (RM pick)</th><th class="num">ceiling</th><th class="num">norm match</th><th class="num">invalid</th></tr></thead><tbody>${rows
		.map((row) => `<tr><td>${esc(row.policyModel)}</td><td>${esc(row.judgeModel)}</td><td>${esc(row.selector ?? '(none)')}</td><td>${esc(row.culture)}</td><td class="num">${row.items}</td><td class="num">${row.norms}${row.small ? '<span class="warn">*</span>' : ''}</td><td class="num">${esc(fixed(row.samplesPerItem))}</td>${cell(row.outcome)}${cell(row.bestOf)}${cell(row.oracle)}${cell(row.normMatch)}<td class="num">${Math.round(row.invalidRate * 100)}%</td></tr>`)
		.join('')}</tbody></table></div>${rows.some((row) => row.small) ? `<p class="muted">* fewer than ${SMALL_SLICE} norms: the interval is unreliable.</p>` : ''}`;
	const body = `<h1>${esc(options.title)}</h1><p class="muted">generated ${esc(options.generatedAt)} · outcome 1-5 (invalid answers count 0), norm match 0-2; λ = ${report.lambda}. ${esc(options.intervals)}</p>${options.mockNotice ? `<div class="banner">${esc(options.mockNotice)}</div>` : ''}${table}${charts}${jsonScript('report-data', report)}`;
	return page({title: options.title, body, script: FIGURE_SCRIPT});
}
