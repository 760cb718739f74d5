import path from 'node:path';
import chalk from 'chalk';
import {createRuntime, runtimeFlags} from '../app/runtime.js';
import {registerSchema} from '../domain/registry.js';
import type {CallRecord} from '../domain/session.js';
import {Norm, SituatedEval, SituatedItem, isKept} from '../domain/situated.js';
import {resolveKbLocation} from '../kb/knowledgeBase.js';
import {loadKbSources} from '../kb/sources.js';
import {summarizeCalls} from '../llm/usage.js';
import {buildTally, evalLine, formatItem, itemLine, reportTable} from '../present/situated.js';
import {formatUsage} from '../present/text.js';
import {crispPage} from '../html/crispPage.js';
import {writeFileAtomic} from '../util/atomicWrite.js';
import type {CallContext} from '../situated/agents.js';
import {jsonlAppender} from '../situated/jsonl.js';
import {cultureLine, dedupe, normFromTaboo, normIdentityProblems, readNormFile} from '../situated/norms.js';
import {DEFAULT_MAX_ROUNDS} from '../situated/refine.js';
import {buildItems, evaluateItems} from '../situated/run.js';
import {summarizeEvals} from '../situated/summary.js';
import {DataError, ExitCode, UserError} from '../util/errors.js';
import {unknownMessage} from '../util/suggest.js';
import {renderTable} from '../util/table.js';
import {bestOfN, calibrateRewards, pairs, samples, sft} from './crispData.js';
import {files, readEvals, readItems, regions, spread} from './crispFiles.js';
import {wholeFlag} from './flagValues.js';
import {type Command, type CommandContext, write, writeJson} from './types.js';

registerSchema('norm', Norm, 'a cultural norm for situated items (crisp build --norms FILE takes JSONL of these)');
registerSchema('situated-item', SituatedItem, 'one built situated decision item with its refinement rounds (crisp build)');
registerSchema('situated-eval', SituatedEval, 'one evaluated situated item: sampled answers, scores, best-of-N choice (crisp eval)');

const SUBCOMMANDS = ['norms', 'build', 'show', 'eval', 'report', 'pairs', 'sft', 'samples', 'bon', 'calibrate'] as const;

