import chalk from 'chalk';
import {summaryOf} from './registry.js';
import {runtimeFlags} from './runtimeFlags.js';
import {registerSchema} from '../domain/registry.js';
import {Norm, RejectedRow, SituatedEval, SituatedItem, isKept} from '../domain/situated.js';
import {summarizeCalls} from '../llm/usage.js';
import {buildTally, evalLine, formatItem, itemLine, reportText} from '../present/situated.js';
import {formatUsage} from '../present/text.js';
import {crispPage} from '../html/crispPage.js';
import {writeFileAtomic} from '../util/atomicWrite.js';
import path from 'node:path';
import {DEFAULT_LAMBDA} from '../situated/calibrate.js';
import {normSplit} from '../situated/cultures.js';
import {jsonlAppender} from '../situated/jsonl.js';
import {cultureLine} from '../situated/norms.js';
import {DEFAULT_MAX_ROUNDS} from '../situated/refine.js';
import {buildItems, evaluateItems} from '../situated/run.js';
import {summarizeEvals} from '../situated/summary.js';
import {mockWording} from '../report/setups.js';
import {ExitCode, UserError} from '../util/errors.js';
import {unknownMessage} from '../util/suggest.js';
import {bestOfN, calibrateRewards, intervalNote, pairs, samples, sft} from './crispData.js';
import {intervalOptions} from './reportSelection.js';
import {cultureFilter, files, lockFile, readEvals, readItems, splitFlag, spreadNorms} from './crispFiles.js';
import {extract, listNorms, selectNorms, trapNote} from './crispNorms.js';
import {callContext, groundingSource, reportStop, rewardSelector} from './crispRuntime.js';
import {wholeFlag} from './flagValues.js';
import {type Command, type CommandContext, type Flags, write, writeJson} from './types.js';

registerSchema('norm', Norm, 'a cultural norm for situated items (crisp build --norms FILE takes JSONL of these; crisp norms extract writes them)');
registerSchema('norm-rejected-row', RejectedRow, 'a source row crisp norms extract could not turn into a norm (<out>.rejected.jsonl)');
registerSchema('situated-item', SituatedItem, 'one built situated decision item with its refinement rounds (crisp build)');
registerSchema('situated-eval', SituatedEval, 'one evaluated situated item: sampled answers, grades, grounding, reward-model scores (crisp eval)');

const SUBCOMMANDS = ['norms', 'build', 'show', 'eval', 'report', 'pairs', 'sft', 'samples', 'bon', 'calibrate'] as const;

