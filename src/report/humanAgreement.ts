import {METRICS, type Metric} from '../domain/session.js';
import type {Rating} from '../domain/ratings.js';
import type {CellKey, CellValues} from './cells.js';
import {krippendorffInterval, pearson, spearman, weightedKappaOf} from './agreement.js';
import {type BootstrapOptions, type Estimate, type Observation, clusterMean, clusterShare, clusterStatistic, isSmall} from './bootstrap.js';

/*
 * The judge against people (the paper's Table 3 and Tables 11-13). Ratings are keyed by dialogue, not
 * by session file: a re-judged copy shares its original's dialogue, so every judge that scored a
 * dialogue meets the same people. A unit is one (dialogue, metric) cell; the human consensus is the
 * mean of its ratings. Intervals come from the one engine: seeds are resampled (each bringing every
 * dialogue of the seed and their metrics), shares get Wilson on the effective number of seeds.
 */

/** One judge's scores of one dialogue. */
export type JudgedDialogue = {
	/** The dialogue: the original session's id (a re-judged copy's rejudgeOf). */
	readonly dialogue: string;
	/** The judge as reports label it: model, mode, repeat. */
	readonly judge: string;
	readonly scores: Readonly<Partial<Record<Metric, number | null>>>;
	readonly region: string;
	readonly language: string;
	/** The dialogue's seed: the cluster its units are resampled with. */
	readonly seed: string;
};

/** A judge (or an ensemble's mean) against the human mean over some units. */
export type JudgeFigures = {
	/** Units (dialogue x metric) compared. */
	readonly n: number;
	readonly dialogues: number;
	/** Seeds the dialogues come from: the independent units the intervals rest on. */
	readonly seeds: number;
	/** Fewer than 10 seeds (the one small-sample rule). */
	readonly small: boolean;
	/** |judge − human mean| ≤ 1, with a Wilson interval. */
	readonly withinOne: Estimate | null;
	/** Mean |judge − human mean|. */
	readonly mae: Estimate | null;
	/** Mean of judge − human mean: negative = the judge is stricter than the people. */
	readonly bias: Estimate | null;
	/** The judge's score equals the human mean to the nearest point; a mean exactly halfway (2.5) counts half. */
	readonly exact: Estimate | null;
};

/** Agreement among the people themselves: every pair of ratings of one unit (the paper's human-human baseline). */
export type HumanBaseline = {
	/** Rater pairs over all units (a unit rated by three people gives three pairs). */
	readonly pairs: number;
	readonly units: number;
	readonly withinOne: number | null;
	readonly mae: number | null;
};

export type MetricAgreement = JudgeFigures & {
	readonly metric: Metric;
	readonly pearson: Estimate | null;
	readonly spearman: Estimate | null;
	/** Quadratic-weighted Cohen's kappa, judge vs human mean on the 1-5 scale; a mean halfway between two points counts half in each. */
	readonly kappa: Estimate | null;
	/** Krippendorff's alpha, interval level of measurement, among the human raters alone (units with two or more ratings). */
	readonly humanAlpha: Estimate | null;
	/** The same with the judge counted as one more rater. */
	readonly withJudgeAlpha: Estimate | null;
	readonly humans: HumanBaseline;
};

export type SliceAgreement = {readonly value: string; readonly judge: JudgeFigures; readonly humans: HumanBaseline};


export type PanelRow = JudgeFigures & {readonly judge: string};

export type EnsembleRow = {
	readonly judges: readonly string[];
	readonly k: number;
	readonly n: number;
	readonly dialogues: number;
	readonly withinOne: number | null;
	readonly mae: number | null;
	readonly bias: number | null;
	/** Seeds the units come from. */
	readonly seeds: number;
	/** Fewer than 10 seeds (the one small-sample rule). */
	readonly small: boolean;
	/**
	 * Seed-cluster intervals of MAE and % ±1, for the best ensembles only (`ensembleIntervals`, default
	 * 10): there can be a thousand ensembles, and the rest are ranked, not estimated. Null beyond them.
	 */
	readonly intervals: {readonly mae: Estimate | null; readonly withinOne: Estimate | null} | null;
};

