import chalk from 'chalk';
import {mockNotes, sessionMockKind} from './mockNote.js';
import type {Blueprint} from '../domain/blueprint.js';
import type {Evidence} from '../domain/kb.js';
import {METRICS, type JudgeResult, type Session, type Termination, type Turn} from '../domain/session.js';
import type {Shard} from '../domain/shards.js';
import {oracleText, privateStateText} from '../pipeline/render.js';
import {type Price, estimateCost, formatCost} from '../llm/pricing.js';
import {summarizeCalls} from '../llm/usage.js';
import type {CallRecord} from '../domain/session.js';
import {safeText} from '../util/terminalText.js';

/*
 * Plain-text renderings for headless output (`run`, `replay --print`, `blueprint`, `shards`). Pure
 * functions of data; colour comes from chalk, which turns itself off when stdout is not a terminal.
 */

export const heading = (label: string) => chalk.bold.underline(label);
const partition = (label: 'PUBLIC' | 'PRIVATE' | 'ORACLE') => chalk.bold(label === 'PUBLIC' ? chalk.green(`[${label}]`) : label === 'PRIVATE' ? chalk.yellow(`[${label}]`) : chalk.magenta(`[${label}]`));

/** Indents every line; foreign text (model or human) loses its terminal control sequences here. */
export function indent(text: string, by = '  '): string {
	return safeText(text)
		.split('\n')
		.map((line) => (line ? by + line : line))
		.join('\n');
}

export function formatEvidence(evidence: Evidence): string {
	const lines = [`${partition('ORACLE')} KB evidence (embedder ${evidence.embedder}${evidence.secondaryRegion ? `, secondary region ${evidence.secondaryRegion}` : ''})`];
	lines.push(`  query: ${evidence.queries.cultural}`);
	for (const hit of evidence.cultural) lines.push(`  #${hit.rank} ${hit.id} (${hit.regions.join('/')}, score ${hit.score.toFixed(3)}, ${hit.source}) ${hit.title}`);
	if (evidence.queries.taboo) lines.push(`  taboo query: ${evidence.queries.taboo}`);
	for (const hit of evidence.taboo) lines.push(`  #${hit.rank} ${hit.id} (${hit.regions.join('/')}, ${hit.severity ?? ''}, score ${hit.score.toFixed(3)}, ${hit.source}) AVOID ${hit.title}`);
	if (evidence.cultural.length + evidence.taboo.length === 0) lines.push('  (no hits)');
	return lines.join('\n');
}

export function formatBlueprint(blueprint: Blueprint, options: {language?: 'english' | 'native'} = {}): string {
	const opening = options.language === 'native' ? blueprint.language.nativeMode.initialMessage : blueprint.public.initialMessage;
	return [
		`${partition('PUBLIC')} opening message (all the assistant sees)`,
		indent(opening),
		...(options.language === undefined ? [`  native (${blueprint.language.nativeName}): ${blueprint.language.nativeMode.initialMessage}`] : []),
		'',
		`${partition('PRIVATE')} simulated user`,
		indent(privateStateText(blueprint.private)),
		'',
		`${partition('ORACLE')} judge only`,
		indent(oracleText(blueprint.oracle)),
		'',
		chalk.dim(`meta: model ${blueprint.meta.model}${blueprint.meta.mock ? ' (offline mock)' : ''}, ${blueprint.meta.attempts.length} attempt(s), openers ${blueprint.meta.openerStyles.join(' + ')}, evidence ${blueprint.meta.evidenceIds.join(' ') || '(none)'}`),
		...blueprint.meta.attempts.filter((attempt) => attempt.problems.length > 0).map((attempt) => chalk.dim(`  attempt ${attempt.attempt}${attempt.ok ? ' (passed)' : ''}: ${attempt.problems.join('; ')}`)),
	].join('\n');
}

export function formatShards(shards: readonly Shard[], current?: number): string {
	return [
		`${partition('PRIVATE')} shards (${shards.length})`,
		...shards.map((shard, index) =>
			indent(
				[
					`${index === current ? chalk.bold('▶ ') : ''}${index + 1}/${shards.length} ${chalk.bold(shard.title)}`,
					`  goal: ${shard.goal}`,
					`  signifiers: ${shard.signifiers.join('; ') || '(none)'}`,
					`  disclose: ${shard.disclose.join('; ') || '(nothing)'}`,
					`  english: ${shard.directives.english}`,
					`  native: ${shard.directives.native}`,
					`  success: ${shard.successCondition}`,
					`  failure: ${shard.failureCondition}`,
				].join('\n'),
			),
		),
	].join('\n');
}