export const crispCommand: Command = {
	name: 'crisp',
	summary: summaryOf('crisp'),
	usage: [
		'crisp norms [--region R] [--culture C] [--norms FILE] [--limit N] [--json]',
		'crisp norms extract --from FILE --format fork|normad|culturalbench|jsonl [--out FILE] [--limit N] [--parallel P] [--json]',
		'crisp build [--region R] [--culture C] [--norms FILE] [--norm ID]... [--split S] [--limit N] [--chronotopes K] [--max-rounds R] [--parallel P] [--items FILE] [--json]',
		'crisp show <item-id> [--items FILE] [--json]',
		'crisp eval [--region R] [--culture C] [--split S] [--limit N] [--best-of N] [--reward-model MODEL | --reward-endpoint URL] [--ngs judge|MODEL|none|URL] [--lambda X] [--parallel P] [--items FILE] [--evals FILE] [--json]',
		'crisp report [--region R] [--culture C] [--lambda X] [--seed S] [--resamples N] [--evals FILE] [--html FILE] [--json]',
		'crisp pairs [--format trl|openai-dpo|sharegpt] [--min-margin M] [--max-pairs-per-item 8] [--no-balance] [--split train|validation|test|any] [--items FILE] [--evals FILE] [--out FILE]',
		'crisp sft [--min-outcome 5] [--min-match 2] [--split S] [--items FILE] [--evals FILE] [--out FILE]',
		'crisp samples [--items FILE] [--evals FILE] [--out FILE]      every valid answer, for an external reward model to score',
		"crisp bon --rewards FILE [--n N] [--seed S] [--json]            best-of-N with those scores: how good is the reward model's pick?",
		'crisp calibrate --rewards FILE [--json]',
	].join('\n    $ cultureconverse '),
	flags: {
		region: {type: 'string', isMultiple: true, description: 'Only norms / items of this persona region (repeatable)'},
		culture: {type: 'string', isMultiple: true, description: 'Only norms / items of this culture: a label ("Germany") or ISO code ("DE"), any case (repeatable)'},
		norms: {type: 'string', description: 'Norms from this JSONL file (`schema norm`; `crisp norms extract` writes one) instead of the taboo KB'},
		norm: {type: 'string', isMultiple: true, description: 'Only this norm id (repeatable)'},
		from: {type: 'string', description: 'norms extract: the data set file to read (CSV or JSONL)'},
		format: {type: 'string', description: 'norms extract: fork, normad, culturalbench or jsonl; pairs: trl (default), openai-dpo or sharegpt'},
		split: {type: 'string', description: 'train, validation, test or any: the norm split (a stable hash of the norm id); pairs and sft default to train, the rest to any'},
		limit: {type: 'number', description: 'At most this many norms (build), items (eval) or rows (norms extract), a stable spread over cultures'},
		chronotopes: {type: 'number', description: 'Settings, and so items, per norm (default 3, as in the paper)'},
		maxRounds: {type: 'number', description: `Verification rounds before an item is discarded (default ${DEFAULT_MAX_ROUNDS})`},
		bestOf: {type: 'number', description: 'eval: answers sampled per item (default 1)'},
		rewardModel: {type: 'string', description: 'eval: a chat model used as the reward model that picks best-of-N (reached like the judge; "mock" offline). It reads culture, scenario, question and answer only'},
		rewardEndpoint: {type: 'string', description: 'eval: a reward service URL: POST {culture, scenario, question, answer, reasoning} → {reward}'},
		ngs: {type: 'string', description: 'eval: norm grounding r_NGS from "judge" (default, a judge-role call), a model name (that call on another model), "none", or a classifier URL: POST {culture, norm, scenario, question, answer, reasoning} → {probability}'},
		lambda: {type: 'number', description: `eval, report: weight of norm grounding in r_total = σ(calibrated reward) + λ·r_NGS (default ${DEFAULT_LAMBDA}; the paper finds 0.1-0.2 best)`},
		parallel: {type: 'number', description: 'Norms (build), items (eval) or rows (norms extract) in flight at once (default 4)'},
		stopAfter: {type: 'number', description: 'Stop after this many norms, items or rows in a row fail the same way with a set-up error (bad key, no quota, unknown model); 0 never stops (default 3)'},
		items: {type: 'string', description: 'Items file (default <sessions>/crisp/items.jsonl)'},
		evals: {type: 'string', description: 'Evaluations file (default <sessions>/crisp/evals.jsonl)'},
		minMargin: {type: 'number', description: 'pairs: fewest outcome points between chosen and rejected (default 1: any different grades)'},
		maxPairsPerItem: {type: 'number', description: 'pairs: at most this many pairs per question, drawn uniformly (default 8, as in the paper)'},
		balance: {type: 'boolean', default: true, description: 'pairs: balance the answer pool across outcome grades before pairing (--no-balance to keep every answer)'},
		minOutcome: {type: 'number', description: 'sft: lowest outcome score (1-5) of the best-graded answer kept (default 5)'},
		minMatch: {type: 'number', description: 'sft: lowest norm match (0-2) of the best-graded answer kept (default 2)'},
		rewards: {type: 'string', description: 'bon: JSONL of {"id", "reward"} for the ids of `crisp samples`; calibrate: raw rewards, one number per line (or JSONL with a "reward" field)'},
		n: {type: 'number', description: 'bon: only the first N samples of each item (default all)'},
		out: {type: 'string', description: 'norms extract: the norms file (default <sessions>/crisp/norms.jsonl); pairs, sft, samples: write the JSONL here (atomically) instead of stdout'},
		seed: {type: 'string', description: 'eval, report, bon: seed of the bootstrap resampling (default "cultureconverse"; same data and seed, same intervals)'},
		resamples: {type: 'number', description: 'eval, report, bon: bootstrap resamples (default 2000)'},
		html: {type: 'string', description: 'report: also write the report as one self-contained HTML file with charts'},
		json: {type: 'boolean', description: 'Print JSON'},
		...runtimeFlags,
	},
	async run(context) {
		const sub = context.args[0];
		if (sub === undefined) throw new UserError(`Usage: npx cultureconverse crisp ${SUBCOMMANDS.join('|')} ... (see npx cultureconverse crisp --help)`);
		switch (sub) {
			case 'norms':
				if (context.args[1] === 'extract') return extract(context);
				if (context.args[1] !== undefined) throw new UserError(unknownMessage('crisp norms subcommand', context.args[1], ['extract']));
				return listNorms(context);
			case 'build':
				return build(context);
			case 'show':
				return show(context);
			case 'eval':
				return evaluate(context);
			case 'report':
				return report(context);
			case 'pairs':
				return pairs(context);
			case 'sft':
				return sft(context);
			case 'samples':
				return samples(context);
			case 'bon':
				return bestOfN(context);
			case 'calibrate':
				return calibrateRewards(context);
			default:
				throw new UserError(unknownMessage('crisp subcommand', sub, SUBCOMMANDS));
		}
	},
};

