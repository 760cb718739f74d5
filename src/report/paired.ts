import type {SessionSummary} from '../domain/sessionSummary.js';
import {type BootstrapOptions, type Estimate, SMALL_SLICE, bootstrapMean} from './bootstrap.js';

/*
 * Paired deltas (the paper's section 5.3, appendix O and Table 10): the same seed under two variants,
 * the difference taken per seed, then averaged, with a paired bootstrap (the seeds are resampled,
 * each bringing its own difference). Pairing removes what the seeds differ in (persona, template,
 * blueprint), so the interval is about the variant alone.
 */

export const CONTRASTS = {
	language: {a: 'english', b: 'native', label: 'native − English', unit: 'seed'},
	mode: {a: 'eval', b: 'gold', label: 'gold − eval', unit: 'seed'},
	// Tier is fixed by the seed (a stable hash of its id), so no seed is run both ways: traps are
	// matched to standard seeds of the same region and domain instead, and those strata are the pairs.
	tier: {a: 'standard', b: 'trap', label: 'trap − standard', unit: 'region x domain'},
} as const;
export type Contrast = keyof typeof CONTRASTS;

const variantOf: Record<Contrast, (s: SessionSummary) => string> = {
	language: (s) => s.language,
	mode: (s) => s.mode,
	tier: (s) => (s.tier === 'standard' ? 'standard' : 'trap'),
};
const unitOf: Record<Contrast, (s: SessionSummary) => string> = {
	language: (s) => s.seedId,
	mode: (s) => s.seedId,
	tier: (s) => `${s.region}|${s.templateId.split('.')[0] ?? s.templateId}`,
};

type Figures = {readonly threeH: number | null; readonly tdq: number | null; readonly clean: number | null};

/** One pair: a seed (or stratum) with both variants; each side is the mean of its episodes. */
export type PairedUnit = {readonly unit: string; readonly a: Figures; readonly b: Figures; readonly delta: Figures; readonly sharedBlueprint: boolean};

export type PairedRow = {
	readonly slice: Readonly<Record<string, string>>;
	readonly contrast: Contrast;
	/** Units (seeds, or strata for tier) with both variants. */
	readonly pairs: number;
	/** Units with only one of the two variants: left out. */
	readonly unpaired: number;
	/** Seeds whose variants ran from one blueprint (same blueprint id): pairing by construction. */
	readonly sharedBlueprints: number;
	readonly small: boolean;
	/** Means over the paired units, each side. */
	readonly a: Figures;
	readonly b: Figures;
	/** b − a per unit, averaged, with a paired bootstrap interval; clean is in share points (0.05 = 5 pp). */
	readonly delta: {readonly threeH: Estimate | null; readonly tdq: Estimate | null; readonly clean: Estimate | null};
	readonly units: readonly PairedUnit[];
};

const mean = (values: readonly number[]) => (values.length > 0 ? values.reduce((sum, value) => sum + value, 0) / values.length : null);
const scored = (s: SessionSummary) => s.status === 'completed' && s.threeH !== null && s.tdq !== null;

function side(sessions: readonly SessionSummary[]): Figures {
	return {
		threeH: mean(sessions.map((s) => s.threeH!)),
		tdq: mean(sessions.map((s) => s.tdq!)),
		clean: mean(sessions.flatMap((s) => (s.clean === null ? [] : [s.clean ? 1 : 0]))),
	};
}

/**
 * Paired rows for one contrast, one per group of `groupOf` (model, setup, ...). Only completed,
 * judged sessions count; the caller has already left out mock filler and re-judged copies.
 */
export function pairedDeltas(sessions: readonly SessionSummary[], contrast: Contrast, groupOf: (s: SessionSummary) => Record<string, string>, options: BootstrapOptions = {}): PairedRow[] {
	const {a, b} = CONTRASTS[contrast];
	const groups = new Map<string, {slice: Record<string, string>; units: Map<string, {a: SessionSummary[]; b: SessionSummary[]}>}>();
	for (const s of sessions.filter(scored)) {
		const variant = variantOf[contrast](s);
		if (variant !== a && variant !== b) continue;
		const slice = groupOf(s);
		const key = JSON.stringify(slice);
		let group = groups.get(key);
		if (!group) groups.set(key, (group = {slice, units: new Map()}));
		const unit = unitOf[contrast](s);
		let entry = group.units.get(unit);
		if (!entry) group.units.set(unit, (entry = {a: [], b: []}));
		(variant === a ? entry.a : entry.b).push(s);
	}
	const rows: PairedRow[] = [];
	for (const group of [...groups.values()].sort((x, y) => JSON.stringify(x.slice).localeCompare(JSON.stringify(y.slice)))) {
		const units: PairedUnit[] = [];
		let unpaired = 0;
		// Canonical order: the bootstrap resamples units sorted by id, whatever order sessions came in.
		for (const unit of [...group.units.keys()].sort()) {
			const entry = group.units.get(unit)!;
			if (entry.a.length === 0 || entry.b.length === 0) {
				unpaired++;
				continue;
			}
			const left = side(entry.a);
			const right = side(entry.b);
			const diff = (pick: (f: Figures) => number | null) => (pick(left) !== null && pick(right) !== null ? pick(right)! - pick(left)! : null);
			const blueprints = new Set([...entry.a, ...entry.b].map((s) => s.blueprintId));
			units.push({unit, a: left, b: right, delta: {threeH: diff((f) => f.threeH), tdq: diff((f) => f.tdq), clean: diff((f) => f.clean)}, sharedBlueprint: contrast !== 'tier' && blueprints.size === 1 && !blueprints.has(null)});
		}
		const seed = `${options.seed ?? 'cultureconverse'}|paired|${contrast}|${JSON.stringify(group.slice)}`;
		const delta = (pick: (f: Figures) => number | null, what: string) => bootstrapMean(units.map((u) => pick(u.delta)).filter((v): v is number => v !== null), {...options, seed: `${seed}|${what}`});
		const sideMean = (which: 'a' | 'b', pick: (f: Figures) => number | null) => mean(units.map((u) => pick(u[which])).filter((v): v is number => v !== null));
		const figures = (which: 'a' | 'b'): Figures => ({threeH: sideMean(which, (f) => f.threeH), tdq: sideMean(which, (f) => f.tdq), clean: sideMean(which, (f) => f.clean)});
		rows.push({
			slice: group.slice,
			contrast,
			pairs: units.length,
			unpaired,
			sharedBlueprints: units.filter((u) => u.sharedBlueprint).length,
			small: units.length > 0 && units.length < SMALL_SLICE,
			a: figures('a'),
			b: figures('b'),
			delta: {threeH: delta((f) => f.threeH, '3h'), tdq: delta((f) => f.tdq, 'tdq'), clean: delta((f) => f.clean, 'clean')},
			units,
		});
	}
	return rows;
}
