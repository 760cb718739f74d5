import chalk from 'chalk';
import type {SituatedEval, SituatedItem} from '../domain/situated.js';
import {oraclePick, rewardPick, selectorScoresOf} from '../situated/selection.js';
import type {SituatedReport} from '../situated/summary.js';
import {renderTable} from '../util/table.js';
import {fixed, withInterval} from './numbers.js';
import {indent} from './text.js';

const STATUS = {kept: chalk.green('kept     '), discarded: chalk.yellow('discarded'), failed: chalk.red('failed   ')} as const;

/** One line per built item: status, id, and the router's path through the rounds. */
export function itemLine(item: SituatedItem): string {
	const path = item.rounds.map((round) => round.decision).join(' → ') || '(no round)';
	return `${STATUS[item.status]} ${item.id}  ${item.rounds.length} round(s): ${path}${item.error ? `  ${chalk.red(item.error)}` : ''}`;
}

/**
 * One line per evaluated item: each sample's outcome (✗ for an invalid answer), the reward model's
 * pick in brackets, and the oracle pick (ceiling) marked with ^.
 */
export function evalLine(evaluation: SituatedEval, selector: string | null): string {
	const pick = selector ? rewardPick(selectorScoresOf(evaluation, selector) ?? []) : null;
	const oracle = oraclePick(evaluation.samples);
	const scores = evaluation.samples.map((sample, index) => {
		const text = `${sample.outcome ? String(sample.outcome.score) : '✗'}${index === oracle ? '^' : ''}`;
		return index === pick ? chalk.bold(`[${text}]`) : text;
	});
	const first = evaluation.samples[0]!;
	const allInvalid = evaluation.samples.every((sample) => sample.invalid !== null);
	return `${evaluation.itemId}  outcome ${scores.join(' ')}  norm match ${first.normMatch?.score ?? '–'}${allInvalid ? chalk.red(`  (all invalid: ${first.invalid})`) : ''}`;
}

/** Counts for the end of a build: items by status, and how rounds were routed. */
export function buildTally(items: readonly SituatedItem[]): {byStatus: Record<string, number>; decisions: Record<string, number>; meanRoundsKept: number | null} {
	const byStatus: Record<string, number> = {};
	const decisions: Record<string, number> = {};
	for (const item of items) {
		byStatus[item.status] = (byStatus[item.status] ?? 0) + 1;
		for (const round of item.rounds) decisions[round.decision] = (decisions[round.decision] ?? 0) + 1;
	}
	const kept = items.filter((item) => item.status === 'kept');
	return {byStatus, decisions, meanRoundsKept: kept.length > 0 ? kept.reduce((sum, item) => sum + item.rounds.length, 0) / kept.length : null};
}

/** An item in full, round by round: what the reasoner said, how each check went, what the router did. */
export function formatItem(item: SituatedItem): string {
	const lines = [
		chalk.bold(`${item.id}  (${item.status})`),
		`culture ${item.culture}${item.norm.country ? ` (${item.norm.country})` : ''} · norm ${item.norm.id} (${item.norm.type}, ${item.norm.category.replace(/_/g, ' ')}, from ${item.norm.source})`,
		`norm: ${item.norm.text}`,
		'',
		chalk.bold('Setting'),
		indent(Object.entries(item.chronotope).map(([key, value]) => `${key}: ${value}`).join('\n')),
		'',
		...(item.draft
			? [chalk.bold('Scenario (final)'), indent(item.draft.scenario), `question: ${item.draft.question}`, chalk.dim(`expected (private): ${item.draft.hiddenExpectedAnswer}`)]
			: [chalk.red('No scenario: the question writer failed.')]),
	];
	for (const round of item.rounds) {
		const checks = Object.entries(round.verification).map(([name, check]) => `${name}=${check.score}`).join(' ');
		lines.push('', chalk.bold(`Round ${round.round}: ${round.decision}`), indent(`action: ${round.answer.action}\nreason: ${round.answer.reason}\ninferred: ${round.answer.inferredNorms.map((n) => n.norm).join(' | ')}\nchecks: ${checks}\nrouter: ${round.diagnosis}`));
		if (round.advice) lines.push(indent(`advice: ${round.advice.guidance}`));
		if (round.plan) lines.push(indent(`revision plan: ${round.plan.guidance}`));
	}
	if (item.error) lines.push('', chalk.red(`error: ${item.error}`));
	return lines.join('\n');
}