const lambdaOf = (flags: Flags) => {
	const lambda = flags['lambda'] ?? DEFAULT_LAMBDA;
	if (typeof lambda !== 'number' || lambda < 0 || lambda > 10) throw new UserError(`--lambda must be a number from 0 to 10, got ${String(flags['lambda'])}.`);
	return lambda;
};

async function build(context: CommandContext): Promise<number> {
	const {flags, io} = context;
	const split = splitFlag(flags, 'any');
	const selection = selectNorms(context);
	const norms = split === 'any' ? selection.norms : selection.norms.filter((norm) => normSplit(norm.id) === split);
	if (norms.length === 0) throw new UserError('No norm matches these flags (see `npx cultureconverse crisp norms`).');
	const chronotopes = wholeFlag(flags, 'chronotopes', {min: 1, max: 10}, 3);
	const maxRounds = wholeFlag(flags, 'maxRounds', {min: 1, max: 20}, DEFAULT_MAX_ROUNDS);
	const {items: file} = files(flags, io);
	const lock = lockFile(file, io);
	try {
		return await buildLocked(context, {file, norms, trapNorms: norms.filter(selection.isTrap).length, chronotopes, maxRounds});
	} finally {
		lock.release();
	}
}

async function buildLocked(context: CommandContext, input: {file: string; norms: Norm[]; trapNorms: number; chronotopes: number; maxRounds: number}): Promise<number> {
	const {flags, io} = context;
	const {file, norms, trapNorms, chronotopes, maxRounds} = input;
	// Read under the lock: what is already in the file is not built again.
	const existing = readItems(file, io, context.universe());
	const {runtime, call, calls, breaker, parallel} = await callContext(context, ['generator', 'validator']);
	if (trapNorms > 0 && !flags['json']) io.stderr.write(chalk.yellow(`${trapNote(trapNorms, norms.length)}\n`));
	const appender = jsonlAppender(file);
	const result = await buildItems({
		norms,
		culture: (norm) => cultureLine(runtime.universe, norm),
		chronotopes,
		parallel,
		existing,
		save: (item) => {
			appender.append(item);
			if (!flags['json']) io.stderr.write(`${itemLine(item)}\n`);
		},
		context: call,
		refine: {maxRounds},
		breaker,
	});
	const tally = buildTally(result.built);
	const summary = {file, norms: norms.length, trapNorms, built: result.built.length, skipped: result.skipped, ...tally, normErrors: result.normErrors, usage: summarizeCalls(calls), interrupted: Boolean(io.signal?.aborted), stopped: result.stopped};
	if (flags['json']) writeJson(io, summary);
	else {
		for (const failure of result.normErrors) io.stderr.write(chalk.red(`norm ${failure.normId}: no settings (${failure.error})\n`));
		const statuses = Object.entries(tally.byStatus).map(([status, n]) => `${n} ${status}`).join(', ') || 'nothing new';
		const routes = Object.entries(tally.decisions).map(([decision, n]) => `${decision} ${n}`).join(', ');
		write(io, `Built ${result.built.length} item(s) from ${norms.length} norm(s): ${statuses}${result.skipped ? `; ${result.skipped} already in the file` : ''}.`);
		if (routes) write(io, `Router decisions: ${routes}${tally.meanRoundsKept !== null ? `; kept items took ${tally.meanRoundsKept.toFixed(1)} round(s) on average` : ''}.`);
		if (trapNorms > 0) write(io, `${trapNorms} of the norms are taboo KB entries that also set CultureConverse's normative traps (see the note above).`);
		write(io, `Spent: ${formatUsage(calls)}`);
		write(io, `Items: ${file}${summary.interrupted ? ' (interrupted: run the same command again to continue)' : ''}`);
	}
	if (reportStop(io, runtime, breaker, 'norms or items')) return ExitCode.badInput;
	if (summary.interrupted) return ExitCode.interrupted;
	return result.normErrors.length > 0 || (tally.byStatus['failed'] ?? 0) > 0 ? ExitCode.episodeError : ExitCode.ok;
}

