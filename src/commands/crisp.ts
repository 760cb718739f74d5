import {readFileSync} from 'node:fs';
import path from 'node:path';
import chalk from 'chalk';
import type {z} from 'zod';
import {createRuntime, runtimeFlags, sessionsDir} from '../app/runtime.js';
import {registerSchema} from '../domain/registry.js';
import {Norm, SituatedEval, SituatedItem, isKept} from '../domain/situated.js';
import type {RegionCode} from '../domain/universe.js';
import {resolveKbLocation} from '../kb/knowledgeBase.js';
import {loadKbSources} from '../kb/sources.js';
import {fixed, percent, withInterval} from '../present/numbers.js';
import {buildTally, evalLine, formatItem, itemLine, reportTable} from '../present/situated.js';
import type {CallContext} from '../situated/agents.js';
import {calibrate, fitCalibration} from '../situated/calibrate.js';
import {jsonlAppender, latestById, readJsonl} from '../situated/jsonl.js';
import {cultureLine, dedupe, normFromTaboo, readNormFile} from '../situated/norms.js';
import {situatedPair, situatedSft} from '../situated/pairs.js';
import {rewardBestOfN, sampleId, samplesForScoring} from '../situated/rewardBoN.js';
import {DEFAULT_MAX_ROUNDS} from '../situated/refine.js';
import {buildItems, evaluateItems} from '../situated/run.js';
import {summarizeEvals} from '../situated/summary.js';
import {writeFileAtomic} from '../util/atomicWrite.js';
import {DataError, ExitCode, UserError} from '../util/errors.js';
import {fnv1a} from '../util/hash.js';
import {unknownMessage} from '../util/suggest.js';
import {renderTable} from '../util/table.js';
import {regionCode, wholeFlag} from './flagValues.js';
import {type Command, type CommandContext, type Flags, type IO, write, writeJson} from './types.js';

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
		'crisp report [--evals FILE] [--json]',
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

const files = (flags: Flags, io: IO) => {
	const base = path.join(sessionsDir(flags, io), 'crisp');
	const pick = (name: string, fallback: string) => (typeof flags[name] === 'string' ? path.resolve(io.cwd, flags[name]) : path.join(base, fallback));
	return {items: pick('items', 'items.jsonl'), evals: pick('evals', 'evals.jsonl')};
};

function regions(flags: Flags): ReadonlySet<RegionCode> | null {
	const list = (flags['region'] as string[] | undefined) ?? [];
	if (list.length === 0) return null;
	return new Set(list.map(regionCode));
}

/**
 * A stable spread: regions take turns, and within a region the order is a hash of the id, so --limit
 * takes a mix of regions and the same selection every time.
 */
function spread<T>(list: readonly T[], id: (value: T) => string, region: (value: T) => string): T[] {
	const byRegion = new Map<string, T[]>();
	for (const value of list) {
		const queue = byRegion.get(region(value));
		if (queue) queue.push(value);
		else byRegion.set(region(value), [value]);
	}
	const queues = [...byRegion.entries()].sort(([a], [b]) => (a < b ? -1 : 1)).map(([, values]) => values.sort((a, b) => fnv1a(id(a)) - fnv1a(id(b)) || (id(a) < id(b) ? -1 : 1)));
	const out: T[] = [];
	for (let round = 0; out.length < list.length; round++) for (const queue of queues) if (round < queue.length) out.push(queue[round]!);
	return out;
}

function selectNorms({flags, io, universe}: CommandContext): Norm[] {
	const file = typeof flags['norms'] === 'string' ? path.resolve(io.cwd, flags['norms']) : null;
	const all = file ? readNormFile(file) : dedupe(loadKbSources(resolveKbLocation({env: io.env, cwd: io.cwd}), {universe: universe()}).taboo.map(({entry}) => normFromTaboo(entry)));
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
	return {runtime, call, parallel: wholeFlag(context.flags, 'parallel', {min: 1, max: 256}, 4)};
}

/** The latest record per key of a JSONL file, warning about a line an interrupted run cut off. */
function readLatest<T>(file: string, schema: z.ZodType<T>, key: (record: T) => string, what: string, io: IO): T[] {
	const read = readJsonl(file, schema);
	if (read.droppedLastLine) io.stderr.write(`cultureconverse: the last line of ${file} was cut off (an interrupted run); that ${what} will be run again.\n`);
	return latestById(read.records, key);
}