export const crispCommand: Command = {
	name: 'crisp',
	summary: 'Situated decision items (CRISP): norms → settings → refined questions; eval with outcome and norm match, best-of-N, pairs',
	usage: [
		'crisp norms [--region R] [--norms FILE] [--limit N] [--json]',
		'crisp build [--region R] [--norms FILE] [--norm ID]... [--limit N] [--chronotopes K] [--max-rounds R] [--parallel P] [--items FILE] [--json]',
		'crisp show <item-id> [--items FILE] [--json]',
		'crisp eval [--region R] [--limit N] [--best-of N] [--lambda X] [--parallel P] [--items FILE] [--evals FILE] [--json]',
		'crisp report [--evals FILE] [--html FILE] [--json]',
		'crisp pairs [--min-margin M] [--items FILE] [--evals FILE] [--out FILE]',
		'crisp sft [--min-outcome 5] [--min-match 2] [--items FILE] [--evals FILE] [--out FILE]',
		'crisp samples [--items FILE] [--evals FILE] [--out FILE]      every valid answer, for an external reward model to score',
		'crisp bon --rewards FILE [--n N] [--json]                       best-of-N with those scores: how good is the reward model\'s pick?',
		'crisp calibrate --rewards FILE [--json]',
	].join('\n    $ cultureconverse '),
	flags: {
		region: {type: 'string', isMultiple: true, description: 'Only norms / items of this region (repeatable)'},
		norms: {type: 'string', description: 'Norms from this file (JSONL of `schema norm`, or FORK csv/jsonl) instead of the taboo KB'},
		norm: {type: 'string', isMultiple: true, description: 'Only this norm id (repeatable)'},
		limit: {type: 'number', description: 'At most this many norms (build) or items (eval), a stable spread over regions'},
		chronotopes: {type: 'number', description: 'Settings, and so items, per norm (default 3, as in the paper)'},
		maxRounds: {type: 'number', description: `Verification rounds before an item is discarded (default ${DEFAULT_MAX_ROUNDS})`},
		bestOf: {type: 'number', description: 'eval: answers sampled per item; the highest reward is the best-of-N pick (default 1)'},
		lambda: {type: 'number', description: 'eval: weight of norm grounding in the reward, r = σ(outcome) + λ·match/2 (default 0.5)'},
		parallel: {type: 'number', description: 'Norms (build) or items (eval) in flight at once (default 4)'},
		items: {type: 'string', description: 'Items file (default <sessions>/crisp/items.jsonl)'},
		evals: {type: 'string', description: 'Evaluations file (default <sessions>/crisp/evals.jsonl)'},
		minMargin: {type: 'number', description: 'pairs: fewest outcome points between chosen and rejected (default 1)'},
		minOutcome: {type: 'number', description: 'sft: lowest outcome score (1-5) of the best-of-N answer kept (default 5)'},
		minMatch: {type: 'number', description: 'sft: lowest norm match (0-2) of the best-of-N answer kept (default 2)'},
		rewards: {type: 'string', description: 'bon: JSONL of {"id", "reward"} for the ids of `crisp samples`; calibrate: raw rewards, one number per line (or JSONL with a "reward" field)'},
		n: {type: 'number', description: 'bon: only the first N samples of each item (default all)'},
		out: {type: 'string', description: 'pairs, sft, samples: write the JSONL here (atomically) instead of stdout'},
		html: {type: 'string', description: 'report: also write the report as one self-contained HTML file with charts'},
		json: {type: 'boolean', description: 'Print JSON'},
		...runtimeFlags,
	},
	async run(context) {
		const sub = context.args[0];
		if (sub === undefined) throw new UserError(`Usage: cultureconverse crisp ${SUBCOMMANDS.join('|')} ... (see cultureconverse crisp --help)`);
		switch (sub) {
			case 'norms':
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

function selectNorms({flags, io, universe}: CommandContext): Norm[] {
	const file = typeof flags['norms'] === 'string' ? path.resolve(io.cwd, flags['norms']) : null;
	const all = file ? readNormFile(file) : dedupe(loadKbSources(resolveKbLocation({env: io.env, cwd: io.cwd}), {universe: universe()}).taboo.map(({entry}) => normFromTaboo(entry)));
	if (file) {
		const problems = normIdentityProblems(all, universe());
		if (problems.length > 0) throw new DataError(path.basename(file), problems.slice(0, 20));
	}
	const wanted = regions(flags);
	const ids = (flags['norm'] as string[] | undefined) ?? [];
	for (const id of ids) if (!all.some((norm) => norm.id === id)) throw new UserError(unknownMessage('norm', id, all.map((norm) => norm.id)));
	let chosen = all.filter((norm) => (!wanted || wanted.has(norm.region)) && (ids.length === 0 || ids.includes(norm.id)));
	if (flags['limit'] !== undefined) chosen = spread(chosen, (norm) => norm.id, (norm) => norm.region).slice(0, wholeFlag(flags, 'limit', {min: 1}, 0));
	return chosen;
}

function listNorms(context: CommandContext): number {
	const norms = selectNorms(context);
	if (context.flags['json']) writeJson(context.io, norms);
	else {
		write(context.io, renderTable(norms, [{header: 'ID', value: (norm) => norm.id}, {header: 'REGION', value: (norm) => norm.region}, {header: 'TYPE', value: (norm) => norm.type}, {header: 'NORM', value: (norm) => norm.text, max: 90}]));
		context.io.stderr.write(`${norms.length} norm(s).\n`);
	}
	return ExitCode.ok;
}

function callContext(context: CommandContext) {
	const runtime = createRuntime({flags: context.flags, io: context.io, universe: context.universe()});
	if (runtime.settings.offline && !context.flags['json']) context.io.stderr.write(chalk.yellow('Offline mock provider: no model endpoint is configured (set OPENAI_BASE_URL / OPENAI_API_KEY). Items and scores are deterministic filler marked [mock], not a measurement.\n'));
	const call: CallContext = {gateway: runtime.gateway, signal: context.io.signal};
	// Every finished or failed call of this run, for the spend line at the end.
	const calls: CallRecord[] = [];
	runtime.gateway.onEvent((event) => {
		if (event.type === 'call_done' || event.type === 'call_failed') calls.push(event.call);
	});
	return {runtime, call, calls, parallel: wholeFlag(context.flags, 'parallel', {min: 1, max: 256}, 4)};
}

async function build(context: CommandContext): Promise<number> {
	const {flags, io} = context;
	const norms = selectNorms(context);
	if (norms.length === 0) throw new UserError('No norm matches these flags (see `cultureconverse crisp norms`).');
	const chronotopes = wholeFlag(flags, 'chronotopes', {min: 1, max: 10}, 3);
	const maxRounds = wholeFlag(flags, 'maxRounds', {min: 1, max: 20}, DEFAULT_MAX_ROUNDS);
	const {items: file} = files(flags, io);
	const existing = readItems(file, io);
	const {runtime, call, calls, parallel} = callContext(context);
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
	});
	const tally = buildTally(result.built);
	const summary = {file, norms: norms.length, built: result.built.length, skipped: result.skipped, ...tally, normErrors: result.normErrors, usage: summarizeCalls(calls), interrupted: Boolean(io.signal?.aborted)};
	if (flags['json']) writeJson(io, summary);
	else {
		for (const failure of result.normErrors) io.stderr.write(chalk.red(`norm ${failure.normId}: no settings (${failure.error})\n`));
		const statuses = Object.entries(tally.byStatus).map(([status, n]) => `${n} ${status}`).join(', ') || 'nothing new';
		const routes = Object.entries(tally.decisions).map(([decision, n]) => `${decision} ${n}`).join(', ');
		write(io, `Built ${result.built.length} item(s) from ${norms.length} norm(s): ${statuses}${result.skipped ? `; ${result.skipped} already in the file` : ''}.`);
		if (routes) write(io, `Router decisions: ${routes}${tally.meanRoundsKept !== null ? `; kept items took ${tally.meanRoundsKept.toFixed(1)} round(s) on average` : ''}.`);
		write(io, `Spent: ${formatUsage(calls)}`);
		write(io, `Items: ${file}${summary.interrupted ? ' (interrupted: run the same command again to continue)' : ''}`);
	}
	if (summary.interrupted) return ExitCode.interrupted;
	return result.normErrors.length > 0 || (tally.byStatus['failed'] ?? 0) > 0 ? ExitCode.episodeError : ExitCode.ok;
}

function show({args, flags, io}: CommandContext): number {
	const id = args[1];
	if (!id) throw new UserError('Usage: cultureconverse crisp show <item-id> [--items FILE]');
	const {items: file} = files(flags, io);
	const items = readItems(file, io);
	const item = items.find((candidate) => candidate.id === id);
	if (!item) throw new UserError(unknownMessage('item', id, items.map((candidate) => candidate.id), items.length === 0 ? `${file} holds no items yet: run \`cultureconverse crisp build\`.` : undefined));
	if (flags['json']) writeJson(io, item);
	else write(io, formatItem(item));
	return ExitCode.ok;
}

async function evaluate(context: CommandContext): Promise<number> {
	const {flags, io} = context;
	const {items: itemsFile, evals: evalsFile} = files(flags, io);
	const wanted = regions(flags);
	let items = readItems(itemsFile, io).filter(isKept).filter((item) => !wanted || wanted.has(item.norm.region));
	if (items.length === 0) throw new UserError(`No kept item to evaluate in ${itemsFile}${wanted ? ' for these regions' : ''}: run \`cultureconverse crisp build\` first.`);
	if (flags['limit'] !== undefined) items = spread(items, (item) => item.id, (item) => item.norm.region).slice(0, wholeFlag(flags, 'limit', {min: 1}, 0));
	const bestOf = wholeFlag(flags, 'bestOf', {min: 1, max: 64}, 1);
	const lambda = flags['lambda'] ?? 0.5;
	if (typeof lambda !== 'number' || lambda < 0 || lambda > 10) throw new UserError(`--lambda must be a number from 0 to 10, got ${String(flags['lambda'])}.`);
	const {runtime, call, calls, parallel} = callContext(context);
	const policyModel = runtime.gateway.settings('assistant').model;
	const done = new Set(readEvals(evalsFile, io).filter((evaluation) => evaluation.policyModel === policyModel && evaluation.samples.length >= bestOf).map((evaluation) => evaluation.itemId));
	const appender = jsonlAppender(evalsFile);
	const save = (evaluation: SituatedEval) => {
		appender.append(evaluation);
		if (!flags['json']) io.stderr.write(`${evalLine(evaluation)}\n`);
	};
	const result = await evaluateItems({items, parallel, done, save, context: call, options: {bestOf, lambda}});
	const chosenIds = new Set(items.map((item) => item.id));
	const rows = summarizeEvals(readEvals(evalsFile, io).filter((evaluation) => evaluation.policyModel === policyModel && chosenIds.has(evaluation.itemId)));
	const interrupted = Boolean(io.signal?.aborted);
	if (flags['json']) writeJson(io, {evals: evalsFile, evaluated: result.evaluated.length, skipped: result.skipped, errors: result.errors, rows, usage: summarizeCalls(calls), interrupted});
	else {
		for (const failure of result.errors) io.stderr.write(chalk.red(`${failure.itemId}: ${failure.error}\n`));
		write(io, reportTable(rows));
		write(io, `Evaluated ${result.evaluated.length} item(s) with ${policyModel} (best of ${bestOf})${result.skipped ? `; ${result.skipped} already evaluated` : ''}. Spent: ${formatUsage(calls)}. Evaluations: ${evalsFile}`);
	}
	if (interrupted) return ExitCode.interrupted;
	return result.errors.length > 0 ? ExitCode.episodeError : ExitCode.ok;
}

function report({flags, io}: CommandContext): number {
	const {evals: file} = files(flags, io);
	const evals = readEvals(file, io);
	if (evals.length === 0) throw new UserError(`No evaluation in ${file}: run \`cultureconverse crisp eval\` first.`);
	const rows = summarizeEvals(evals);
	if (typeof flags['html'] === 'string') {
		const target = path.resolve(io.cwd, flags['html']);
		writeFileAtomic(target, crispPage(rows, {title: 'cultureconverse crisp report', generatedAt: new Date().toISOString().replace(/\.\d+Z$/, 'Z'), mock: evals.some((evaluation) => evaluation.policyModel === 'mock')}));
		io.stderr.write(`Wrote ${target}\n`);
	}
	if (flags['json']) writeJson(io, rows);
	else write(io, reportTable(rows));
	return ExitCode.ok;
}