function show({args, flags, io, universe}: CommandContext): number {
	const id = args[1];
	if (!id) throw new UserError('Usage: npx cultureconverse crisp show <item-id> [--items FILE]');
	const {items: file} = files(flags, io);
	const items = readItems(file, io, universe());
	const item = items.find((candidate) => candidate.id === id);
	if (!item) throw new UserError(unknownMessage('item', id, items.map((candidate) => candidate.id), items.length === 0 ? `${file} holds no items yet: run \`npx cultureconverse crisp build\`.` : undefined));
	if (flags['json']) writeJson(io, item);
	else write(io, formatItem(item));
	return ExitCode.ok;
}

/** One evaluating process per evaluations file, as for items (see lockFile). */
async function evaluate(context: CommandContext): Promise<number> {
	const lock = lockFile(files(context.flags, context.io).evals, context.io);
	try {
		return await evaluateLocked(context);
	} finally {
		lock.release();
	}
}

async function evaluateLocked(context: CommandContext): Promise<number> {
	const {flags, io} = context;
	const universe = context.universe();
	const {items: itemsFile, evals: evalsFile} = files(flags, io);
	const matches = cultureFilter(flags);
	const split = splitFlag(flags, 'any');
	let items = readItems(itemsFile, io, universe)
		.filter(isKept)
		.filter((item) => (!matches || matches(item.norm)) && (split === 'any' || normSplit(item.norm.id) === split));
	if (items.length === 0) throw new UserError(`No kept item to evaluate in ${itemsFile}${matches || split !== 'any' ? ' for these flags' : ''}: run \`npx cultureconverse crisp build\` first.`);
	if (flags['limit'] !== undefined) items = spreadNorms(items, (item) => item.id, (item) => item.norm).slice(0, wholeFlag(flags, 'limit', {min: 1}, 0));
	const bestOf = wholeFlag(flags, 'bestOf', {min: 1, max: 64}, 1);
	const lambda = lambdaOf(flags);
	const selector = rewardSelector(context);
	const {runtime, call, calls, breaker, parallel} = await callContext(context, ['assistant', 'judge']);
	const grounding = groundingSource(context, runtime.gateway.settings('judge').model);
	const policyModel = runtime.gateway.settings('assistant').model;
	const existing = new Map(readEvals(evalsFile, io, universe).filter((evaluation) => evaluation.policyModel === policyModel).map((evaluation) => [evaluation.itemId, evaluation]));
	const appender = jsonlAppender(evalsFile);
	const save = (evaluation: SituatedEval) => {
		appender.append(evaluation);
		if (!flags['json']) io.stderr.write(`${evalLine(evaluation, selector?.id ?? null)}\n`);
	};
	const result = await evaluateItems({items, parallel, existing, save, context: call, options: {bestOf, selector, grounding}, breaker});
	const chosenIds = new Set(items.map((item) => item.id));
	const report = summarizeEvals(readEvals(evalsFile, io, universe).filter((evaluation) => evaluation.policyModel === policyModel && chosenIds.has(evaluation.itemId)), {lambda, ...intervalOptions(flags)});
	const interrupted = Boolean(io.signal?.aborted);
	if (flags['json']) writeJson(io, {evals: evalsFile, evaluated: result.evaluated.length, completed: result.completed.length, skipped: result.skipped, errors: result.errors, selector: selector?.id ?? null, grounding: grounding?.id ?? null, ...report, usage: summarizeCalls(calls), interrupted, stopped: result.stopped});
	else {
		for (const failure of result.errors) io.stderr.write(chalk.red(`${failure.itemId}: ${failure.error}\n`));
		write(io, reportText(report, intervalNote(intervalOptions(flags))));
		const completed = result.completed.length ? `; ${result.completed.length} saved evaluation(s) completed (${selector ? `scores of ${selector.id}` : 'grounding'})` : '';
		write(io, `Evaluated ${result.evaluated.length} item(s) with ${policyModel} (best of ${bestOf}${selector ? `, ranked by ${selector.id}` : ', no reward model: give --reward-model or --reward-endpoint for best-of-N'})${completed}${result.skipped ? `; ${result.skipped} already evaluated` : ''}. Spent: ${formatUsage(calls)}. Evaluations: ${evalsFile}`);
	}
	if (reportStop(io, runtime, breaker, 'items')) return ExitCode.badInput;
	if (interrupted) return ExitCode.interrupted;
	return result.errors.length > 0 ? ExitCode.episodeError : ExitCode.ok;
}

