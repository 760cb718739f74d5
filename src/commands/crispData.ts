import {readFileSync} from 'node:fs';
import path from 'node:path';
import type {SituatedEval, SituatedItem} from '../domain/situated.js';
import {formatPair, llamaFactoryDatasetInfo} from '../export/pairFormats.js';
import {fixed, percentWithInterval, withInterval} from '../present/numbers.js';
import {calibrate, fitCalibration, quantile} from '../situated/calibrate.js';
import {buildSituatedPairs, situatedSft} from '../situated/pairs.js';
import {rewardBestOfN, sampleId, samplesForScoring} from '../situated/rewardBoN.js';
import {writeFileAtomic} from '../util/atomicWrite.js';
import {DataError, ExitCode, UserError} from '../util/errors.js';
import {renderTable} from '../util/table.js';
import {files, readEvals, readItems, splitFlag} from './crispFiles.js';
import {pairFormat, wholeFlag} from './flagValues.js';
import {intervalOptions} from './reportSelection.js';
import {type CommandContext, type Flags, type IO, write, writeJson} from './types.js';

/* The `crisp` subcommands that turn evaluations into data: pairs, SFT, samples for a reward model, its best-of-N, calibration. */

/** Writes JSONL to --out (atomically) or stdout; returns where it went. */
function writeLines({flags, io}: {flags: Flags; io: IO}, records: readonly unknown[], noun: string): string | null {
	const text = records.map((record) => JSON.stringify(record)).join('\n') + (records.length > 0 ? '\n' : '');
	if (typeof flags['out'] !== 'string') {
		io.stdout.write(text);
		return null;
	}
	const target = path.resolve(io.cwd, flags['out']);
	writeFileAtomic(target, text);
	write(io, `Wrote ${records.length} ${noun}(s) to ${target}`);
	return target;
}

/**
 * `crisp pairs`: preference pairs the paper's way (every within-question pair of different grades,
 * at most --max-pairs-per-item per question, balanced across grades), in a trainer's layout.
 */
export function pairs(context: CommandContext): number {
	const {flags, io} = context;
	const margin = flags['minMargin'] ?? 1;
	if (typeof margin !== 'number' || margin < 1 || margin > 4) throw new UserError(`--min-margin must be a number from 1 to 4 (pairs of equal grades teach nothing), got ${String(flags['minMargin'])}.`);
	const format = pairFormat(flags);
	const maxPerItem = wholeFlag(flags, 'maxPairsPerItem', {min: 1, max: 1000}, 8);
	const split = splitFlag(flags, 'train');
	const {items: itemsFile, evals: evalsFile} = files(flags, io);
	const items = new Map(readItems(itemsFile, io, context.universe()).map((item) => [item.id, item]));
	const evals = readEvals(evalsFile, io, context.universe());
	if (evals.length === 0) throw new UserError(`No evaluation in ${evalsFile}: run \`npx cultureconverse crisp eval --best-of 4\` first.`);
	const built = buildSituatedPairs(evals, items, {minMargin: margin, maxPerItem, balance: flags['balance'] !== false, split});
	const out = writeLines({flags, io}, built.pairs.map((pair) => formatPair(pair, format)), 'pair');
	const reasons = Object.entries(built.skipped).map(([reason, n]) => `${reason} ${n}`).join(', ');
	const grades = (counts: Record<string, number>) => ['5', '4', '3', '2', '1'].map((grade) => `${grade}:${counts[grade] ?? 0}`).join(' ');
	io.stderr.write(`${built.pairs.length} pair(s) (${format}) from ${evals.length} evaluation(s), split ${split}; answers by grade ${grades(built.pool.before)}${built.pool.cap !== null ? `, balanced to at most ${built.pool.cap} per grade: ${grades(built.pool.after)}` : ''}${reasons ? `; left out: ${reasons}` : ''}.\n`);
	if (format === 'sharegpt') io.stderr.write(`LLaMA-Factory: add to data/dataset_info.json: ${JSON.stringify(llamaFactoryDatasetInfo('crisp_pairs', out ? path.basename(out) : 'crisp-pairs.jsonl'))}\n`);
	if (built.pairs.length === 0 && evals.every((evaluation) => evaluation.samples.length < 2)) io.stderr.write('Hint: pairs need several answers per item: `crisp eval --best-of 4` (or more).\n');
	return ExitCode.ok;
}

