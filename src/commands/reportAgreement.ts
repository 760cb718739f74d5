import {existsSync} from 'node:fs';
import path from 'node:path';
import {sessionsDir} from '../app/runtime.js';
import type {SessionSummary} from '../domain/sessionSummary.js';
import {agreementByMetric, agreementBySlice, agreementOverall, agreementPanel} from '../present/report.js';
import {judgeLabel} from '../report/aggregate.js';
import {type JudgedDialogue, judgeHumanReport} from '../report/humanAgreement.js';
import {readRatings} from '../report/ratings.js';
import {mockKind} from '../report/setups.js';
import {ratingsFile} from '../store/ratingStore.js';
import {ExitCode, UserError} from '../util/errors.js';
import {unknownMessage} from '../util/suggest.js';
import {bootstrapSeed, chooseSessions} from './reportSelection.js';
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

const judged = (s: SessionSummary): JudgedDialogue => ({dialogue: s.rejudgeOf ?? s.id, judge: judgeLabel(s), scores: s.scores ?? {}, region: s.region, language: s.language});

/** The agreement figures, as `report agreement --json` prints them and the HTML report shows them. */
export function agreementData(flags: Flags, io: IO, options: {panel: boolean; quiet?: boolean}) {
	// Ratings made in the TUI (s on a replay) land next to the sessions; they are the default.
	const made = ratingsFile(sessionsDir(flags, io));
	const file = typeof flags['ratings'] === 'string' ? path.resolve(io.cwd, flags['ratings']) : existsSync(made) ? made : null;
	if (!file) throw new UserError(`report agreement needs --ratings FILE (JSONL or CSV of session, metric, score, rater; see \`npx cultureconverse schema human-rating\`), or ratings made in the TUI (press s on a replay), which go to ${made}.`);
	const note = (text: string) => {
		if (!options.quiet) io.stderr.write(`Note: ${text}\n`);
	};
	const ratings = readRatings(file);
	const all = chooseSessions(flags, io);
	const byId = new Map(all.map((s) => [s.id, s]));
	// Ratings are about dialogues: a rating of a re-judged copy is a rating of its original's dialogue.
	const dialogueOf = (session: string) => byId.get(session)?.rejudgeOf ?? session;
	const completed = all.filter((s) => s.status === 'completed' && s.scores !== null);
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
	if (inPlay.some((s) => mockKind(s).roles.includes('judge'))) note('some rated sessions were judged by the offline mock: its scores are filler, not a judge.');
	const primary = inPlay.filter((s) => s.rejudgeOf === null);
	const judges = new Set(primary.map(judgeLabel));
	if (judges.size > 1) note(`the rated dialogues' own judgements come from ${judges.size} judges (${[...judges].join(', ')}), pooled in the overall, metric, region and language tables; --by judge sets them apart.`);
	const report = judgeHumanReport({primary: primary.map(judged), panel: options.panel ? inPlay.map(judged) : [], ratings: known, dialogueOf}, {seed: bootstrapSeed(flags)});
	return {ratings: known.length, raters: new Set(known.map((rating) => rating.rater)).size, sessions: rated.size, excluded: {errored: ofErrored.length, unknown: unknown.length}, ...report};
}

/** `report agreement`: the judge against human ratings of the same dialogues (Table 3, Tables 11-13). */
export function agreement(flags: Flags, io: IO): number {
	const by = agreementSlices(flags['by']);
	const data = agreementData(flags, io, {panel: by.includes('judge')});
	if (flags['json']) {
		writeJson(io, data);
		return ExitCode.ok;
	}
	write(io, `${data.ratings} rating(s) by ${data.raters} rater(s) of ${data.sessions} session(s). The judge is compared with the mean of the people's ratings of each (dialogue, metric) unit; human–human figures average every pair of ratings of a unit. Intervals: 95% bootstrap over dialogues. α: Krippendorff's alpha, interval level.`);
	write(io, agreementOverall(data));
	write(io, '');
	write(io, agreementByMetric(data));
	if (by.includes('region')) write(io, `\n${agreementBySlice('region', data.regions)}`);
	if (by.includes('language')) write(io, `\n${agreementBySlice('language', data.languages)}`);
	if (by.includes('judge')) {
		write(io, `\nJudge panel (every judge of the rated dialogues, originals and re-judged copies, against the same people), ranked by MAE:`);
		write(io, agreementPanel(data, typeof flags['top'] === 'number' ? flags['top'] : 10));
	}
	return ExitCode.ok;
}
