import type {SessionSummary} from '../domain/sessionSummary.js';
import {type BootstrapOptions, type Estimate, type Observation, clusterMean, clustersOf, holm, isSmall, streamFor, DEFAULT_RESAMPLES} from './bootstrap.js';
import {CELL_KEYS, type CellKey, type Selection, compareLabels, dialogueOf, groupBy, isScored} from './cells.js';
import {type SeedSlice, sliceValue} from './slices.js';

/*
 * Paired deltas (the paper's section 5.3, appendix O and Table 10): the same unit under two variants,
 * the difference taken per unit, then averaged, with a seed-cluster bootstrap of the unit deltas and a
 * sign-flip permutation p-value (Holm-adjusted over the table's rows). Pairs are made within every
 * other cell key (setup, assistant, mode or language, judge), so a language delta never mixes modes.
 * A unit with more episodes on one side (trials) counts once: each side is the mean of its episodes.
 */

export const CONTRASTS = {
	language: {a: 'english', b: 'native', label: 'native − English', unit: 'seed'},
	mode: {a: 'eval', b: 'gold', label: 'gold − eval', unit: 'seed'},
	// Tier is fixed by the seed (a stable hash of its id), so no seed is run both ways: traps are
	// matched to standard seeds of the same region and domain instead, and those strata are the pairs.
	tier: {a: 'standard', b: 'trap', label: 'trap − standard', unit: 'region x domain'},
	// The same dialogue scored by two judges (a re-judged copy): each judge against the reference judge,
	// the one that judged the dialogues when they ran.
	judge: {a: 'reference judge', b: 'other judge', label: 'judge − reference judge', unit: 'dialogue'},
} as const;
export type Contrast = keyof typeof CONTRASTS;

/** The cell key a contrast varies (tier varies none: it is a seed property). */
const contrastKey: Record<Contrast, CellKey | null> = {language: 'language', mode: 'mode', tier: null, judge: 'judge'};

type Figures = {readonly threeH: number | null; readonly tdq: number | null; readonly clean: number | null};

/** One pair: a unit with both variants; each side is the mean of its episodes. */
export type PairedUnit = {readonly unit: string; readonly cluster: string; readonly a: Figures; readonly b: Figures; readonly delta: Figures; readonly episodes: {readonly a: number; readonly b: number}; readonly sharedBlueprint: boolean};

export type PairedRow = {
	readonly slice: Readonly<Record<string, string>>;
	readonly contrast: Contrast;
	/** The two sides compared (for judges: the reference judge and the other one). */
	readonly sides: {readonly a: string; readonly b: string};
	/** Units (seeds, dialogues, strata) with both variants. */
	readonly pairs: number;
	/** Units with only one of the two variants: left out. */
	readonly unpaired: number;
	/** Pairs with more episodes on one side than the other (trials): each still counts once. */
	readonly unbalanced: number;
	/** Independent clusters (seeds) the pairs come from: what the interval rests on. */
	readonly seeds: number;
	/** Seeds whose variants ran from one blueprint (same blueprint id): pairing by construction. */
	readonly sharedBlueprints: number;
	readonly small: boolean;
	/** Means over the paired units, each side, with intervals. */
	readonly a: {readonly threeH: Estimate | null; readonly tdq: Estimate | null; readonly clean: Estimate | null};
	readonly b: {readonly threeH: Estimate | null; readonly tdq: Estimate | null; readonly clean: Estimate | null};
	/** b − a per unit, averaged, with a cluster bootstrap interval; clean is in share points (0.05 = 5 pp). */
	readonly delta: {readonly threeH: Estimate | null; readonly tdq: Estimate | null; readonly clean: Estimate | null};
	/** Sign-flip permutation p-value of the 3H delta, and the same Holm-adjusted over the table's rows. */
	readonly p: number | null;
	readonly pHolm: number | null;
	readonly units: readonly PairedUnit[];
};

export type PairedTable = {
	readonly contrast: Contrast;
	readonly label: string;
	readonly unit: string;
	/** The columns of the rows' `slice`. */
	readonly columns: readonly string[];
	readonly rows: readonly PairedRow[];
	/** Comparisons in the table (rows with a p-value): the Holm family. */
	readonly comparisons: number;
};