export function sft(context: CommandContext): number {
	const {flags} = context;
	const outcome = flags['minOutcome'] ?? 5;
	const match = flags['minMatch'] ?? 2;
	if (typeof outcome !== 'number' || outcome < 1 || outcome > 5) throw new UserError(`--min-outcome must be a number from 1 to 5, got ${String(flags['minOutcome'])}.`);
	if (typeof match !== 'number' || match < 0 || match > 2) throw new UserError(`--min-match must be a number from 0 to 2, got ${String(flags['minMatch'])}.`);
	const split = splitFlag(flags, 'train');
	return exportJsonl(context, 'example', (evaluation, item) => {
		const result = situatedSft(evaluation, item, {outcome, match, split});
		return 'example' in result ? {record: result.example} : result;
	});
}

/** `crisp samples`: every valid sampled answer with what a reward model reads (culture, scenario, question, answer). */
export function samples(context: CommandContext): number {
	return exportJsonl(context, 'sample', (evaluation, item) => {
		const list = samplesForScoring(evaluation, item);
		return list.length > 0 ? {records: list} : {skip: item ? 'no valid answer' : 'item not found'};
	});
}

/** `crisp bon`: best-of-N picked by external rewards, judged by the outcome grades already made. */
export function bestOfN({flags, io, universe}: CommandContext): number {
	const file = flags['rewards'];
	if (typeof file !== 'string') throw new UserError('Usage: npx cultureconverse crisp bon --rewards FILE (JSONL of {"id": ..., "reward": ...} for the ids `crisp samples` wrote)');
	const n = flags['n'] === undefined ? undefined : wholeFlag(flags, 'n', {min: 1, max: 1024}, 1);
	const rewards = readRewardFile(path.resolve(io.cwd, file));
	const {evals: evalsFile} = files(flags, io);
	const evals = readEvals(evalsFile, io, universe());
	if (evals.length === 0) throw new UserError(`No evaluation in ${evalsFile}: run \`npx cultureconverse crisp eval --best-of 8\` first.`);
	const known = new Set(evals.flatMap((evaluation) => evaluation.samples.map((sample) => sampleId(evaluation, sample.sample))));
	const stray = [...rewards.keys()].filter((id) => !known.has(id));
	if (stray.length === rewards.size) throw new UserError(`None of the ${rewards.size} reward id(s) in ${file} is a sample of ${evalsFile} (ids look like ${[...known][0] ?? '<item>#<model>#<sample>'}; write them with \`crisp samples\`).`);
	if (stray.length > 0) io.stderr.write(`Note: ${stray.length} reward id(s) match no sample and were ignored (${stray.slice(0, 3).join(', ')}${stray.length > 3 ? ', ...' : ''}).\n`);
	const options = intervalOptions(flags);
	const rows = rewardBestOfN(evals, rewards, n, options);
	if (flags['json']) {
		writeJson(io, rows);
		return ExitCode.ok;
	}
	write(io, 'Best-of-N by an external reward model: the outcome grade (1-5; invalid = 0) of each pick. The oracle pick (ceiling) is the best grade among the samples, picked by the grader that reads the norm; graders are never pooled.');
	write(io, renderTable(rows, [
		{header: 'POLICY', value: (row) => row.policyModel, max: 24},
		{header: 'GRADER', value: (row) => row.judgeModel, max: 18},
		{header: 'ITEMS', value: (row) => row.items, align: 'right'},
		{header: 'NORMS', value: (row) => `${row.norms}${row.small ? '*' : ''}`, align: 'right'},
		{header: 'N', value: (row) => row.n, align: 'right'},
		{header: 'FIRST', value: (row) => withInterval(row.first)},
		{header: 'RANDOM', value: (row) => fixed(row.random?.mean), align: 'right'},
		{header: 'REWARD MODEL', value: (row) => withInterval(row.rewardModel)},
		{header: 'ORACLE PICK (CEILING)', value: (row) => fixed(row.oracle?.mean), align: 'right'},
		{header: 'GAP', value: (row) => withInterval(row.gap)},
		{header: 'RM = CEILING', value: (row) => percentWithInterval(row.hitsCeiling), align: 'right'},
		{header: 'UNSCORED', value: (row) => row.unscored, align: 'right'},
	]));
	write(io, intervalNote(options));
	return ExitCode.ok;
}

