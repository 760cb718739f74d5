import type {BootstrapOptions, Estimate} from './bootstrap.js';
import {clusterDifference, holm, isSmall} from './bootstrap.js';
import {type CellValues, type Selection, cellsOf, compareLabels, groupBy, isScored} from './cells.js';
import {observe} from './aggregate.js';
import {groupPermutationP} from './distribution.js';
import {type RangeTest, type SeedSlice, sliceDisplay, sliceTest, sliceValue} from './slices.js';

/*
 * The paper's disparity figures (region, identity, gender, age ranges) with their uncertainty: per
 * cell, the range of the slice means with a bootstrap interval and a permutation p-value, and, on
 * request, every pair of slice values with its difference, interval and Holm-adjusted p-value.
 */

export type DisparityRow = {
	readonly cell: CellValues;
	/** Slice values with scored episodes in the cell. */
	readonly values: number;
	/** Values resting on fewer than 10 seeds. */
	readonly small: number;
	readonly threeH: (RangeTest & {readonly pHolm: number | null}) | null;
	readonly tdq: (RangeTest & {readonly pHolm: number | null}) | null;
	/** Each value's mean 3H, seeds and deviation from the cell's mean (for Figures 37-39). */
	readonly slices: ReadonlyArray<{readonly value: string; readonly label: string; readonly n: number; readonly seeds: number; readonly small: boolean; readonly mean: number; readonly deviation: number; readonly p: number | null}>;
};

export type DisparityTable = {readonly slice: SeedSlice; readonly rows: readonly DisparityRow[]; readonly comparisons: number; readonly permutations: number};

export function sliceDisparities(selection: Selection, slice: SeedSlice, options: BootstrapOptions = {}): DisparityTable {
	const rows = cellsOf(selection).map(({key, sessions}): DisparityRow => {
		const scored = sessions.filter(isScored);
		const groups = groupBy(scored, (s) => ({value: sliceValue[slice](s)}), ['value']);
		const test = (pick: (s: (typeof scored)[number]) => number | null, what: string) => sliceTest(groups.map((g) => ({label: g.key.value, observations: observe(g.items, pick)})), options, `disparity:${slice}:${what}`);
		const three = test((s) => s.threeH, '3h');
		const tdq = test((s) => s.tdq, 'tdq');
		const slices = groups.map((g) => {
			const seeds = new Set(g.items.map((s) => s.seedId)).size;
			const dev = three.deviations.find((d) => d.label === g.key.value);
			return {value: g.key.value, label: sliceDisplay(slice, g.key.value, g.items), n: g.items.length, seeds, small: isSmall(seeds), mean: g.items.reduce((sum, s) => sum + s.threeH!, 0) / g.items.length, deviation: dev?.deviation ?? 0, p: dev?.p ?? null};
		});
		return {cell: key, values: groups.length, small: slices.filter((s) => s.small).length, threeH: three.range ? {...three.range, pHolm: null} : null, tdq: tdq.range ? {...tdq.range, pHolm: null} : null, slices};
	});
	const adjusted3 = holm(rows.map((row) => row.threeH?.p ?? null));
	const adjustedT = holm(rows.map((row) => row.tdq?.p ?? null));
	return {
		slice,
		rows: rows.map((row, index) => ({...row, threeH: row.threeH ? {...row.threeH, pHolm: adjusted3[index] ?? null} : null, tdq: row.tdq ? {...row.tdq, pHolm: adjustedT[index] ?? null} : null})),
		comparisons: adjusted3.filter((p) => p !== null).length,
		permutations: options.resamples ?? 2000,
	};
}

export type PairwiseRow = {readonly cell: CellValues; readonly a: string; readonly b: string; readonly seeds: {readonly a: number; readonly b: number}; readonly delta: Estimate | null; readonly p: number | null; readonly pHolm: number | null};

/** Every pair of slice values within each cell: 3H difference b − a, interval, permutation p, Holm over the whole table. */
export function pairwiseSlices(selection: Selection, slice: SeedSlice, options: BootstrapOptions = {}): {rows: PairwiseRow[]; comparisons: number} {
	const rows: PairwiseRow[] = [];
	for (const {key, sessions} of cellsOf(selection)) {
		const scored = sessions.filter(isScored);
		const values = [...new Set(scored.map(sliceValue[slice]))].sort(compareLabels);
		const of = (value: string) => observe(scored.filter((s) => sliceValue[slice](s) === value), (s) => s.threeH);
		for (let i = 0; i < values.length; i++) {
			for (let j = i + 1; j < values.length; j++) {
				const a = of(values[i]!);
				const b = of(values[j]!);
				rows.push({cell: key, a: values[i]!, b: values[j]!, seeds: {a: new Set(a.map((o) => o.cluster)).size, b: new Set(b.map((o) => o.cluster)).size}, delta: clusterDifference(a, b, options, `pairwise:${slice}:3h`), p: groupPermutationP(a, b, options, `pairwise:${slice}:3h`), pHolm: null});
			}
		}
	}
	const adjusted = holm(rows.map((row) => row.p));
	return {rows: rows.map((row, index) => ({...row, pHolm: adjusted[index] ?? null})), comparisons: adjusted.filter((p) => p !== null).length};
}