const mean = (values: readonly number[]) => (values.length > 0 ? values.reduce((sum, value) => sum + value, 0) / values.length : null);

function side(sessions: readonly SessionSummary[]): Figures {
	return {
		threeH: mean(sessions.map((s) => s.threeH!)),
		tdq: mean(sessions.map((s) => s.tdq!)),
		clean: mean(sessions.flatMap((s) => (s.clean === null ? [] : [s.clean ? 1 : 0]))),
	};
}

const variantOf: Record<Exclude<Contrast, 'judge'>, (s: SessionSummary) => string> = {
	language: (s) => s.language,
	mode: (s) => s.mode,
	tier: (s) => (s.tier === 'standard' ? 'standard' : 'trap'),
};
const unitOf: Record<Contrast, (s: SessionSummary) => string> = {
	language: (s) => s.seedId,
	mode: (s) => s.seedId,
	tier: (s) => `${s.region}|${s.templateId.split('.')[0] ?? s.templateId}`,
	judge: dialogueOf,
};
const clusterOf: Record<Contrast, (s: SessionSummary) => string> = {language: (s) => s.seedId, mode: (s) => s.seedId, tier: unitOf.tier, judge: (s) => s.seedId};

/**
 * The paired table of one contrast over a selection: rows per the other cell keys that vary (and
 * `slices`), pairs within each. For judges, one row per judge other than each group's reference judge
 * (the judge of the original sessions, else the one with most dialogues).
 */
export function pairedDeltas(selection: Selection, contrast: Contrast, slices: readonly SeedSlice[] = [], options: BootstrapOptions = {}): PairedTable {
	const varied = contrastKey[contrast];
	const groupKeys: string[] = [...CELL_KEYS.filter((key) => key !== varied && selection.varying.includes(key)), ...slices];
	const groupOf = (s: SessionSummary) => {
		const cell = selection.keyOf(s);
		return Object.fromEntries(groupKeys.map((key) => [key, (CELL_KEYS as readonly string[]).includes(key) ? cell[key as CellKey] : sliceValue[key as SeedSlice](s)])) as Record<string, string>;
	};
	const scored = selection.sessions.filter(isScored);
	const rows: PairedRow[] = [];
	for (const group of groupBy(scored, groupOf, groupKeys)) {
		if (contrast === 'judge') {
			const judgeOf = (s: SessionSummary) => selection.keyOf(s).judge;
			const judges = [...new Set(group.items.map(judgeOf))].sort(compareLabels);
			if (judges.length < 2) continue;
			const originals = new Set(group.items.filter((s) => s.rejudgeOf === null).map(judgeOf));
			const count = (judge: string) => new Set(group.items.filter((s) => judgeOf(s) === judge).map(dialogueOf)).size;
			const reference = [...judges].sort((x, y) => Number(originals.has(y)) - Number(originals.has(x)) || count(y) - count(x) || compareLabels(x, y))[0]!;
			for (const other of judges.filter((judge) => judge !== reference)) {
				rows.push(pairRow({...group.key, judge: `${other} vs ${reference}`}, contrast, {a: reference, b: other}, group.items, (s) => (judgeOf(s) === reference ? 'a' : judgeOf(s) === other ? 'b' : null), options));
			}
			continue;
		}
		const {a, b} = CONTRASTS[contrast];
		const variant = variantOf[contrast];
		rows.push(pairRow(group.key, contrast, {a, b}, group.items, (s) => (variant(s) === a ? 'a' : variant(s) === b ? 'b' : null), options));
	}
	const adjusted = holm(rows.map((row) => row.p));
	const columns = contrast === 'judge' ? [...groupKeys, 'judge'] : groupKeys;
	return {contrast, label: CONTRASTS[contrast].label, unit: CONTRASTS[contrast].unit, columns, rows: rows.map((row, index) => ({...row, pHolm: adjusted[index] ?? null})), comparisons: adjusted.filter((p) => p !== null).length};
}