/**
 * The situated report: per policy, reward model and culture, outcome of one answer, of a random pick,
 * of the reward model's best-of-N pick, the oracle pick (ceiling) and the gap between them; norm
 * match as the paper reports it; and each reward model's calibration, fitted on its own scores.
 */
/** `intervals`: the sentence saying how the intervals were made (commands/crispData.ts intervalNote). */
export function reportText(report: SituatedReport, intervals: string): string {
	const table = renderTable(report.rows, [
		{header: 'POLICY', value: (row) => row.policyModel, max: 22},
		{header: 'GRADER', value: (row) => row.judgeModel, max: 18},
		{header: 'REWARD MODEL', value: (row) => row.selector ?? '(none)', max: 26},
		{header: 'CULTURE', value: (row) => row.culture, max: 16},
		{header: 'ITEMS', value: (row) => row.items, align: 'right'},
		{header: 'NORMS', value: (row) => `${row.norms}${row.small ? '*' : ''}`, align: 'right'},
		{header: 'N', value: (row) => fixed(row.samplesPerItem, 1), align: 'right'},
		{header: 'OUTCOME@1 [95% CI]', value: (row) => withInterval(row.outcome)},
		{header: 'RANDOM', value: (row) => fixed(row.random?.mean), align: 'right'},
		{header: 'BoN (RM PICK)', value: (row) => withInterval(row.bestOf)},
		{header: 'ORACLE PICK (CEILING)', value: (row) => fixed(row.oracle?.mean), align: 'right'},
		{header: 'GAP', value: (row) => withInterval(row.gap)},
		{header: 'NORM MATCH 0-2', value: (row) => withInterval(row.normMatch)},
		{header: 'NM VALID', value: (row) => fixed(row.normMatchValid?.mean), align: 'right'},
		{header: 'INVALID', value: (row) => `${Math.round(row.invalidRate * 100)}%`, align: 'right'},
	]);
	const lines = [
		'Outcome grades 1-5 (invalid answers 0). BoN: the outcome of the answer the reward model ranks highest; it reads culture, scenario, question and answer only. ORACLE PICK (CEILING): the best grade among the samples, picked by the grader, which reads the norm; GAP = ceiling − BoN. NORM MATCH: the first answer\'s reasoning, 0-2 (invalid 0); NM VALID leaves invalid answers out.',
		table,
	];
	for (const calibration of report.calibrations) {
		lines.push(`${calibration.selector}: calibrated on its own ${calibration.n} score(s) (${calibration.from === 'validation' ? 'validation split' : 'train split: fewer than 8 validation scores; test items are never used'}): median ${fixed(calibration.median, 3)}, robust scale ${fixed(calibration.scale, 3)} (IQR / 1.349); r_total = σ(clip((raw − median) / scale, ±20)) + ${report.lambda}·r_NGS.`);
	}
	for (const refusal of report.refused) lines.push(chalk.yellow(`${refusal.selector}: not calibrated (${refusal.reason}), so no training reward (r_total) is given for it.`));
	lines.push(intervals);
	const picks = report.rows.filter((row) => row.culture === 'all' && row.pickReward);
	for (const row of picks) lines.push(`  mean r_total of ${row.selector}'s picks for ${row.policyModel}: ${fixed(row.pickReward!.mean, 3)}${row.grounding !== null ? ` (mean r_NGS over valid answers ${fixed(row.grounding, 3)})` : ' (no grounding source: r_NGS = 0)'}`);
	for (const gap of report.unscored) lines.push(chalk.yellow(`${gap.selector} did not score ${gap.evaluations} evaluation(s) of ${gap.policyModel}; its rows leave them out (run crisp eval again with it to score them).`));
	if (report.rows.every((row) => row.selector === null)) lines.push(chalk.yellow('No reward model has ranked these samples, so there is no best-of-N figure: run `crisp eval --reward-model MODEL` (or --reward-endpoint URL); the samples and grades are reused.'));
	return lines.join('\n');
}