function report(context: CommandContext): number {
	const {flags, io} = context;
	const {evals: file} = files(flags, io);
	const matches = cultureFilter(flags);
	const evals = readEvals(file, io, context.universe()).filter((evaluation) => !matches || matches(evaluation));
	if (evals.length === 0) throw new UserError(`No evaluation in ${file}${matches ? ' for these flags' : ''}: run \`npx cultureconverse crisp eval\` first.`);
	const summary = summarizeEvals(evals, {lambda: lambdaOf(flags), ...intervalOptions(flags)});
	if (typeof flags['html'] === 'string') {
		const target = path.resolve(io.cwd, flags['html']);
		writeFileAtomic(target, crispPage(summary, {title: 'cultureconverse crisp report', generatedAt: new Date().toISOString().replace(/\.\d+Z$/, 'Z'), mockNotice: crispMockNotice(evals), intervals: intervalNote(intervalOptions(flags))}));
		io.stderr.write(`Wrote ${target}\n`);
	}
	if (flags['json']) writeJson(io, summary);
	else write(io, reportText(summary, intervalNote(intervalOptions(flags))));
	return ExitCode.ok;
}

/** The mock notice of CRISP evaluations, from which of their roles (policy, grader) ran on the mock. */
function crispMockNotice(evals: readonly SituatedEval[]): string | null {
	const isMock = (model: string) => model === 'mock' || model.startsWith('mock:');
	const roles = (evaluation: SituatedEval) => [...(isMock(evaluation.policyModel) ? ['policy'] : []), ...(isMock(evaluation.judgeModel) ? ['grader'] : [])];
	const touched = evals.filter((evaluation) => roles(evaluation).length > 0);
	return mockWording({records: evals.length, touched: touched.length, all: evals.length > 0 && evals.every((evaluation) => roles(evaluation).length === 2), roles: [...new Set(touched.flatMap(roles))], what: 'evaluation'});
}
