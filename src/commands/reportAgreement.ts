import {existsSync} from 'node:fs';
import path from 'node:path';
import {sessionsDirFromFlags} from './runtimeFlags.js';
import type {SessionSummary} from '../domain/sessionSummary.js';
import {agreementByMetric, agreementBySlice, agreementOverall, agreementPanel} from '../present/report.js';
import {SMALL_SLICE} from '../report/bootstrap.js';
import {type CellValues, type Selection, cellLabel, groupBy} from '../report/cells.js';
import {type AgreementCell, type AgreementData, type JudgedDialogue, judgeHumanReport} from '../report/humanAgreement.js';
import {mockKind} from '../report/setups.js';
import {ratingsFile, readRatings} from '../store/ratingStore.js';
import {ExitCode, UserError} from '../util/errors.js';
import {unknownMessage} from '../util/suggest.js';
import {intervalOptions, selectionFor} from './reportSelection.js';
import {type Flags, type IO, write, writeJson} from './types.js';

const AGREEMENT_SLICES = ['judge', 'region', 'language'] as const;
type AgreementSlice = (typeof AGREEMENT_SLICES)[number];

function agreementSlices(value: unknown): AgreementSlice[] {
	if (value === undefined) return [];
	if (typeof value !== 'string') throw new UserError('--by takes a comma-separated list.');
	const parts = value.split(',').map((part) => part.trim()).filter(Boolean);
	for (const part of parts) if (!(AGREEMENT_SLICES as readonly string[]).includes(part)) throw new UserError(unknownMessage('agreement slice', part, AGREEMENT_SLICES, 'report agreement --by takes judge, region and language.'));
	return [...new Set(parts)] as AgreementSlice[];
}




/**
 * The agreement figures, as `report agreement --json` prints them and the HTML report shows them: one
 * block per cell of the rated dialogues' own judgements (setup, assistant, language, mode, judge, as
 * they vary; --pool averages on purpose), each with the panel of every judge of its dialogues.
 */