export function formatTurn(turn: Turn, shardCount: number | null): string {
	const who = turn.role === 'user' ? chalk.cyan(`USER t=${turn.t}`) : chalk.green(`ASSISTANT t=${turn.t}`);
	const where = shardCount ? chalk.dim(` [shard ${Math.min(turn.shard + 1, shardCount)}/${shardCount}]`) : '';
	const flags = [turn.closing ? 'closing' : '', turn.source !== 'simulator' && turn.source !== 'llm' ? turn.source : ''].filter(Boolean).join(', ');
	const lines = [`${who}${where}${flags ? chalk.dim(` (${flags})`) : ''}`, indent(turn.content)];
	if (turn.assessment) lines.push(chalk.dim(`  ${partition('PRIVATE')} ${turn.assessment.decision}: ${safeText(turn.assessment.reasoning)}`));
	if (turn.style) lines.push(chalk.dim(`  ${partition('PRIVATE')} style: ${turn.style.directive.split('\n')[0]}`));
	if (turn.candidates) {
		lines.push(chalk.dim(`  ${partition('ORACLE')} best of ${turn.candidates.length}, rated by the judge role:`));
		turn.candidates.forEach((candidate, index) => lines.push(chalk.dim(`    ${candidate.chosen ? '>' : ' '} #${index + 1} score ${candidate.score}${candidate.chosen ? ' (said)' : ''}: ${safeText(candidate.rationale)}`)));
	}
	return lines.join('\n');
}

export function formatTermination(termination: Termination, shardCount: number): string {
	return `${chalk.bold('Ended:')} ${termination.reason} (by ${termination.by}) after ${termination.atTurn} user turn(s), ${termination.shardsPassed}/${shardCount} shards passed`;
}

export function formatJudge(judge: JudgeResult): string {
	const score = (value: number | null) => (value === null ? '–' : String(value));
	const lines = [
		`${partition('ORACLE')} judge (${judge.mode})`,
		...METRICS.map((metric) => `  ${metric.padEnd(13)} ${score(judge.scores[metric])}  ${chalk.dim(safeText(judge.rationales[metric] ?? ''))}`),
		`  3H ${judge.threeH?.toFixed(2) ?? '–'}   TDQ ${judge.tdq?.toFixed(2) ?? '–'}   clean ${judge.clean === null ? '–' : judge.clean ? 'yes' : 'NO'}`,
		...judge.violations.map((violation) => `  violation: ${safeText(violation.item)} (${safeText(violation.evidence)})`),
		...(judge.otherHarms ?? []).map((harm) => `  other harm (does not unset clean): ${safeText(harm.item)} (${safeText(harm.evidence)})`),
	];
	return lines.join('\n');
}

/** The whole session with its three partitions, for `replay --print` and non-terminals. */
export function formatSession(session: Session): string {
	const out: string[] = [
		heading(`Session ${session.id}`),
		`status ${session.status} · seed ${session.seed.id} · tier ${session.seed.tier} · ${session.config.language} · ${session.config.mode} · assistant ${session.config.assistant} (${session.config.models.assistant})${session.config.mock ? chalk.yellow(` · ${mockNotes(sessionMockKind(session)).at(-1) ?? ''}`) : ''}`,
		`persona ${session.persona.identity} (${session.persona.regionName}), ${session.persona.age}, ${session.persona.gender}`,
		`template ${session.template.id}: ${session.template.title}`,
		'',
	];
	if (session.evidence) out.push(formatEvidence(session.evidence), '');
	if (session.blueprint) out.push(formatBlueprint(session.blueprint), '');
	if (session.shards) out.push(formatShards(session.shards), '');
	if (session.turns.length > 0) {
		out.push(heading('Transcript'));
		for (const turn of session.turns) out.push(formatTurn(turn, session.shards?.length ?? null));
		out.push('');
	}
	if (session.termination) out.push(formatTermination(session.termination, session.shards?.length ?? 0));
	if (session.judge) out.push(formatJudge(session.judge));
	if (session.error) out.push(chalk.red(`${session.error.flag}: ${safeText(session.error.message)}`));
	out.push(chalk.dim(formatUsage(session.calls)));
	return out.join('\n');
}

/** One line of cost accounting: calls, cache hits, retries, tokens and the estimated spend. */
export function formatUsage(calls: readonly CallRecord[], prices?: Readonly<Record<string, Price>>): string {
	const usage = summarizeCalls(calls);
	const cost = estimateCost(calls, prices);
	const httpRetries = calls.reduce((sum, call) => sum + call.retries.length, 0) - calls.reduce((sum, call) => sum + call.validationRetries, 0);
	const reasks = calls.reduce((sum, call) => sum + call.validationRetries, 0);
	const estimated = usage.estimatedCalls > 0 ? `, ${usage.estimatedCalls === usage.calls ? 'all' : usage.estimatedCalls} counted locally (est.)` : '';
	return `${usage.calls} call(s), ${usage.cached} cached, ${usage.failed} failed, ${httpRetries} retr${httpRetries === 1 ? 'y' : 'ies'}, ${reasks} re-ask(s) · ${usage.tokens.total} tokens (${usage.billableTokens.total} billable${estimated}) · ${formatCost(cost, usage.billableTokens.total)}`;
}