/** The best ensemble against the best single judge, paired on the units both scored. */
export type EnsembleGain = {
	readonly ensemble: readonly string[];
	readonly judge: string;
	readonly n: number;
	readonly seeds: number;
	/** MAE(ensemble) − MAE(judge): negative = the ensemble is closer to the people. */
	readonly mae: Estimate | null;
	/** % ±1 (ensemble) − % ±1 (judge), as a share. */
	readonly withinOne: Estimate | null;
};

export type JudgeHumanReport = {
	/** The judges compared with the people in the overall, metric, region and language tables. */
	readonly judges: readonly string[];
	readonly overall: {readonly judge: JudgeFigures; readonly humans: HumanBaseline};
	readonly metrics: readonly MetricAgreement[];
	readonly regions: readonly SliceAgreement[];
	readonly languages: readonly SliceAgreement[];
	/** Each judge against the people, ranked by MAE (Table 11's single judges). */
	readonly panel: readonly PanelRow[];
	/** Every k-judge mean, k = 2..5, ranked by MAE (Table 11's ensembles); on units every member scored. */
	readonly ensembles: readonly EnsembleRow[];
	/** The best ensemble minus the best single judge, with a paired seed-cluster interval; null without both. */
	readonly ensembleGain: EnsembleGain | null;
	/** The units of the overall table: judge score and human mean per (dialogue, metric), for a scatter. */
	readonly units: ReadonlyArray<{readonly dialogue: string; readonly metric: Metric; readonly judge: number; readonly human: number}>;
};

type Unit = {readonly dialogue: string; readonly metric: Metric; readonly judge: number; readonly humans: readonly number[]; readonly region: string; readonly language: string; readonly cluster: string; readonly key: string};

const mean = (values: readonly number[]) => (values.length > 0 ? values.reduce((sum, value) => sum + value, 0) / values.length : null);
const TIE = 1e-9;

/** 1 when the judge is nearest the human mean, 0.5 when the mean lies exactly halfway, else 0. */
function exactness(judge: number, human: number): number {
	const gap = Math.abs(judge - human);
	return gap < 0.5 - TIE ? 1 : gap <= 0.5 + TIE ? 0.5 : 0;
}

function figures(units: readonly Unit[], options: BootstrapOptions, seed: string): JudgeFigures {
	const observe = (value: (unit: Unit, human: number) => number): Observation[] => units.map((unit) => ({cluster: unit.cluster, key: unit.key, value: value(unit, mean(unit.humans)!)}));
	const estimate = (what: string, value: (unit: Unit, human: number) => number) => clusterMean(observe(value), options, `${seed}:${what}`);
	const seeds = new Set(units.map((unit) => unit.cluster)).size;
	return {
		n: units.length,
		dialogues: new Set(units.map((unit) => unit.dialogue)).size,
		seeds,
		small: isSmall(seeds),
		withinOne: clusterShare(observe((unit, human) => (Math.abs(unit.judge - human) <= 1 + TIE ? 1 : 0)), options),
		mae: estimate('mae', (unit, human) => Math.abs(unit.judge - human)),
		bias: estimate('bias', (unit, human) => unit.judge - human),
		exact: clusterShare(observe((unit, human) => exactness(unit.judge, human)), options),
	};
}

function baseline(units: ReadonlyArray<{readonly humans: readonly number[]}>): HumanBaseline {
	let pairs = 0;
	let within = 0;
	let absolute = 0;
	let rated = 0;
	for (const unit of units) {
		if (unit.humans.length < 2) continue;
		rated++;
		for (let i = 0; i < unit.humans.length; i++) {
			for (let j = i + 1; j < unit.humans.length; j++) {
				const gap = Math.abs(unit.humans[i]! - unit.humans[j]!);
				pairs++;
				absolute += gap;
				if (gap <= 1) within++;
			}
		}
	}
	return {pairs, units: rated, withinOne: pairs > 0 ? within / pairs : null, mae: pairs > 0 ? absolute / pairs : null};
}