const readItems = (file: string, io: IO) => readLatest(file, SituatedItem, (item) => item.id, 'item', io);
const readEvals = (file: string, io: IO) => readLatest(file, SituatedEval, (evaluation) => `${evaluation.itemId}\0${evaluation.policyModel}`, 'evaluation', io);


async function build(context: CommandContext): Promise<number> {
	const {flags, io} = context;
	const norms = selectNorms(context);
	if (norms.length === 0) throw new UserError('No norm matches these flags (see `cultureconverse crisp norms`).');
	const chronotopes = wholeFlag(flags, 'chronotopes', {min: 1, max: 10}, 3);
	const maxRounds = wholeFlag(flags, 'maxRounds', {min: 1, max: 20}, DEFAULT_MAX_ROUNDS);
	const {items: file} = files(flags, io);
	const existing = readItems(file, io);
	const {runtime, call, parallel} = callContext(context);
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
	const summary = {file, norms: norms.length, built: result.built.length, skipped: result.skipped, ...tally, normErrors: result.normErrors, interrupted: Boolean(io.signal?.aborted)};
	if (flags['json']) writeJson(io, summary);
	else {
		for (const failure of result.normErrors) io.stderr.write(chalk.red(`norm ${failure.normId}: no settings (${failure.error})\n`));
		const statuses = Object.entries(tally.byStatus).map(([status, n]) => `${n} ${status}`).join(', ') || 'nothing new';
		const routes = Object.entries(tally.decisions).map(([decision, n]) => `${decision} ${n}`).join(', ');
		write(io, `Built ${result.built.length} item(s) from ${norms.length} norm(s): ${statuses}${result.skipped ? `; ${result.skipped} already in the file` : ''}.`);
		if (routes) write(io, `Router decisions: ${routes}${tally.meanRoundsKept !== null ? `; kept items took ${tally.meanRoundsKept.toFixed(1)} round(s) on average` : ''}.`);
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
	const {runtime, call, parallel} = callContext(context);
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
	if (flags['json']) writeJson(io, {evals: evalsFile, evaluated: result.evaluated.length, skipped: result.skipped, errors: result.errors, rows, interrupted});
	else {
		for (const failure of result.errors) io.stderr.write(chalk.red(`${failure.itemId}: ${failure.error}\n`));
		write(io, reportTable(rows));
		write(io, `Evaluated ${result.evaluated.length} item(s) with ${policyModel} (best of ${bestOf})${result.skipped ? `; ${result.skipped} already evaluated` : ''}. Evaluations: ${evalsFile}`);
	}
	if (interrupted) return ExitCode.interrupted;
	return result.errors.length > 0 ? ExitCode.episodeError : ExitCode.ok;
}

function report({flags, io}: CommandContext): number {
	const {evals: file} = files(flags, io);
	const evals = readEvals(file, io);
	if (evals.length === 0) throw new UserError(`No evaluation in ${file}: run \`cultureconverse crisp eval\` first.`);
	const rows = summarizeEvals(evals);
	if (flags['json']) writeJson(io, rows);
	else write(io, reportTable(rows));
	return ExitCode.ok;
}

function pairs({flags, io}: CommandContext): number {
	const margin = flags['minMargin'] ?? 1;
	if (typeof margin !== 'number' || margin < 0 || margin > 4) throw new UserError(`--min-margin must be a number from 0 to 4, got ${String(flags['minMargin'])}.`);
	return exportJsonl({flags, io}, 'pair', (evaluation, item) => {
		const result = situatedPair(evaluation, item, margin);
		return 'pair' in result ? {record: result.pair} : result;
	});
}

function sft({flags, io}: CommandContext): number {
	const outcome = flags['minOutcome'] ?? 5;
	const match = flags['minMatch'] ?? 2;
	if (typeof outcome !== 'number' || outcome < 1 || outcome > 5) throw new UserError(`--min-outcome must be a number from 1 to 5, got ${String(flags['minOutcome'])}.`);
	if (typeof match !== 'number' || match < 0 || match > 2) throw new UserError(`--min-match must be a number from 0 to 2, got ${String(flags['minMatch'])}.`);
	return exportJsonl({flags, io}, 'example', (evaluation, item) => {
		const result = situatedSft(evaluation, item, {outcome, match});
		return 'example' in result ? {record: result.example} : result;
	});
}

/** `crisp samples`: every valid sampled answer with what a reward model reads (culture, scenario, question, answer). */
function samples({flags, io}: CommandContext): number {
	return exportJsonl({flags, io}, 'sample', (evaluation, item) => {
		const list = samplesForScoring(evaluation, item);
		return list.length > 0 ? {records: list} : {skip: item ? 'no valid answer' : 'item not found'};
	});
}

/** `crisp bon`: best-of-N picked by external rewards, judged by the outcome grades already made. */
function bestOfN({flags, io}: CommandContext): number {
	const file = flags['rewards'];
	if (typeof file !== 'string') throw new UserError('Usage: cultureconverse crisp bon --rewards FILE (JSONL of {"id": ..., "reward": ...} for the ids `crisp samples` wrote)');
	const n = flags['n'] === undefined ? undefined : wholeFlag(flags, 'n', {min: 1, max: 1024}, 1);
	const rewards = readRewardFile(path.resolve(io.cwd, file));
	const {evals: evalsFile} = files(flags, io);
	const evals = readEvals(evalsFile, io);
	if (evals.length === 0) throw new UserError(`No evaluation in ${evalsFile}: run \`cultureconverse crisp eval --best-of 8\` first.`);
	const known = new Set(evals.flatMap((evaluation) => evaluation.samples.map((sample) => sampleId(evaluation, sample.sample))));
	const stray = [...rewards.keys()].filter((id) => !known.has(id));
	if (stray.length === rewards.size) throw new UserError(`None of the ${rewards.size} reward id(s) in ${file} is a sample of ${evalsFile} (ids look like ${[...known][0] ?? '<item>#<model>#<sample>'}; write them with \`crisp samples\`).`);
	if (stray.length > 0) io.stderr.write(`Note: ${stray.length} reward id(s) match no sample and were ignored (${stray.slice(0, 3).join(', ')}${stray.length > 3 ? ', ...' : ''}).\n`);
	const rows = rewardBestOfN(evals, rewards, n);
	if (flags['json']) {
		writeJson(io, rows);
		return ExitCode.ok;
	}
	write(io, 'Best-of-N by an external reward model: the outcome grade (1-5; invalid = 0) of each pick, with 95% bootstrap intervals.');
	write(io, renderTable(rows, [
		{header: 'POLICY', value: (row) => row.policyModel, max: 24},
		{header: 'ITEMS', value: (row) => row.items, align: 'right'},
		{header: 'N', value: (row) => row.n, align: 'right'},
		{header: 'FIRST', value: (row) => withInterval(row.first)},
		{header: 'RANDOM', value: (row) => fixed(row.random?.mean), align: 'right'},
		{header: 'REWARD MODEL', value: (row) => withInterval(row.rewardModel)},
		{header: 'JUDGE', value: (row) => withInterval(row.judge)},
		{header: 'CEILING', value: (row) => fixed(row.ceiling?.mean), align: 'right'},
		{header: 'RM = CEILING', value: (row) => percent(row.hitsCeiling), align: 'right'},
		{header: 'UNSCORED', value: (row) => row.unscored, align: 'right'},
	]));
	return ExitCode.ok;
}

/** `{"id", "reward"}` per line; a line without a numeric reward or a duplicate id names its line. */
function readRewardFile(file: string): Map<string, number> {
	let text: string;
	try {
		text = readFileSync(file, 'utf8');
	} catch (error) {
		throw new UserError(`Cannot read ${file}: ${(error as NodeJS.ErrnoException).code ?? (error as Error).message}.`);
	}
	const rewards = new Map<string, number>();
	const problems: string[] = [];
	text.split('\n').forEach((line, index) => {
		if (!line.trim()) return;
		let row: {id?: unknown; reward?: unknown};
		try {
			row = JSON.parse(line) as typeof row;
		} catch {
			problems.push(`line ${index + 1}: not valid JSON`);
			return;
		}
		if (typeof row.id !== 'string' || typeof row.reward !== 'number' || !Number.isFinite(row.reward)) problems.push(`line ${index + 1}: needs a string "id" and a numeric "reward"`);
		else if (rewards.has(row.id)) problems.push(`line ${index + 1}: ${row.id} is scored twice`);
		else rewards.set(row.id, row.reward);
	});
	if (problems.length > 0) throw new DataError(file, problems.slice(0, 20));
	if (rewards.size === 0) throw new UserError(`${file} holds no rewards.`);
	return rewards;
}

/** One JSONL record per evaluation that yields one, to --out (atomically) or stdout; what was left out, and why, on stderr. */
function exportJsonl({flags, io}: Pick<CommandContext, 'flags' | 'io'>, noun: string, make: (evaluation: SituatedEval, item: SituatedItem | undefined) => {record: unknown} | {records: readonly unknown[]} | {skip: string}): number {
	const {items: itemsFile, evals: evalsFile} = files(flags, io);
	const items = new Map(readItems(itemsFile, io).map((item) => [item.id, item]));
	const evals = readEvals(evalsFile, io);
	if (evals.length === 0) throw new UserError(`No evaluation in ${evalsFile}: run \`cultureconverse crisp eval\` first.`);
	const out: unknown[] = [];
	const skipped: Record<string, number> = {};
	for (const evaluation of evals) {
		const result = make(evaluation, items.get(evaluation.itemId));
		if ('record' in result) out.push(result.record);
		else if ('records' in result) out.push(...result.records);
		else skipped[result.skip] = (skipped[result.skip] ?? 0) + 1;
	}
	const text = out.map((record) => JSON.stringify(record)).join('\n') + (out.length > 0 ? '\n' : '');
	if (typeof flags['out'] === 'string') {
		const target = path.resolve(io.cwd, flags['out']);
		writeFileAtomic(target, text);
		write(io, `Wrote ${out.length} ${noun}(s) to ${target}`);
	} else io.stdout.write(text);
	const reasons = Object.entries(skipped).map(([reason, n]) => `${reason} ${n}`).join(', ');
	io.stderr.write(`${out.length} ${noun}(s) from ${evals.length} evaluation(s)${reasons ? `; left out: ${reasons}` : ''}.\n`);
	if (noun === 'pair' && out.length === 0 && skipped['fewer than two valid samples']) io.stderr.write('Hint: pairs need several answers per item: `crisp eval --best-of 4` (or more).\n');
	return ExitCode.ok;
}

/** Robust calibration of raw reward-model scores: median and IQR/1.349, and where the quartiles land. */
function calibrateRewards({flags, io}: CommandContext): number {
	const file = flags['rewards'];
	if (typeof file !== 'string') throw new UserError('Usage: cultureconverse crisp calibrate --rewards FILE (one number per line, or JSONL with a "reward" field)');
	const full = path.resolve(io.cwd, file);
	let text: string;
	try {
		text = readFileSync(full, 'utf8');
	} catch (error) {
		throw new UserError(`Cannot read ${full}: ${(error as NodeJS.ErrnoException).code ?? (error as Error).message}.`);
	}
	const values: number[] = [];
	const bad: number[] = [];
	text.split('\n').forEach((line, index) => {
		const trimmed = line.trim();
		if (!trimmed) return;
		let value = Number(trimmed);
		if (!Number.isFinite(value)) {
			try {
				value = Number((JSON.parse(trimmed) as {reward?: unknown}).reward);
			} catch {
				value = Number.NaN;
			}
		}
		if (Number.isFinite(value)) values.push(value);
		else bad.push(index + 1);
	});
	if (bad.length > 0) throw new UserError(`${full}: line(s) ${bad.slice(0, 10).join(', ')} hold no number (one number per line, or JSONL with a numeric "reward").`);
	if (values.length < 4) throw new UserError(`${full}: ${values.length} reward(s); calibration needs at least 4 to estimate quartiles.`);
	const calibration = fitCalibration(values);
	const sorted = [...values].sort((a, b) => a - b);
	const points = [0.05, 0.25, 0.5, 0.75, 0.95].map((q) => ({q, raw: sorted[Math.min(sorted.length - 1, Math.floor(q * sorted.length))]!})).map((point) => ({...point, calibrated: calibrate(point.raw, calibration)}));
	if (flags['json']) writeJson(io, {...calibration, points});
	else {
		write(io, `median ${calibration.median}, robust scale ${calibration.scale.toFixed(4)} (IQR / 1.349), from ${calibration.n} rewards`);
		write(io, 'r = σ(clip((raw − median) / scale, −20, 20))');
		write(io, renderTable(points, [{header: 'QUANTILE', value: (point) => point.q}, {header: 'RAW', value: (point) => point.raw, align: 'right'}, {header: 'CALIBRATED', value: (point) => point.calibrated.toFixed(3), align: 'right'}]));
	}
	return ExitCode.ok;
}

