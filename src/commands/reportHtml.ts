import {existsSync, mkdirSync} from 'node:fs';
import path from 'node:path';
import {performance} from 'node:perf_hooks';
import {sessionsDir} from '../app/runtime.js';
import type {Session} from '../domain/session.js';
import type {SessionSummary} from '../domain/sessionSummary.js';
import {type ReportPageData, reportPage} from '../html/reportPage.js';
import {sessionPage} from '../html/sessionPage.js';
import {buildReport, reportable} from '../report/aggregate.js';
import {scoreDistribution} from '../report/distribution.js';
import {CONTRASTS, type Contrast} from '../report/paired.js';
import {residualKey} from '../report/setups.js';
import {ratingsFile} from '../store/ratingStore.js';
import {readSessionFile} from '../store/sessionStore.js';
import {UserError} from '../util/errors.js';
import {agreementData} from './reportAgreement.js';
import {pairedData} from './reportPaired.js';
import type {LostSession} from './sessions.js';
import {bootstrapSeed} from './reportSelection.js';
import type {Report} from '../report/aggregate.js';
import type {Flags, IO} from './types.js';
import {writePage} from '../util/pageLimit.js';

/** The folder of viewer pages next to a report file: report.html -> report-sessions/. */
export const viewerFolder = (file: string) => `${path.basename(file).replace(/\.html?$/i, '')}-sessions`;

const describeFlags = (flags: Flags) =>
	['batch', 'region', 'persona', 'template', 'tier']
		.filter((name) => typeof flags[name] === 'string')
		.map((name) => `${name} ${String(flags[name])}`)
		.join(', ') || 'all saved sessions';

/**
 * `report --html FILE`: the same selection and figures as `report --json` (the page embeds exactly
 * that JSON), with charts, the paired deltas, agreement when there are ratings, every episode, and the
 * provenance; viewer pages for every episode go to `<name>-sessions/` unless --no-viewer.
 */
export function writeReportHtml(input: {flags: Flags; io: IO; file: string; report: Report; chosen: SessionSummary[]; lost: readonly LostSession[]; resamples: number}): {file: string; bytes: number; pages: number; ms: number} {
	const started = performance.now();
	const {flags, io, report, chosen, resamples} = input;
	const options = {resamples, seed: bootstrapSeed(flags), includeMock: Boolean(flags['includeMock']), poolSetups: Boolean(flags['poolSetups'])};
	const paired = (Object.keys(CONTRASTS) as Contrast[]).map((contrast) => pairedData({...flags, slice: undefined}, io, contrast, {quiet: true}));
	const agreement = agreementFor(flags, io);
	const withViewer = flags['viewer'] !== false;
	const folder = viewerFolder(input.file);
	const data: ReportPageData = {
		title: `cultureconverse report · ${describeFlags(flags)}`,
		generatedAt: new Date().toISOString().replace(/\.\d+Z$/, 'Z'),
		selection: describeFlags(flags),
		json: {...report, sessions: chosen.length, lost: input.lost, resamples, confidence: 0.95},
		report,
		byModel: buildReport(chosen, ['model'], options),
		regionModel: buildReport(chosen, ['model', 'region'], options),
		tierModel: buildReport(chosen, ['model', 'tier'], options),
		scores: scoreDistribution(reportable(chosen, {includeMock: options.includeMock}).sessions),
		paired: paired.map((p) => ({label: p.label, unit: p.unit, rows: p.rows})),
		agreement,
		episodes: chosen,
		viewerDir: withViewer ? folder : null,
		prompts: promptsBySetup(report, chosen),
	};
	// Bounded (util/pageLimit.ts): a page too large to build or open is a clear error naming the limit.
	const bytes = writePage(input.file, () => reportPage(data), 'choose fewer sessions, or pass --no-viewer');
	let pages = 0;
	if (withViewer) pages = writeViewerPages(chosen.map((s) => s.path), path.join(path.dirname(input.file), folder), {back: `../${path.basename(input.file)}`});
	return {file: input.file, bytes, pages, ms: Math.round(performance.now() - started)};
}

/** The prompt-file hashes of each setup, read from one of its session files (summaries carry only their joint hash). */
function promptsBySetup(report: Report, chosen: readonly SessionSummary[]): Record<string, Record<string, string>> {
	const compared = {assistant: report.by.includes('model'), judge: report.by.includes('judge')};
	const out: Record<string, Record<string, string>> = {};
	for (const group of report.setups) {
		const member = chosen.find((s) => residualKey(s.setup, compared) === group.key);
		if (member) out[group.label] = readSessionFile(member.path).config.prompts;
	}
	return out;
}

/**
 * Agreement figures for the page: from --ratings (whose problems are errors, as for `report
 * agreement`), else from the TUI's ratings file when it rates some of these sessions, else none.
 */
function agreementFor(flags: Flags, io: IO) {
	if (typeof flags['ratings'] === 'string') return agreementData(flags, io, {panel: true, quiet: true});
	if (!existsSync(ratingsFile(sessionsDir(flags, io)))) return null;
	try {
		return agreementData(flags, io, {panel: true, quiet: true});
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
