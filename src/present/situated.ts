import chalk from 'chalk';
import type {SituatedEval, SituatedItem} from '../domain/situated.js';
import type {SituatedRow} from '../situated/summary.js';
import {renderTable} from '../util/table.js';
import {fixed, withInterval} from './numbers.js';
import {indent} from './text.js';

const STATUS = {kept: chalk.green('kept     '), discarded: chalk.yellow('discarded'), failed: chalk.red('failed   ')} as const;

/** One line per built item: status, id, and the router's path through the rounds. */
export function itemLine(item: SituatedItem): string {
	const path = item.rounds.map((round) => round.decision).join(' → ') || '(no round)';
	return `${STATUS[item.status]} ${item.id}  ${item.rounds.length} round(s): ${path}${item.error ? `  ${chalk.red(item.error)}` : ''}`;
}

/** One line per evaluated item: each sample's outcome (✗ for an invalid answer) and the best-of-N pick. */
export function evalLine(evaluation: SituatedEval): string {
	const scores = evaluation.samples.map((sample, index) => {
		const text = sample.outcome ? String(sample.outcome.score) : '✗';
		return index === evaluation.chosen ? chalk.bold(`[${text}]`) : text;
	});
	const chosen = evaluation.samples[evaluation.chosen]!;
	return `${evaluation.itemId}  outcome ${scores.join(' ')}  norm match ${chosen.normMatch?.score ?? '–'}${chosen.invalid ? chalk.red(`  (all invalid: ${chosen.invalid})`) : ''}`;
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
		`culture ${item.culture} · norm ${item.norm.id} (${item.norm.type}, from ${item.norm.source})`,
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


/** The situated report: outcome of one answer, of the best-of-N pick and its ceiling, norm match, invalid share. */
export function reportTable(rows: readonly SituatedRow[]): string {
	return renderTable(rows, [
		{header: 'POLICY', value: (row) => row.policyModel, max: 24},
		{header: 'REGION', value: (row) => row.region},
		{header: 'ITEMS', value: (row) => row.items, align: 'right'},
		{header: 'N', value: (row) => fixed(row.samplesPerItem), align: 'right'},
		{header: 'OUTCOME@1 [95% CI]', value: (row) => withInterval(row.outcome)},
		{header: 'OUTCOME@BoN', value: (row) => withInterval(row.outcomeBestOf)},
		{header: 'CEILING', value: (row) => (row.outcomeCeiling ? fixed(row.outcomeCeiling.mean) : '–'), align: 'right'},
		{header: 'NORM MATCH (0-2)', value: (row) => withInterval(row.normMatch)},
		{header: 'INVALID', value: (row) => `${Math.round(row.invalidRate * 100)}%`, align: 'right'},
	]);
}