/** What every CRISP interval is, in one sentence (the same engine and wording as `crisp report`). */
export const intervalNote = (options: {readonly seed: string; readonly resamples: number}) =>
	`Intervals: 95% cluster bootstrap with items clustered by norm (NORMS; * fewer than 10), ${options.resamples} resamples, seed "${options.seed}" (--seed, --resamples); shares: Wilson on the effective number of norms; n/a where none can be made.`;

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
function exportJsonl({flags, io, universe}: Pick<CommandContext, 'flags' | 'io' | 'universe'>, noun: string, make: (evaluation: SituatedEval, item: SituatedItem | undefined) => {record: unknown} | {records: readonly unknown[]} | {skip: string}): number {
	const {items: itemsFile, evals: evalsFile} = files(flags, io);
	const items = new Map(readItems(itemsFile, io, universe()).map((item) => [item.id, item]));
	const evals = readEvals(evalsFile, io, universe());
	if (evals.length === 0) throw new UserError(`No evaluation in ${evalsFile}: run \`npx cultureconverse crisp eval\` first.`);
	const out: unknown[] = [];
	const skipped: Record<string, number> = {};
	for (const evaluation of evals) {
		const result = make(evaluation, items.get(evaluation.itemId));
		if ('record' in result) out.push(result.record);
		else if ('records' in result) out.push(...result.records);
		else skipped[result.skip] = (skipped[result.skip] ?? 0) + 1;
	}
	writeLines({flags, io}, out, noun);
	const reasons = Object.entries(skipped).map(([reason, n]) => `${reason} ${n}`).join(', ');
	io.stderr.write(`${out.length} ${noun}(s) from ${evals.length} evaluation(s)${reasons ? `; left out: ${reasons}` : ''}.\n`);
	return ExitCode.ok;
}

/** Robust calibration of raw reward-model scores: median and IQR/1.349, and where the quartiles land. */
export function calibrateRewards({flags, io}: CommandContext): number {
	const file = flags['rewards'];
	if (typeof file !== 'string') throw new UserError('Usage: npx cultureconverse crisp calibrate --rewards FILE (one number per line, or JSONL with a "reward" field)');
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
	// The same quantile rule as the fit (linear interpolation, type 7): the 0.5 row is the fitted median
	// and calibrates to exactly 0.5, and the 0.25 / 0.75 rows span the IQR the scale was taken from.
	const points = [0.05, 0.25, 0.5, 0.75, 0.95].map((q) => ({q, raw: quantile(sorted, q)})).map((point) => ({...point, calibrated: calibrate(point.raw, calibration)}));
	if (flags['json']) writeJson(io, {...calibration, points});
	else {
		write(io, `median ${calibration.median}, robust scale ${calibration.scale.toFixed(4)} (IQR / 1.349), from ${calibration.n} rewards`);
		write(io, 'r = σ(clip((raw − median) / scale, −20, 20)); quantiles by linear interpolation between order statistics (type 7), as in the fit');
		write(io, renderTable(points, [{header: 'QUANTILE', value: (point) => point.q}, {header: 'RAW', value: (point) => Number(point.raw.toPrecision(6)), align: 'right'}, {header: 'CALIBRATED', value: (point) => point.calibrated.toFixed(3), align: 'right'}]));
	}
	return ExitCode.ok;
}