function pairRow(slice: Record<string, string>, contrast: Contrast, sides: {a: string; b: string}, sessions: readonly SessionSummary[], sideOf: (s: SessionSummary) => 'a' | 'b' | null, options: BootstrapOptions): PairedRow {
	const byUnit = new Map<string, {cluster: string; a: SessionSummary[]; b: SessionSummary[]}>();
	for (const s of sessions) {
		const which = sideOf(s);
		if (!which) continue;
		const unit = unitOf[contrast](s);
		const entry = byUnit.get(unit) ?? {cluster: clusterOf[contrast](s), a: [], b: []};
		entry[which].push(s);
		byUnit.set(unit, entry);
	}
	const units: PairedUnit[] = [];
	let unpaired = 0;
	for (const unit of [...byUnit.keys()].sort()) {
		const entry = byUnit.get(unit)!;
		if (entry.a.length === 0 || entry.b.length === 0) {
			unpaired++;
			continue;
		}
		const left = side(entry.a);
		const right = side(entry.b);
		const diff = (pick: (f: Figures) => number | null) => (pick(left) !== null && pick(right) !== null ? pick(right)! - pick(left)! : null);
		const blueprints = new Set([...entry.a, ...entry.b].map((s) => s.blueprintId));
		units.push({unit, cluster: entry.cluster, a: left, b: right, delta: {threeH: diff((f) => f.threeH), tdq: diff((f) => f.tdq), clean: diff((f) => f.clean)}, episodes: {a: entry.a.length, b: entry.b.length}, sharedBlueprint: contrast !== 'tier' && blueprints.size === 1 && !blueprints.has(null)});
	}
	const stat = `paired:${contrast}:${sides.a}:${sides.b}`;
	const observations = (pick: (u: PairedUnit) => number | null): Observation[] => units.flatMap((u) => {
		const value = pick(u);
		return value === null ? [] : [{cluster: u.cluster, key: u.unit, value}];
	});
	const estimate = (pick: (u: PairedUnit) => number | null, what: string) => clusterMean(observations(pick), options, `${stat}:${what}`, contrast === 'tier' ? 'stratum' : 'seed');
	const figures = (which: 'a' | 'b') => ({threeH: estimate((u) => u[which].threeH, `${which}:3h`), tdq: estimate((u) => u[which].tdq, `${which}:tdq`), clean: estimate((u) => u[which].clean, `${which}:clean`)});
	const seeds = new Set(units.map((u) => u.cluster)).size;
	return {
		slice,
		contrast,
		sides,
		pairs: units.length,
		unpaired,
		unbalanced: units.filter((u) => u.episodes.a !== u.episodes.b).length,
		seeds,
		sharedBlueprints: units.filter((u) => u.sharedBlueprint).length,
		small: isSmall(units.length),
		a: figures('a'),
		b: figures('b'),
		delta: {threeH: estimate((u) => u.delta.threeH, 'delta:3h'), tdq: estimate((u) => u.delta.tdq, 'delta:tdq'), clean: estimate((u) => u.delta.clean, 'delta:clean')},
		p: signFlipP(observations((u) => u.delta.threeH), options, `${stat}:flip`),
		pHolm: null,
		units,
	};
}

/**
 * Two-sided sign-flip permutation p-value of a mean difference being zero: each cluster's deltas flip
 * sign together (a cluster's units are not independent). Null with fewer than two clusters.
 */
export function signFlipP(observations: readonly Observation[], options: BootstrapOptions, statistic: string): number | null {
	const clusters = clustersOf(observations);
	if (clusters.length < 2) return null;
	const sums = clusters.map((c) => c.members.reduce((s, o) => s + o.value, 0));
	const n = observations.length;
	const observed = Math.abs(sums.reduce((a, b) => a + b, 0) / n);
	if (observed < 1e-12) return 1;
	const resamples = options.resamples ?? DEFAULT_RESAMPLES;
	const random = streamFor(options, statistic, clusters);
	let extreme = 0;
	for (let r = 0; r < resamples; r++) {
		let sum = 0;
		for (const value of sums) sum += random() < 0.5 ? -value : value;
		if (Math.abs(sum / n) >= observed - 1e-12) extreme++;
	}
	return (1 + extreme) / (1 + resamples);
}
