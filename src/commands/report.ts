import {existsSync} from 'node:fs';
import path from 'node:path';
import {sessionsDir} from '../app/runtime.js';
import {METRICS} from '../domain/session.js';
import type {SessionSummary} from '../domain/sessionSummary.js';
import {fixed, percentWithInterval, signed, withInterval} from '../present/numbers.js';
import {buildReport, type Report, type ReportRow, reportable, type Slice, SLICES} from '../report/aggregate.js';
import {type MetricDistribution, scoreDistribution, trapGaps} from '../report/distribution.js';
import {judgeHumanAgreement} from '../report/agreement.js';
import type {Estimate} from '../report/bootstrap.js';
import {type Spread, runNoise} from '../report/noise.js';
import {readRatings} from '../report/ratings.js';
import {ratingsFile} from '../store/ratingStore.js';
import {ExitCode, UserError} from '../util/errors.js';
import {unknownMessage} from '../util/suggest.js';
import {renderTable} from '../util/table.js';
import {wholeFlag} from './flagValues.js';
import {selectSessions, sessionFilterFlags} from './sessions.js';
import {type Command, type Flags, type IO, write, writeJson} from './types.js';

const FORMATS = ['text', 'markdown', 'csv'] as const;

export const reportCommand: Command = {
	name: 'report',
	summary: 'Benchmark tables from saved sessions: 3H, TDQ, clean rate and the six metrics with bootstrap CIs, sliced',
	usage: ['report [--batch NAME] [--region R] [--persona P] [--template T] [--tier T] [--by model,mode,region,...] [--metrics] [--format text|markdown|csv] [--json]', 'report agreement [--ratings FILE] [--batch NAME] [filters] [--json]   (default: the TUI\'s sessions/ratings.jsonl)', 'report noise [--batch NAME] [filters] [--json]          run-to-run variation from --trials repeats', 'report scores [--batch NAME] [filters] [--json]         each judge metric\'s score distribution', 'report traps [--batch NAME] [filters] [--json]          standard against trap seeds, per model'].join('\n    $ cultureconverse '),
	flags: {
		batch: {type: 'string', description: 'Only the sessions of this batch'},
		...sessionFilterFlags,
		by: {type: 'string', description: `Slices, comma-separated: ${SLICES.join(', ')} (default model,mode)`},
		metrics: {type: 'boolean', description: 'Add a column per judge metric'},
		resamples: {type: 'number', description: 'Bootstrap resamples (default 2000)'},
		seed: {type: 'string', description: 'Seed of the bootstrap resampling (default "cultureconverse"; same data and seed, same intervals)'},
		includeMock: {type: 'boolean', description: 'Keep offline mock sessions when model sessions are present'},
		format: {type: 'string', description: 'text (default), markdown or csv'},
		ratings: {type: 'string', description: 'agreement: human ratings, JSONL or CSV (session, metric, score, rater); see `schema human-rating`'},
		json: {type: 'boolean', description: 'Print the report as JSON'},
	},
	async run({args, flags, io}) {
		if (args[0] === 'agreement') return agreement(flags, io);
		if (args[0] === 'noise') return noise(flags, io);
		if (args[0] === 'scores') return scores(flags, io);
		if (args[0] === 'traps') return traps(flags, io);
		if (args[0] !== undefined) throw new UserError(unknownMessage('report', args[0], ['agreement', 'noise', 'scores', 'traps'], 'Run `cultureconverse report --help`.'));
		const by = parseSlices(flags['by']);
		const format = typeof flags['format'] === 'string' ? flags['format'] : 'text';
		if (!(FORMATS as readonly string[]).includes(format)) throw new UserError(unknownMessage('format', format, FORMATS));
		const resamples = wholeFlag(flags, 'resamples', {min: 100, max: 100_000}, 2000);
		const chosen = chooseSessions(flags, io);
		const report = buildReport(chosen, by, {resamples, seed: typeof flags['seed'] === 'string' ? flags['seed'] : undefined, includeMock: Boolean(flags['includeMock'])});
		if (flags['json']) {
			writeJson(io, {...report, sessions: chosen.length, resamples, confidence: 0.95});
			return ExitCode.ok;
		}
		for (const note of report.notes) io.stderr.write(`Note: ${note}\n`);
		if (runNoise(chosen).length > 0) io.stderr.write('Note: some seeds were run more than once (--trials): `cultureconverse report noise` shows how much scores move between repeats.\n');
		if (format === 'csv') write(io, csv(report));
		else {
			const table = rowsFor(report, Boolean(flags['metrics']));
			if (format === 'markdown') write(io, markdown(table));
			else {
				const o = report.overall;
				write(io, `${o.n} scored episode(s), ${o.errors} ended in an error flag (not scored), ${o.unfinished} unfinished; means with 95% bootstrap intervals (${resamples} resamples)`);
				write(io, renderTable(table.rows, table.columns.map((header, index) => ({header, value: (cells: string[]) => cells[index]!, align: index >= table.textColumns ? ('right' as const) : undefined}))));
			}
		}
		return ExitCode.ok;
	},
};

