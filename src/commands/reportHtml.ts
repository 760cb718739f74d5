import {existsSync, mkdirSync} from 'node:fs';
import path from 'node:path';
import {performance} from 'node:perf_hooks';
import {sessionsDirFromFlags} from './runtimeFlags.js';
import type {Session} from '../domain/session.js';
import {type ReportPageData, reportPage} from '../html/reportPage.js';
import {sessionPage} from '../html/sessionPage.js';
import {buildReport} from '../report/aggregate.js';
import {cellLabel, selectCells} from '../report/cells.js';
import {scoreDistributions} from '../report/distribution.js';
import {CONTRASTS, type Contrast} from '../report/paired.js';
import {ratingsFile} from '../store/ratingStore.js';
import {readSessionFile} from '../store/sessionStore.js';
import {UserError} from '../util/errors.js';
import type {MainReport} from './report.js';
import {reportJson} from './report.js';
import {agreementData} from './reportAgreement.js';
import {pairedData} from './reportPaired.js';
import {poolFlag} from './reportSelection.js';
import type {Flags, IO} from './types.js';
import {writePage} from '../util/pageLimit.js';

/** The folder of viewer pages next to a report file: report.html -> report-sessions/. */
export const viewerFolder = (file: string) => `${path.basename(file).replace(/\.html?$/i, '')}-sessions`;

const describeFlags = (flags: Flags) =>
	['batch', 'region', 'persona', 'template', 'tier', 'setup', 'lang', 'mode', 'model', 'judge', 'pool']
		.filter((name) => typeof flags[name] === 'string')
		.map((name) => `${name} ${String(flags[name])}`)
		.join(', ') || 'all saved sessions';

/**
 * `report --html FILE`: the same selection, cells and figures as `report --json` (the page embeds
 * exactly that JSON); every chart is drawn from the same cells layer (so no chart pools what a table
 * keeps apart), with the paired deltas, agreement when there are ratings, every episode and the
 * provenance; viewer pages for every episode go to `<name>-sessions/` unless --no-viewer.
 */
export function writeReportHtml(input: {flags: Flags; io: IO; file: string; main: MainReport}): {file: string; bytes: number; pages: number; ms: number} {
	const started = performance.now();
	const {flags, io, main} = input;
	const {report, selection, chosen, options} = main;
	// The charts and sub-tables use the main table's selection; judge pairs need the re-judged copies.
	const judged = selectCells(chosen, {includeMock: Boolean(flags['includeMock']), pool: poolFlag(flags), judges: true});
	const paired = (Object.keys(CONTRASTS) as Contrast[]).map((contrast) => pairedData({...flags, slice: undefined}, io, contrast, {quiet: true, selection: contrast === 'judge' ? judged : selection}));
	const agreement = agreementFor(flags, io, judged);
	const withViewer = flags['viewer'] !== false;
	const folder = viewerFolder(input.file);
	const data: ReportPageData = {
		title: `npx cultureconverse report · ${describeFlags(flags)}`,
		generatedAt: new Date().toISOString().replace(/\.\d+Z$/, 'Z'),
		selection: describeFlags(flags),
		json: reportJson(main),
		report,
		byCell: buildReport(selection, [], options),
		regionCell: buildReport(selection, ['region'], options),
		tierCell: buildReport(selection, ['tier'], options),
		scores: scoreDistributions(selection, options),
		varying: selection.varying,
		paired,
		agreement,
		episodes: selection.sessions,
		cellOf: Object.fromEntries(selection.sessions.map((s) => [s.id, cellLabel(selection.keyOf(s), selection.varying)])),
		viewerDir: withViewer ? folder : null,
		prompts: promptsBySetup(main),
		holds: holdsBySetup(main),
	};
	// Bounded (util/pageLimit.ts): a page too large to build or open is a clear error naming the limit.
	const bytes = writePage(input.file, () => reportPage(data), 'choose fewer sessions, or pass --no-viewer');
	let pages = 0;
	if (withViewer) pages = writeViewerPages(chosen.map((s) => s.path), path.join(path.dirname(input.file), folder), {back: `../${path.basename(input.file)}`});
	return {file: input.file, bytes, pages, ms: Math.round(performance.now() - started)};
}

/** The prompt-file hashes of each setup, read from one of its session files (summaries carry only their joint hash). */
function promptsBySetup(main: MainReport): Record<string, Record<string, string>> {
	const out: Record<string, Record<string, string>> = {};
	for (const group of main.report.setups) {
		const member = main.chosen.find((s) => main.selection.registry.labelOf(s) === group.label);
		if (member) out[group.label] = readSessionFile(member.path).config.prompts;
	}
	return out;
}

/** Which assistants, judges, languages and modes each setup holds (the provenance names them all). */
function holdsBySetup(main: MainReport): Record<string, {assistants: string[]; judges: string[]; languages: string[]; modes: string[]}> {
	const out: Record<string, {assistants: string[]; judges: string[]; languages: string[]; modes: string[]}> = {};
	for (const group of main.report.setups) {
		const mine = main.chosen.filter((s) => main.selection.registry.labelOf(s) === group.label);
		const distinct = (pick: (s: (typeof mine)[number]) => string) => [...new Set(mine.map(pick))].sort();
		out[group.label] = {assistants: distinct((s) => `${s.assistantModel}${s.setup.roles['assistant']?.endpoint ? ` @ ${s.setup.roles['assistant'].endpoint}` : ''}`), judges: distinct((s) => `${s.judgeModel} (${s.judgeMode})${s.setup.roles['judge']?.endpoint ? ` @ ${s.setup.roles['judge'].endpoint}` : ''}`), languages: distinct((s) => s.language), modes: distinct((s) => s.mode)};
	}
	return out;
}

/**
 * Agreement figures for the page: from --ratings (whose problems are errors, as for `report
 * agreement`), else from the TUI's ratings file when it rates some of these sessions, else none.
 */
function agreementFor(flags: Flags, io: IO, selection: ReturnType<typeof selectCells>) {
	if (typeof flags['ratings'] === 'string') return agreementData(flags, io, {panel: true, quiet: true, selection});
	if (!existsSync(ratingsFile(sessionsDirFromFlags(flags, io)))) return null;
	try {
		return agreementData(flags, io, {panel: true, quiet: true, selection});
	} catch (error) {
		if (error instanceof UserError) return null;
		throw error;
	}
}

/** One viewer page per session file into `dir`; returns how many were written. */
export function writeViewerPages(files: readonly string[], dir: string, options: {back?: string} = {}): number {
	mkdirSync(dir, {recursive: true});
	for (const file of files) {
		const session: Session = readSessionFile(file);
		writePage(path.join(dir, `${session.id}.html`), () => sessionPage(session, options), 'view fewer sessions at once');
	}
	return files.length;
}
