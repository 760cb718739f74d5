import path from 'node:path';
import {summaryOf} from './registry.js';
import {disparityLines, markdownTable, reportCsv, reportTable, setupLegend, textTable} from '../present/report.js';
import {buildReport, type Slice, SLICES} from '../report/aggregate.js';
import {SMALL_SLICE} from '../report/bootstrap.js';
import {runNoise} from '../report/noise.js';
import {ExitCode, UserError} from '../util/errors.js';
import {unknownMessage} from '../util/suggest.js';
import {agreement} from './reportAgreement.js';
import {viewerFolder, writeReportHtml} from './reportHtml.js';
import {paired} from './reportPaired.js';
import {paper} from './reportPaper.js';
import {cellFilterFlags, chooseWithLost, intervalOptions, lostLine, selectionFor} from './reportSelection.js';
import {disparities, noise, scores, setups, traps} from './reportSpread.js';
import {sessionFilterFlags} from './sessions.js';
import {type Command, type Flags, write, writeJson} from './types.js';

const FORMATS = ['text', 'markdown', 'csv'] as const;
const SUBREPORTS = ['agreement', 'paired', 'noise', 'scores', 'traps', 'setups', 'disparities', 'paper'] as const;

export const reportCommand: Command = {
	name: 'report',
	summary: summaryOf('report'),
	usage: [
		'report [--batch NAME] [--region R] [--persona P] [--template T] [--tier T] [--setup S] [--lang L] [--mode M] [--model M] [--judge J] [--by model,mode,region,...] [--metrics] [--pool setup,language,...] [--format text|markdown|csv] [--html FILE [--no-viewer]] [--json]',
		"report agreement [--ratings FILE] [--batch NAME] [--by judge,region,language] [filters] [--json]   (default: the TUI's sessions/ratings.jsonl)",
		'report paired --by language|mode|tier|judge [--slice region,...] [--per-seed] [filters] [--json]   native − English, gold − eval, trap − standard, judge − reference judge',
		'report noise [--batch NAME] [filters] [--json]          run-to-run variation from --trials repeats',
		"report scores [--batch NAME] [filters] [--json]         each judge metric's score distribution",
		'report traps [--batch NAME] [filters] [--json]          standard against trap seeds, per model',
		'report setups [--batch NAME] [filters] [--json]         the setups among the sessions (S1, S2, ...)',
		'report disparities --by region|identity|gender|age [--pairwise] [filters] [--json]   ranges with intervals and permutation p-values',
		"report paper --table 3|4|10|11|12|13|14|15|17 | --figure 4|37|38|39|41 [filters] [--json] [--html FILE]   the paper's layout",
	].join('\n    $ cultureconverse '),
	flags: {
		batch: {type: 'string', description: 'Only the sessions of this batch (and re-judged copies of them)'},
		...sessionFilterFlags,
		...cellFilterFlags,
		by: {type: 'string', description: `Slices, comma-separated: ${SLICES.join(', ')} (default model,mode; the setup, assistant, language, mode and judge are columns whenever they vary); agreement: judge, region, language; paired: language, mode, tier or judge; disparities: one seed slice`},
		slice: {type: 'string', description: 'paired: rows per these seed slices too (region, tier, ...)'},
		pairwise: {type: 'boolean', description: 'disparities: every pair of slice values, with Holm-adjusted p-values'},
		table: {type: 'string', description: "paper: the paper's table 3, 4, 10, 11, 12, 13, 14, 15 or 17"},
		figure: {type: 'string', description: "paper: the paper's figure 4, 37, 38, 39 or 41"},
		perSeed: {type: 'boolean', description: "paired: list every seed's (or stratum's) delta"},
		top: {type: 'number', description: 'agreement --by judge: how many ensembles to list (default 10; --json has all)'},
		metrics: {type: 'boolean', description: 'Add a column per judge metric'},
		poolSetups: {type: 'boolean', description: 'The same as --pool setup'},
		resamples: {type: 'number', description: 'Bootstrap resamples and permutations (default 2000)'},
		seed: {type: 'string', description: 'Seed of the bootstrap resampling and permutations (default "cultureconverse"; same data and seed, same intervals)'},
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
		if (sub === 'disparities') return disparities(flags, io);
		if (sub === 'paper') return paper(flags, io);
		if (sub !== undefined) throw new UserError(unknownMessage('report', sub, SUBREPORTS, 'Run `npx cultureconverse report --help`.'));
		const format = typeof flags['format'] === 'string' ? flags['format'] : 'text';
		if (!(FORMATS as readonly string[]).includes(format)) throw new UserError(unknownMessage('format', format, FORMATS));
		const main = mainReport(flags, io);
		const {report, chosen, lost, resamples} = main;
		if (typeof flags['html'] === 'string') {
			const written = writeReportHtml({flags, io, file: path.resolve(io.cwd, flags['html']), main});
			io.stderr.write(`Wrote ${written.file} (${Math.round(written.bytes / 1024)} KB${written.pages > 0 ? `, and ${written.pages} session page(s) in ${viewerFolder(written.file)}/` : ''}) in ${(written.ms / 1000).toFixed(1)} s\n`);
		}
		if (flags['json']) {
			writeJson(io, reportJson(main));
			return ExitCode.ok;
		}
		for (const note of report.notes) io.stderr.write(`Note: ${note}\n`);
		if (runNoise(main.selection).length > 0) io.stderr.write('Note: some seeds were run more than once (--trials): their episodes are resampled together (seed-cluster bootstrap); `npx cultureconverse report noise` shows how much scores move between repeats.\n');
		if (format === 'csv') write(io, reportCsv(report));
		else {
			const table = reportTable(report, Boolean(flags['metrics']));
			if (format === 'markdown') write(io, markdownTable(table));
			else {
				const t = report.totals;
				write(io, `${t.n} scored episode(s)${t.dialogues !== t.n ? ` (${t.dialogues} dialogue(s): re-judged copies are judgements, not dialogues)` : ''}, ${t.errors} ended in an error flag (not scored), ${t.unfinished} unfinished${lost.length > 0 ? `, ${lost.length} missing or unreadable` : ''} (of ${chosen.length} chosen); ${Math.round(report.confidence * 100)}% intervals: seed-cluster bootstrap for means (${resamples} resamples, seed "${report.seed}"), Wilson on the effective number of seeds for the clean rate; n/a where none can be made`);
				if (report.mockNotice) write(io, report.mockNotice);
				if (lost.length > 0) write(io, lostLine(lost, flags));
				write(io, textTable(table));
				if (report.small.rows > 0) write(io, `* fewer than ${SMALL_SLICE} seeds: the interval is unreliable (${report.small.rows} row(s)).`);
				if (report.comparisons.deviations > 0) write(io, `Δ3H: the row's 3H minus its parent's (its cell's total, or the same row without its last slice); p(Holm): permutation p-value (slice labels shuffled between seeds within the parent, ${resamples} permutations), Holm-adjusted over the ${report.comparisons.deviations} comparisons in this table.`);
				const lines = disparityLines(report.disparities);
				if (lines.length > 0) write(io, `\nRange (max − min of the row means) of the last slice, with a stratified seed-cluster bootstrap interval and a permutation p-value (Holm over the ${report.comparisons.ranges} range(s) here):\n${lines.map((line) => `  ${line}`).join('\n')}`);
				if (report.setups.length > 1) write(io, `\nSetups:\n${setupLegend(report.setups).map((line) => `  ${line}`).join('\n')}`);
			}
		}
		return ExitCode.ok;
	},
};

/** The main table's report for these flags (also what the HTML report shows). */
export function mainReport(flags: Flags, io: Parameters<typeof chooseWithLost>[1]) {
	const options = intervalOptions(flags);
	const {chosen, lost} = chooseWithLost(flags, io);
	const by = parseSlices(flags['by']);
	const selection = selectionFor(flags, io, {chosen, judges: by.includes('judge')});
	const report = buildReport(selection, by, options);
	return {report, selection, chosen, lost, resamples: options.resamples, options};
}
export type MainReport = ReturnType<typeof mainReport>;

/** What `report --json` prints (and the HTML page embeds). */
export const reportJson = (main: MainReport) => ({...main.report, sessions: main.chosen.length, lost: main.lost});

function parseSlices(value: unknown): Slice[] {
	if (value === undefined) return ['model', 'mode'];
	if (typeof value !== 'string') throw new UserError('--by takes a comma-separated list of slices.');
	const parts = value.split(',').map((part) => part.trim()).filter(Boolean);
	for (const part of parts) if (!(SLICES as readonly string[]).includes(part)) throw new UserError(unknownMessage('slice', part, SLICES));
	return [...new Set(parts)] as Slice[];
}