/** The saved sessions a report is about: the filters, then the batch. Never empty. */
function chooseSessions(flags: Flags, io: IO): SessionSummary[] {
	const {store, chosen, total} = selectSessions(flags, io);
	if (chosen.length === 0) throw new UserError(total === 0 ? `No sessions in ${store.dir}. Run some with \`cultureconverse batch\` or \`run\`.` : 'No saved session matches the filters.');
	return chosen;
}

/** The sessions a sub-report counts (as for the main table), with its notes on stderr. */
function counted(flags: Flags, io: IO): SessionSummary[] {
	const {sessions, notes} = reportable(chooseSessions(flags, io), {includeMock: Boolean(flags['includeMock'])});
	for (const note of notes) io.stderr.write(`Note: ${note}\n`);
	const judges = new Set(sessions.map((s) => s.judgeModel));
	if (judges.size > 1) io.stderr.write(`Note: judged by ${judges.size} different models (${[...judges].join(', ')}): their scores are pooled here; filter with --batch or other selections to compare.\n`);
	return sessions;
}

/** `report scores`: how each judge metric's 1-5 scores are spread (mean, sd, median, share of each score). */
function scores(flags: Flags, io: IO): number {
	const rows = scoreDistribution(counted(flags, io));
	if (flags['json']) {
		writeJson(io, rows);
		return ExitCode.ok;
	}
	write(io, `Judge score distribution over ${Math.max(...rows.map((row) => row.n))} scored episode(s)`);
	write(io, renderTable(rows, [
		{header: 'METRIC', value: (row) => row.metric},
		{header: 'N', value: (row) => row.n, align: 'right'},
		{header: 'MEAN', value: (row) => fixed(row.mean), align: 'right'},
		{header: 'SD', value: (row) => fixed(row.sd), align: 'right'},
		{header: 'MEDIAN', value: (row) => fixed(row.median), align: 'right'},
		...[1, 2, 3, 4, 5].map((score) => ({header: `%${score}`, value: (row: MetricDistribution) => (row.shares[score - 1]! * 100).toFixed(1), align: 'right' as const})),
	]));
	return ExitCode.ok;
}

/** `report traps`: 3H on standard seeds against contextual and normative trap seeds, per assistant model. */
function traps(flags: Flags, io: IO): number {
	const rows = trapGaps(counted(flags, io), {seed: typeof flags['seed'] === 'string' ? flags['seed'] : undefined});
	if (flags['json']) {
		writeJson(io, rows);
		return ExitCode.ok;
	}
	write(io, 'Standard against trap seeds (contextual and normative friction): 3H with 95% bootstrap intervals; Δ = trap − standard, negative when traps are harder.');
	write(io, renderTable(rows, [
		{header: 'MODEL', value: (row) => row.model, max: 28},
		{header: 'N STD', value: (row) => row.standard?.n ?? 0, align: 'right'},
		{header: 'N TRAP', value: (row) => row.trap?.n ?? 0, align: 'right'},
		{header: 'STANDARD 3H', value: (row) => withInterval(row.standard)},
		{header: 'TRAP 3H', value: (row) => withInterval(row.trap)},
		{header: 'Δ 3H', value: (row) => (row.delta ? `${signed(row.delta.mean)} [${fixed(row.delta.lo)}, ${fixed(row.delta.hi)}]` : '–')},
	]));
	return ExitCode.ok;
}

