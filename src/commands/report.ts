import path from 'node:path';
import {summaryOf} from './registry.js';
import {disparityLines, markdownTable, reportCsv, reportTable, setupLegend, textTable} from '../present/report.js';
import {buildReport, type Slice, SLICES} from '../report/aggregate.js';
import {runNoise} from '../report/noise.js';
import {ExitCode, UserError} from '../util/errors.js';
import {unknownMessage} from '../util/suggest.js';
import {wholeFlag} from './flagValues.js';
import {agreement} from './reportAgreement.js';
import {viewerFolder, writeReportHtml} from './reportHtml.js';
import {paired} from './reportPaired.js';
import {bootstrapSeed, chooseWithLost, lostLine} from './reportSelection.js';
import {noise, scores, setups, traps} from './reportSpread.js';
import {sessionFilterFlags} from './sessions.js';
import {type Command, type Flags, write, writeJson} from './types.js';

const FORMATS = ['text', 'markdown', 'csv'] as const;
const SUBREPORTS = ['agreement', 'paired', 'noise', 'scores', 'traps', 'setups'] as const;

export const reportCommand: Command = {
	name: 'report',
	summary: summaryOf('report'),
	usage: [
		'report [--batch NAME] [--region R] [--persona P] [--template T] [--tier T] [--by model,mode,region,...] [--metrics] [--pool-setups] [--format text|markdown|csv] [--html FILE [--no-viewer]] [--json]',
		"report agreement [--ratings FILE] [--batch NAME] [--by judge,region,language] [filters] [--json]   (default: the TUI's sessions/ratings.jsonl)",
		'report paired --by language|mode|tier [--slice model,...] [--per-seed] [filters] [--json]   native − English, gold − eval, trap − standard',
		'report noise [--batch NAME] [filters] [--json]          run-to-run variation from --trials repeats',
		"report scores [--batch NAME] [filters] [--json]         each judge metric's score distribution",
		'report traps [--batch NAME] [filters] [--json]          standard against trap seeds, per model',
		'report setups [--batch NAME] [filters] [--json]         the setups among the sessions (S1, S2, ...)',
	].join('\n    $ cultureconverse '),
	flags: {
		batch: {type: 'string', description: 'Only the sessions of this batch (and re-judged copies of them)'},
		...sessionFilterFlags,
		by: {type: 'string', description: `Slices, comma-separated: ${SLICES.join(', ')} (default model,mode); agreement: judge, region, language; paired: language, mode or tier`},
		slice: {type: 'string', description: 'paired: rows per these slices (default model)'},
		perSeed: {type: 'boolean', description: "paired: list every seed's (or stratum's) delta"},
		top: {type: 'number', description: 'agreement --by judge: how many ensembles to list (default 10; --json has all)'},
		metrics: {type: 'boolean', description: 'Add a column per judge metric'},
		poolSetups: {type: 'boolean', description: 'Pool sessions of different setups (models, endpoints, judge mode, max turns, best-of, prompts) into one figure'},
		resamples: {type: 'number', description: 'Bootstrap resamples (default 2000)'},
		seed: {type: 'string', description: 'Seed of the bootstrap resampling (default "cultureconverse"; same data and seed, same intervals)'},
		includeMock: {type: 'boolean', description: 'Keep sessions that ran entirely on the offline mock when model sessions are present'},
		format: {type: 'string', description: 'text (default), markdown or csv'},
		ratings: {type: 'string', description: 'agreement: human ratings, JSONL or CSV (session, metric, score, rater); see `schema human-rating`'},
		html: {type: 'string', description: 'Also write the report as one self-contained HTML file (charts, paired deltas, agreement, every episode, provenance)'},
		viewer: {type: 'boolean', default: true, description: 'With --html: write a viewer page per episode to <name>-sessions/ (--no-viewer skips them)'},
		json: {type: 'boolean', description: 'Print the report as JSON'},
	},
	async run({args, flags, io}) {
		const sub = args[0];
		if (sub === 'agreement') return agreement(flags, io);
		if (sub === 'paired') return paired(flags, io);
		if (sub === 'noise') return noise(flags, io);
		if (sub === 'scores') return scores(flags, io);
		if (sub === 'traps') return traps(flags, io);
		if (sub === 'setups') return setups(flags, io);
		if (sub !== undefined) throw new UserError(unknownMessage('report', sub, SUBREPORTS, 'Run `npx cultureconverse report --help`.'));
		const format = typeof flags['format'] === 'string' ? flags['format'] : 'text';
		if (!(FORMATS as readonly string[]).includes(format)) throw new UserError(unknownMessage('format', format, FORMATS));
		const {report, chosen, lost, resamples} = mainReport(flags, io);
		if (typeof flags['html'] === 'string') {
			const written = writeReportHtml({flags, io, file: path.resolve(io.cwd, flags['html']), report, chosen, lost, resamples});
			io.stderr.write(`Wrote ${written.file} (${Math.round(written.bytes / 1024)} KB${written.pages > 0 ? `, and ${written.pages} session page(s) in ${viewerFolder(written.file)}/` : ''}) in ${(written.ms / 1000).toFixed(1)} s\n`);
		}
		if (flags['json']) {
			writeJson(io, {...report, sessions: chosen.length, lost, resamples, confidence: 0.95});
			return ExitCode.ok;
		}
		for (const note of report.notes) io.stderr.write(`Note: ${note}\n`);
		if (runNoise(chosen).length > 0) io.stderr.write('Note: some seeds were run more than once (--trials): their episodes are resampled together (seed-cluster bootstrap); `npx cultureconverse report noise` shows how much scores move between repeats.\n');
		if (format === 'csv') write(io, reportCsv(report));
		else {
			const table = reportTable(report, Boolean(flags['metrics']));
			if (format === 'markdown') write(io, markdownTable(table));
			else {
				const t = report.totals;
				write(io, `${t.n} scored episode(s), ${t.errors} ended in an error flag (not scored), ${t.unfinished} unfinished${lost.length > 0 ? `, ${lost.length} missing or unreadable` : ''}; 95% intervals: seed-cluster bootstrap for means (${resamples} resamples), Wilson for the clean rate`);
				if (lost.length > 0) write(io, lostLine(lost, flags));
				write(io, textTable(table));
				if (report.rows.some((row) => row.small)) write(io, '* fewer than 10 seeds: the interval is unreliable.');
				if (report.columns.length > 0 && report.rows.length > 1) write(io, 'Δ3H: the row\'s 3H minus its parent\'s (the overall mean, or the same row without its last slice).');
				const lines = disparityLines(report.disparities);
				if (lines.length > 0) write(io, `\nRange (max − min of the row means) of the last slice:\n${lines.map((line) => `  ${line}`).join('\n')}`);
				if (report.setups.length > 1) write(io, `\nSetups:\n${setupLegend(report.setups).map((line) => `  ${line}`).join('\n')}`);
			}
		}
		return ExitCode.ok;
	},
};

