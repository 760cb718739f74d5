import Fuse from 'fuse.js';

/*
 * Search for the pickers: fuse.js (Bitap), so a typo still finds its target ("tamol" finds the
 * Tamil personas) while a word does not match text that merely holds its letters in order
 * ("funeral" finds the two funeral templates, not every sketch with f…u…n…e…r…a…l in it).
 * Each word of the query must match; rows rank by the sum of the words' scores.
 */

/**
 * Up to one wrong letter in four: "tamol" (1 of 5) matches "tamil", "funeral" does not match
 * "general" (2 of 7). Measured on the shipped personas and templates.
 */
const THRESHOLD = 0.25;

type Row = {readonly index: number; readonly text: string};
const indexes = new WeakMap<object, {fuse: Fuse<Row>; textOf: unknown}>();

function fuseFor<T>(items: readonly T[], text: (item: T) => string): Fuse<Row> {
	const hit = indexes.get(items);
	if (hit && hit.textOf === text) return hit.fuse;
	const fuse = new Fuse(
		items.map((item, index) => ({index, text: text(item)})),
		{keys: ['text'], includeScore: true, threshold: THRESHOLD, ignoreLocation: true, ignoreFieldNorm: true, shouldSort: false},
	);
	indexes.set(items, {fuse, textOf: text});
	return fuse;
}

/** Items matching every word of `query`, best first; ties keep the input order. An empty query keeps all. */
export function fuzzyFilter<T>(items: readonly T[], query: string, text: (item: T) => string): T[] {
	const terms = query.trim().toLowerCase().split(/\s+/).filter(Boolean);
	if (terms.length === 0) return [...items];
	const fuse = fuseFor(items, text);
	let totals: Map<number, number> | null = null;
	for (const term of terms) {
		const next = new Map<number, number>();
		for (const result of fuse.search(term)) {
			const before = totals ? totals.get(result.item.index) : 0;
			if (before !== undefined) next.set(result.item.index, before + (result.score ?? 0));
		}
		totals = next;
	}
	return [...totals!.entries()].sort((a, b) => a[1] - b[1] || a[0] - b[0]).map(([index]) => items[index]!);
}