/** `report noise`: run-to-run variation from repeated trials of the same seeds. */
function noise(flags: Flags, io: IO): number {
	const rows = runNoise(chooseSessions(flags, io));
	if (rows.length === 0) throw new UserError('No seed was run more than once among the chosen sessions: run a batch with --trials 3 (or more) first.');
	if (flags['json']) {
		writeJson(io, rows);
		return ExitCode.ok;
	}
	const sd = (spread: Spread | null, pick: (spread: Spread) => number) => fixed(spread ? pick(spread) : null);
	write(io, 'Run-to-run noise: seeds run more than once under the same setup. WITHIN SD is how much one seed moves between repeats; MIN DIFF is the smallest gap between two single runs over these seeds that exceeds that noise at 95%.');
	write(io, renderTable(rows, [
		{header: 'MODEL', value: (row) => row.model, max: 24},
		{header: 'MODE', value: (row) => row.mode},
		{header: 'JUDGE', value: (row) => row.judge, max: 20},
		{header: 'SEEDS', value: (row) => row.seeds, align: 'right'},
		{header: 'EPISODES', value: (row) => row.episodes, align: 'right'},
		{header: '3H WITHIN SD', value: (row) => sd(row.threeH, (s) => s.withinSd), align: 'right'},
		{header: '3H BETWEEN SD', value: (row) => sd(row.threeH, (s) => s.betweenSd), align: 'right'},
		{header: '3H MIN DIFF', value: (row) => sd(row.threeH, (s) => s.minDifference), align: 'right'},
		{header: 'TDQ WITHIN SD', value: (row) => sd(row.tdq, (s) => s.withinSd), align: 'right'},
		{header: 'CLEAN pass^k', value: (row) => row.passK.map((p) => `k${p.k} ${Math.round(p.value * 100)}%`).join(' ')},
	]));
	return ExitCode.ok;
}

/** `report agreement`: the judge against human ratings of the same sessions, per metric. */
function agreement(flags: Flags, io: IO): number {
	// Ratings made in the TUI (s on a replay) land next to the sessions; they are the default.
	const made = ratingsFile(sessionsDir(flags, io));
	const file = typeof flags['ratings'] === 'string' ? path.resolve(io.cwd, flags['ratings']) : existsSync(made) ? made : null;
	if (!file) throw new UserError(`report agreement needs --ratings FILE (JSONL or CSV of session, metric, score, rater; see \`cultureconverse schema human-rating\`), or ratings made in the TUI (press s on a replay), which go to ${made}.`);
	const ratings = readRatings(file);
	const sessions = chooseSessions(flags, io);
	const judge = new Map(sessions.filter((session) => session.scores).map((session) => [session.id, session.scores!]));
	const known = ratings.filter((rating) => judge.has(rating.session));
	const unknown = [...new Set(ratings.filter((rating) => !judge.has(rating.session)).map((rating) => rating.session))];
	if (unknown.length > 0) io.stderr.write(`Note: ratings of ${unknown.length} session(s) not among the judged sessions chosen were ignored (${unknown.slice(0, 3).join(', ')}${unknown.length > 3 ? ', ...' : ''}).\n`);
	if (known.length === 0) throw new UserError('None of the rated sessions is among the judged sessions chosen: check the session ids, --sessions-dir and the filters.');
	if (sessions.some((session) => session.mock)) io.stderr.write('Note: some rated sessions were judged by the offline mock: its scores are filler, not a judge.\n');
	const rows = judgeHumanAgreement(judge, known, {seed: typeof flags['seed'] === 'string' ? flags['seed'] : undefined});
	const raters = new Set(known.map((rating) => rating.rater)).size;
	if (flags['json']) {
		writeJson(io, {ratings: known.length, raters, sessions: new Set(known.map((rating) => rating.session)).size, metrics: rows});
		return ExitCode.ok;
	}
	write(io, `${known.length} rating(s) by ${raters} rater(s) of ${new Set(known.map((rating) => rating.session)).size} session(s); agreement intervals are 95% bootstrap`);
	write(io, renderTable(rows, [
		{header: 'METRIC', value: (row) => row.metric},
		{header: 'N', value: (row) => row.n, align: 'right'},
		{header: 'PEARSON', value: (row) => fixed(row.pearson), align: 'right'},
		{header: 'SPEARMAN', value: (row) => fixed(row.spearman), align: 'right'},
		{header: 'EXACT', value: (row) => percentWithInterval(row.exact), align: 'right'},
		{header: 'WITHIN 1', value: (row) => percentWithInterval(row.withinOne), align: 'right'},
		{header: 'KAPPA(QW)', value: (row) => fixed(row.kappa), align: 'right'},
		{header: 'BIAS', value: (row) => signed(row.bias), align: 'right'},
		{header: 'α HUMANS', value: (row) => fixed(row.humanAlpha), align: 'right'},
		{header: 'α +JUDGE', value: (row) => fixed(row.withJudgeAlpha), align: 'right'},
	]));
	return ExitCode.ok;
}

