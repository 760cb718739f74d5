import {METRICS, type Metric} from '../domain/session.js';
import type {SessionSummary} from '../domain/sessionSummary.js';
import {type BootstrapOptions, type Estimate, bootstrapMean} from './bootstrap.js';

/** What a report can be sliced by. */
export const SLICES = ['model', 'mode', 'language', 'region', 'identity', 'tier', 'split', 'domain', 'template', 'judge'] as const;
export type Slice = (typeof SLICES)[number];

const sliceValue: Record<Slice, (session: SessionSummary) => string> = {
	model: (s) => s.assistantModel,
	mode: (s) => s.mode,
	language: (s) => s.language,
	region: (s) => s.region,
	identity: (s) => s.identity,
	tier: (s) => s.tier,
	split: (s) => s.split,
	domain: (s) => s.templateId.split('.')[0] ?? s.templateId,
	template: (s) => s.templateId,
	judge: (s) => (s.judgeMode === 'combined' ? `${s.judgeModel} (combined)` : s.judgeModel),
};

export type ReportRow = {
	readonly slice: Readonly<Partial<Record<Slice, string>>>;
	/** Completed and fully judged episodes: the only ones scored. */
	readonly n: number;
	/** Episodes that ended in an error flag: counted, never scored. */
	readonly errors: number;
	readonly unfinished: number;
	readonly threeH: Estimate | null;
	readonly tdq: Estimate | null;
	/** Share of clean episodes (no tripwire or taboo violated), with its interval. */
	readonly clean: Estimate | null;
	readonly metrics: Readonly<Record<Metric, Estimate | null>>;
};

export type Report = {
	readonly by: readonly Slice[];
	readonly overall: ReportRow;
	readonly rows: readonly ReportRow[];
	readonly notes: readonly string[];
	readonly mock: boolean;
};

function row(slice: ReportRow['slice'], sessions: readonly SessionSummary[], options: BootstrapOptions): ReportRow {
	const scored = sessions.filter((s) => s.status === 'completed' && s.threeH !== null && s.tdq !== null);
	const seed = `${options.seed ?? 'cultureconverse'}|${JSON.stringify(slice)}`;
	const estimate = (values: number[], what: string) => bootstrapMean(values, {...options, seed: `${seed}|${what}`});
	const metrics = Object.fromEntries(METRICS.map((metric) => [metric, estimate(scored.map((s) => s.scores?.[metric]).filter((v): v is number => typeof v === 'number'), metric)])) as Record<Metric, Estimate | null>;
	return {
		slice,
		n: scored.length,
		errors: sessions.filter((s) => s.status === 'error').length,
		unfinished: sessions.filter((s) => s.status === 'running' || s.status === 'awaiting_assistant').length,
		threeH: estimate(scored.map((s) => s.threeH!), '3h'),
		tdq: estimate(scored.map((s) => s.tdq!), 'tdq'),
		clean: estimate(scored.filter((s) => s.clean !== null).map((s) => (s.clean ? 1 : 0)), 'clean'),
		metrics,
	};
}

/**
 * The sessions a report counts, and why others were left out. Mock sessions never mix with model
 * sessions (they are filler, not measurements); a re-judged copy repeats its original's dialogue, so
 * it counts only when judges are being compared.
 */
export function reportable(all: readonly SessionSummary[], options: {includeMock?: boolean; comparingJudges?: boolean} = {}): {sessions: SessionSummary[]; notes: string[]; mock: boolean} {
	const notes: string[] = [];
	const real = all.filter((s) => !s.mock);
	let sessions: SessionSummary[] = [...all];
	let mock = false;
	if (real.length > 0 && real.length < all.length && !options.includeMock) {
		sessions = real;
		notes.push(`${all.length - real.length} session(s) from the offline mock provider left out (filler, not measurements; --include-mock keeps them).`);
	} else if (real.length === 0 && all.length > 0) {
		mock = true;
		notes.push('Every session here ran on the offline mock provider: the numbers below are deterministic filler, not measurements.');
	}
	const copies = sessions.filter((s) => s.rejudgeOf !== null).length;
	if (copies > 0 && !options.comparingJudges) {
		sessions = sessions.filter((s) => s.rejudgeOf === null);
		notes.push(`${copies} re-judged cop${copies === 1 ? 'y' : 'ies'} left out (the same dialogues judged again; --by judge compares the judges).`);
	}
	return {sessions, notes, mock};
}

/**
 * A benchmark table from session summaries: one overall row and one per combination of the `by`
 * slices, each with bootstrap intervals. Mock sessions never mix with model sessions (they are filler,
 * not measurements), and mixing judge or simulator setups is called out, since such scores do not compare.
 */
export function buildReport(all: readonly SessionSummary[], by: readonly Slice[], options: BootstrapOptions & {includeMock?: boolean} = {}): Report {
	const {sessions, notes, mock} = reportable(all, {includeMock: options.includeMock, comparingJudges: by.includes('judge')});
	const judges = [...new Set(sessions.map((s) => s.judgeModel))];
	if (judges.length > 1 && !by.includes('judge')) notes.push(`Judged by ${judges.length} different models (${judges.join(', ')}): scores from different judges are not comparable; add --by judge.`);
	const groups = new Map<string, {slice: ReportRow['slice']; sessions: SessionSummary[]}>();
	for (const session of sessions) {
		const slice = Object.fromEntries(by.map((key) => [key, sliceValue[key](session)])) as ReportRow['slice'];
		const key = JSON.stringify(slice);
		let group = groups.get(key);
		if (!group) groups.set(key, (group = {slice, sessions: []}));
		group.sessions.push(session);
	}
	const rows = [...groups.values()]
		.sort((a, b) => by.map((key) => (a.slice[key] ?? '').localeCompare(b.slice[key] ?? '')).find((order) => order !== 0) ?? 0)
		.map((group) => row(group.slice, group.sessions, options));
	return {by, overall: row({}, sessions, options), rows: by.length > 0 ? rows : [], notes, mock};
}