/** Human ratings grouped by (dialogue, metric); `dialogueOf` maps a rated session id to its dialogue. */
function humanUnits(ratings: readonly Rating[], dialogueOf: (session: string) => string): Map<string, number[]> {
	const byUnit = new Map<string, number[]>();
	for (const rating of ratings) {
		const key = `${dialogueOf(rating.session)}|${rating.metric}`;
		const list = byUnit.get(key);
		if (list) list.push(rating.score);
		else byUnit.set(key, [rating.score]);
	}
	return byUnit;
}

function unitsOf(judged: readonly JudgedDialogue[], humans: ReadonlyMap<string, readonly number[]>): Unit[] {
	const units: Unit[] = [];
	for (const entry of judged) {
		for (const metric of METRICS) {
			const score = entry.scores[metric];
			const people = humans.get(`${entry.dialogue}|${metric}`);
			if (typeof score === 'number' && people && people.length > 0) units.push({dialogue: entry.dialogue, metric, judge: score, humans: people, region: entry.region, language: entry.language, cluster: entry.seed, key: `${entry.dialogue}|${metric}`});
		}
	}
	return units;
}

/** The judge's and the human means' cells for kappa: a human mean halfway between two points sits half in each. */
function kappaCells(units: readonly Unit[]) {
	return units.flatMap((unit) => {
		const h = mean(unit.humans)!;
		const low = Math.floor(h + TIE);
		return Math.abs(h - low - 0.5) <= TIE ? [{a: unit.judge, b: low, weight: 0.5}, {a: unit.judge, b: low + 1, weight: 0.5}] : [{a: unit.judge, b: Math.min(5, Math.max(1, Math.round(h))), weight: 1}];
	});
}

function metricRow(metric: Metric, units: readonly Unit[], options: BootstrapOptions, seed: string): MetricAgreement {
	const mine = units.filter((unit) => unit.metric === metric);
	const stat = (what: string, compute: (sample: readonly Unit[]) => number | null) => clusterStatistic(mine, compute, options, `${seed}:${metric}:${what}`);
	return {
		metric,
		...figures(mine, options, `${seed}:${metric}`),
		pearson: stat('pearson', (sample) => pearson(sample.map((u) => u.judge), sample.map((u) => mean(u.humans)!))),
		spearman: stat('spearman', (sample) => spearman(sample.map((u) => u.judge), sample.map((u) => mean(u.humans)!))),
		kappa: stat('kappa', (sample) => weightedKappaOf(kappaCells(sample))),
		humanAlpha: stat('alpha', (sample) => krippendorffInterval(sample.map((unit) => [...unit.humans]))),
		withJudgeAlpha: stat('alpha+judge', (sample) => krippendorffInterval(sample.map((unit) => [...unit.humans, unit.judge]))),
		humans: baseline(mine),
	};
}

function slices(units: readonly Unit[], pick: (unit: Unit) => string, options: BootstrapOptions, seed: string): SliceAgreement[] {
	const values = [...new Set(units.map(pick))].sort();
	return values.map((value) => {
		const mine = units.filter((unit) => pick(unit) === value);
		return {value, judge: figures(mine, options, `${seed}:${value}`), humans: baseline(mine)};
	});
}

/** Beyond this many panel judges the ensembles (every 2- to 5-subset) are not listed at all. */
const MAX_ENSEMBLE_JUDGES = 12;

function* subsets<T>(items: readonly T[], k: number, start = 0, prefix: T[] = []): Generator<T[]> {
	if (prefix.length === k) {
		yield [...prefix];
		return;
	}
	for (let i = start; i <= items.length - (k - prefix.length); i++) {
		prefix.push(items[i]!);
		yield* subsets(items, k, i + 1, prefix);
		prefix.pop();
	}
}