/** The main table's report for these flags (also what the HTML report shows). */
export function mainReport(flags: Flags, io: Parameters<typeof chooseWithLost>[1]) {
	const resamples = wholeFlag(flags, 'resamples', {min: 100, max: 100_000}, 2000);
	const {chosen, lost} = chooseWithLost(flags, io);
	// By default English and native episodes are different rows (the paper reports them apart), as
	// eval and gold are: a paired batch would otherwise average its two languages in one row.
	const by = flags['by'] === undefined && new Set(chosen.map((s) => s.language)).size > 1 ? (['model', 'mode', 'language'] as Slice[]) : parseSlices(flags['by']);
	const report = buildReport(chosen, by, {resamples, seed: bootstrapSeed(flags), includeMock: Boolean(flags['includeMock']), poolSetups: Boolean(flags['poolSetups'])});
	return {report, chosen, lost, resamples};
}

function parseSlices(value: unknown): Slice[] {
	if (value === undefined) return ['model', 'mode'];
	if (typeof value !== 'string') throw new UserError('--by takes a comma-separated list of slices.');
	const parts = value.split(',').map((part) => part.trim()).filter(Boolean);
	for (const part of parts) if (!(SLICES as readonly string[]).includes(part)) throw new UserError(unknownMessage('slice', part, SLICES));
	return [...new Set(parts)] as Slice[];
}
