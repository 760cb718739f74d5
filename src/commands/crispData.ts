import {readFileSync} from 'node:fs';
import path from 'node:path';
import type {SituatedEval, SituatedItem} from '../domain/situated.js';
import {fixed, percent, withInterval} from '../present/numbers.js';
import {calibrate, fitCalibration} from '../situated/calibrate.js';
import {situatedPair, situatedSft} from '../situated/pairs.js';
import {rewardBestOfN, sampleId, samplesForScoring} from '../situated/rewardBoN.js';
import {writeFileAtomic} from '../util/atomicWrite.js';
import {DataError, ExitCode, UserError} from '../util/errors.js';
import {renderTable} from '../util/table.js';
import {files, readEvals, readItems} from './crispFiles.js';
import {wholeFlag} from './flagValues.js';
import {type CommandContext, write, writeJson} from './types.js';

/* The `crisp` subcommands that turn evaluations into data: pairs, SFT, samples for a reward model, its best-of-N, calibration. */

export function pairs({flags, io}: CommandContext): number {
	const margin = flags['minMargin'] ?? 1;
	if (typeof margin !== 'number' || margin < 0 || margin > 4) throw new UserError(`--min-margin must be a number from 0 to 4, got ${String(flags['minMargin'])}.`);
	return exportJsonl({flags, io}, 'pair', (evaluation, item) => {
		const result = situatedPair(evaluation, item, margin);
		return 'pair' in result ? {record: result.pair} : result;
	});
}

export function sft({flags, io}: CommandContext): number {
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
export function samples({flags, io}: CommandContext): number {
	return exportJsonl({flags, io}, 'sample', (evaluation, item) => {
		const list = samplesForScoring(evaluation, item);
		return list.length > 0 ? {records: list} : {skip: item ? 'no valid answer' : 'item not found'};
	});
}

/** `crisp bon`: best-of-N picked by external rewards, judged by the outcome grades already made. */
export function bestOfN({flags, io}: CommandContext): number {
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
export function calibrateRewards({flags, io}: CommandContext): number {
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