/** Judge scores per unit (`dialogue|metric`) of the rated units, and each unit's seed. */
function panelScores(judged: readonly JudgedDialogue[], humans: ReadonlyMap<string, readonly number[]>) {
	const scores = new Map<string, Map<string, number>>();
	const seedOf = new Map<string, string>();
	for (const entry of judged) {
		for (const metric of METRICS) {
			const score = entry.scores[metric];
			if (typeof score !== 'number' || !humans.has(`${entry.dialogue}|${metric}`)) continue;
			const key = `${entry.dialogue}|${metric}`;
			const byJudge = scores.get(key) ?? new Map<string, number>();
			byJudge.set(entry.judge, score);
			scores.set(key, byJudge);
			seedOf.set(key, entry.seed);
		}
	}
	return {scores, seedOf};
}

type PanelScores = ReturnType<typeof panelScores>;

/** The ensemble's (mean of its members') gap to the human mean on every unit all members scored. */
function ensembleGaps({scores, seedOf}: PanelScores, humans: ReadonlyMap<string, readonly number[]>, members: readonly string[]): Array<{cluster: string; key: string; gap: number}> {
	const gaps: Array<{cluster: string; key: string; gap: number}> = [];
	for (const [key, byJudge] of scores) {
		if (!members.every((judge) => byJudge.has(judge))) continue;
		const judgeMean = members.reduce((sum, judge) => sum + byJudge.get(judge)!, 0) / members.length;
		gaps.push({cluster: seedOf.get(key)!, key, gap: judgeMean - mean(humans.get(key)!)!});
	}
	return gaps;
}

const within = (gap: number) => (Math.abs(gap) <= 1 + TIE ? 1 : 0);

function ensembles(panel: PanelScores, humans: ReadonlyMap<string, readonly number[]>, judges: readonly string[], intervalsFor: number, options: BootstrapOptions): EnsembleRow[] {
	if (judges.length < 2 || judges.length > MAX_ENSEMBLE_JUDGES) return [];
	const rows: Array<Omit<EnsembleRow, 'intervals'>> = [];
	for (let k = 2; k <= Math.min(5, judges.length); k++) {
		for (const members of subsets(judges, k)) {
			const gaps = ensembleGaps(panel, humans, members);
			const n = gaps.length;
			if (n === 0) continue;
			const seeds = new Set(gaps.map((unit) => unit.cluster)).size;
			const dialogues = new Set(gaps.map((unit) => unit.key.slice(0, unit.key.lastIndexOf('|'))));
			rows.push({
				judges: members, k, n, dialogues: dialogues.size, seeds, small: isSmall(seeds),
				withinOne: gaps.reduce((sum, unit) => sum + within(unit.gap), 0) / n,
				mae: gaps.reduce((sum, unit) => sum + Math.abs(unit.gap), 0) / n,
				bias: gaps.reduce((sum, unit) => sum + unit.gap, 0) / n,
			});
		}
	}
	rows.sort((a, b) => a.mae! - b.mae! || b.withinOne! - a.withinOne! || a.judges.join().localeCompare(b.judges.join()));
	return rows.map((row, rank) => {
		if (rank >= intervalsFor) return {...row, intervals: null};
		const gaps = ensembleGaps(panel, humans, row.judges);
		const observe = (value: (gap: number) => number): Observation[] => gaps.map((unit) => ({cluster: unit.cluster, key: unit.key, value: value(unit.gap)}));
		return {...row, intervals: {mae: clusterMean(observe(Math.abs), options, `agreement:ensemble:${row.judges.join('+')}:mae`), withinOne: clusterShare(observe(within), options)}};
	});
}