export function agreementData(flags: Flags, io: IO, options: {panel: boolean; quiet?: boolean; selection?: Selection}): AgreementData {
	// Ratings made in the TUI (s on a replay) land next to the sessions; they are the default.
	const made = ratingsFile(sessionsDirFromFlags(flags, io));
	const file = typeof flags['ratings'] === 'string' ? path.resolve(io.cwd, flags['ratings']) : existsSync(made) ? made : null;
	if (!file) throw new UserError(`report agreement needs --ratings FILE (JSONL or CSV of session, metric, score, rater; see \`npx cultureconverse schema human-rating\`), or ratings made in the TUI (press s on a replay), which go to ${made}.`);
	const notes: string[] = [];
	const note = (text: string) => {
		notes.push(text);
		if (!options.quiet) io.stderr.write(`Note: ${text}\n`);
	};
	const ratings = readRatings(file);
	const selection = options.selection ?? selectionFor(flags, io, {judges: true});
	const all = selection.chosen;
	const byId = new Map(all.map((s) => [s.id, s]));
	// Ratings are about dialogues: a rating of a re-judged copy is a rating of its original's dialogue.
	const dialogueOf = (session: string) => byId.get(session)?.rejudgeOf ?? session;
	const counted = new Set(selection.sessions.map((s) => s.id));
	const completed = all.filter((s) => counted.has(s.id) && s.status === 'completed' && s.scores !== null);
	const dialogues = new Set(completed.map((s) => s.rejudgeOf ?? s.id));
	const errored = new Set(all.filter((s) => s.status === 'error' && s.rejudgeOf === null && !dialogues.has(s.id)).map((s) => s.id));
	const known = ratings.filter((rating) => dialogues.has(dialogueOf(rating.session)));
	const ofErrored = ratings.filter((rating) => errored.has(dialogueOf(rating.session)));
	const unknown = [...new Set(ratings.filter((rating) => !dialogues.has(dialogueOf(rating.session)) && !errored.has(dialogueOf(rating.session))).map((rating) => rating.session))];
	if (ofErrored.length > 0) note(`${ofErrored.length} rating(s) of ${new Set(ofErrored.map((r) => dialogueOf(r.session))).size} session(s) that ended in an error flag were left out (no complete judgement to compare).`);
	if (unknown.length > 0) note(`ratings of ${unknown.length} session(s) not among the judged sessions chosen were ignored (${unknown.slice(0, 3).join(', ')}${unknown.length > 3 ? ', ...' : ''}).`);
	if (known.length === 0) throw new UserError('None of the rated sessions is among the judged sessions chosen: check the session ids, --sessions-dir and the filters.');
	const rated = new Set(known.map((rating) => dialogueOf(rating.session)));
	const inPlay = completed.filter((s) => rated.has(s.rejudgeOf ?? s.id));
	if (inPlay.some((s) => mockKind(s).roles.includes('judge'))) note('some rated sessions were judged by the offline rubric (mock:rubric): its scores are counts, not a model judge\'s.');
	const judgedOf = (s: SessionSummary): JudgedDialogue => ({dialogue: s.rejudgeOf ?? s.id, judge: selection.keyOf(s).judge, scores: s.scores ?? {}, region: s.region, language: s.language, seed: s.seedId});
	const primary = inPlay.filter((s) => s.rejudgeOf === null);
	// Cells of the dialogues' own judgements: the keys that vary among them, unless pooled.
	const keys = selection.varying.filter((key) => new Set(primary.map((s) => selection.keyOf(s)[key])).size > 1);
	const cellOf = (s: SessionSummary) => Object.fromEntries(keys.map((key) => [key, selection.keyOf(s)[key]])) as Record<string, string>;
	const groups = groupBy(primary, cellOf, keys);
	if (groups.length > 1) note(`the rated dialogues fall in ${groups.length} cells (${keys.join(', ')} differ): each has its own tables, nothing is pooled across them (--pool ${keys.join(',')} would).`);
	const options2 = intervalOptions(flags);
	const cells: AgreementCell[] = groups.map((group) => {
		const ids = new Set(group.items.map((s) => s.id));
		const panel = options.panel ? inPlay.filter((s) => ids.has(s.rejudgeOf ?? s.id)) : [];
		return {cell: group.key, ...judgeHumanReport({primary: group.items.map(judgedOf), panel: panel.map(judgedOf), ratings: known.filter((r) => ids.has(dialogueOf(r.session))), dialogueOf, ensembleIntervals: typeof flags['top'] === 'number' ? Math.max(flags['top'], 10) : 10}, options2)};
	});
	return {ratings: known.length, raters: new Set(known.map((rating) => rating.rater)).size, sessions: rated.size, excluded: {errored: ofErrored.length, unknown: unknown.length}, keys, cells, notes, mockNotice: selection.mockNotice, resamples: options2.resamples, seed: options2.seed};
}

/** `report agreement`: the judge against human ratings of the same dialogues (Table 3, Tables 11-13). */
export function agreement(flags: Flags, io: IO): number {
	const by = agreementSlices(flags['by']);
	const data = agreementData(flags, io, {panel: by.includes('judge')});
	if (flags['json']) {
		writeJson(io, data);
		return ExitCode.ok;
	}
	write(io, `${data.ratings} rating(s) by ${data.raters} rater(s) of ${data.sessions} session(s). The judge is compared with the mean of the people's ratings of each (dialogue, metric) unit; human–human figures average every pair of ratings of a unit. Intervals: 95%, seed-cluster bootstrap (${data.resamples} resamples, seed "${data.seed}") for MAE, bias and the coefficients, Wilson on the effective number of seeds for the shares; n/a where none can be made. α: Krippendorff's alpha, interval level. * fewer than ${SMALL_SLICE} seeds.`);
	if (data.mockNotice) write(io, data.mockNotice);
	for (const cell of data.cells) {
		if (data.keys.length > 0) write(io, `\n== ${cellLabel(cell.cell, data.keys as Parameters<typeof cellLabel>[1])} ==`);
		write(io, agreementOverall(cell));
		write(io, '');
		write(io, agreementByMetric(cell));
		if (by.includes('region')) write(io, `\n${agreementBySlice('region', cell.regions)}`);
		if (by.includes('language')) write(io, `\n${agreementBySlice('language', cell.languages)}`);
		if (by.includes('judge')) {
			write(io, `\nJudge panel (every judge of the rated dialogues, originals and re-judged copies, against the same people), ranked by MAE:`);
			write(io, agreementPanel(cell, typeof flags['top'] === 'number' ? flags['top'] : 10));
		}
	}
	return ExitCode.ok;
}