function parseSlices(value: unknown): Slice[] {
	if (value === undefined) return ['model', 'mode'];
	if (typeof value !== 'string') throw new UserError('--by takes a comma-separated list of slices.');
	const parts = value.split(',').map((part) => part.trim()).filter(Boolean);
	for (const part of parts) if (!(SLICES as readonly string[]).includes(part)) throw new UserError(unknownMessage('slice', part, SLICES));
	return [...new Set(parts)] as Slice[];
}


/** The table as strings: slice columns (left-aligned), then figures. */
function rowsFor(report: Report, withMetrics: boolean): {columns: string[]; rows: string[][]; textColumns: number} {
	const columns = [...report.by.map((slice) => slice.toUpperCase()), 'N', 'ERR', '3H', 'TDQ', 'CLEAN', ...(withMetrics ? METRICS.map((metric) => metric.slice(0, 5).toUpperCase()) : [])];
	const cells = (row: ReportRow, label: string | null) => [
		...report.by.map((slice, index) => (label !== null ? (index === 0 ? label : '') : (row.slice[slice] ?? ''))),
		String(row.n),
		String(row.errors),
		withInterval(row.threeH),
		withInterval(row.tdq),
		percentWithInterval(row.clean),
		...(withMetrics ? METRICS.map((metric) => (row.metrics[metric] ? fixed(row.metrics[metric]!.mean) : '–')) : []),
	];
	const rows = [...report.rows.map((row) => cells(row, null))];
	if (report.by.length > 0) rows.push(cells(report.overall, 'all'));
	else rows.push(cells(report.overall, null));
	return {columns, rows, textColumns: report.by.length};
}

function markdown(table: {columns: string[]; rows: string[][]; textColumns: number}): string {
	const line = (cells: string[]) => `| ${cells.join(' | ')} |`;
	return [line(table.columns), line(table.columns.map((_, index) => (index < table.textColumns ? '---' : '---:'))), ...table.rows.map(line)].join('\n');
}

function csv(report: Report): string {
	const quote = (value: string) => (/[",\n]/.test(value) ? `"${value.replace(/"/g, '""')}"` : value);
	const figures = (name: string) => [`${name}_mean`, `${name}_lo`, `${name}_hi`];
	const header = [...report.by, 'n', 'errors', 'unfinished', ...figures('threeH'), ...figures('tdq'), ...figures('clean'), ...METRICS.flatMap(figures)];
	const triple = (estimate: Estimate | null) => (estimate ? [estimate.mean, estimate.lo, estimate.hi].map((value) => String(Math.round(value * 10_000) / 10_000)) : ['', '', '']);
	const line = (row: ReportRow, overall: boolean) => [...report.by.map((slice) => (overall ? 'all' : (row.slice[slice] ?? ''))), String(row.n), String(row.errors), String(row.unfinished), ...triple(row.threeH), ...triple(row.tdq), ...triple(row.clean), ...METRICS.flatMap((metric) => triple(row.metrics[metric]))];
	return [header, ...report.rows.map((row) => line(row, false)), line(report.overall, true)].map((cells) => cells.map(quote).join(',')).join('\n');
}