/** Best ensemble minus best single judge, paired on the units both scored (so a gain is not a change of units). */
function ensembleGain(panel: PanelScores, humans: ReadonlyMap<string, readonly number[]>, ensemble: readonly string[] | undefined, judge: string | undefined, options: BootstrapOptions): EnsembleGain | null {
	if (!ensemble || !judge) return null;
	const single = new Map(ensembleGaps(panel, humans, [judge]).map((unit) => [unit.key, unit.gap]));
	const units = ensembleGaps(panel, humans, ensemble).flatMap((unit) => (single.has(unit.key) ? [{cluster: unit.cluster, key: unit.key, ensemble: unit.gap, judge: single.get(unit.key)!}] : []));
	if (units.length === 0) return null;
	type Paired = (typeof units)[number];
	const difference = (value: (gap: number) => number) => (sample: readonly Paired[]) => (sample.length === 0 ? null : sample.reduce((sum, unit) => sum + value(unit.ensemble) - value(unit.judge), 0) / sample.length);
	const statistic = `agreement:gain:${ensemble.join('+')}:${judge}`;
	return {
		ensemble, judge, n: units.length, seeds: new Set(units.map((unit) => unit.cluster)).size,
		mae: clusterStatistic(units, difference(Math.abs), options, `${statistic}:mae`),
		withinOne: clusterStatistic(units, difference(within), options, `${statistic}:within`),
	};
}

const byMae = (a: PanelRow, b: PanelRow) => (a.mae?.mean ?? Infinity) - (b.mae?.mean ?? Infinity) || a.judge.localeCompare(b.judge);

/**
 * Judges against people. `primary` are the judgements the overall, per-metric, per-region and
 * per-language tables use (one judge per dialogue, normally the originals); `panel` are every judge's
 * judgements of the rated dialogues (originals and re-judged copies) for the panel and the ensembles.
 */
export function judgeHumanReport(input: {readonly primary: readonly JudgedDialogue[]; readonly panel?: readonly JudgedDialogue[]; readonly ratings: readonly Rating[]; readonly dialogueOf: (session: string) => string; /** How many of the best ensembles get intervals (default 10). */ readonly ensembleIntervals?: number}, options: BootstrapOptions = {}): JudgeHumanReport {
	// A namespace of the statistics; the random seed is the one documented default unless --seed (options.seed).
	const seed = 'agreement';
	const humans = humanUnits(input.ratings, input.dialogueOf);
	const units = unitsOf(input.primary, humans);
	const panelJudged = input.panel ?? [];
	const judges = [...new Set(panelJudged.map((entry) => entry.judge))].sort();
	const panel = judges
		.map((judge): PanelRow => ({judge, ...figures(unitsOf(panelJudged.filter((entry) => entry.judge === judge), humans), options, `${seed}:panel:${judge}`)}))
		.filter((row) => row.n > 0)
		.sort(byMae);
	const rated = units.map((unit) => unit.dialogue);
	const scores = panelScores(panelJudged, humans);
	const ranked = ensembles(scores, humans, panel.map((row) => row.judge).sort(), input.ensembleIntervals ?? 10, options);
	return {
		judges: [...new Set(input.primary.filter((entry) => rated.includes(entry.dialogue)).map((entry) => entry.judge))].sort(),
		overall: {judge: figures(units, options, `${seed}:overall`), humans: baseline(units)},
		metrics: METRICS.map((metric) => metricRow(metric, units, options, seed)),
		regions: slices(units, (unit) => unit.region, options, `${seed}:region`),
		languages: slices(units, (unit) => unit.language, options, `${seed}:language`),
		panel,
		ensembles: ranked,
		ensembleGain: ensembleGain(scores, humans, ranked[0]?.judges, panel[0]?.judge, options),
		units: units.map((unit) => ({dialogue: unit.dialogue, metric: unit.metric, judge: unit.judge, human: mean(unit.humans)!})),
	};
}

/** One block of `report agreement`: a cell of the rated dialogues' own judgements, with its figures. */
export type AgreementCell = JudgeHumanReport & {readonly cell: Partial<CellValues>};

/** What `report agreement --json` prints and the HTML report shows (commands/reportAgreement.ts builds it). */
export type AgreementData = {
	readonly ratings: number;
	readonly raters: number;
	/** Rated dialogues. */
	readonly sessions: number;
	readonly excluded: {readonly errored: number; readonly unknown: number};
	/** The cell keys that vary among the rated dialogues (each cell is its own block; never pooled unless asked). */
	readonly keys: readonly CellKey[];
	readonly cells: readonly AgreementCell[];
	readonly notes: readonly string[];
	readonly mockNotice: string | null;
	readonly resamples: number;
	readonly seed: string;
};
