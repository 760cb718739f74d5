/*
 * Fuzzy matching for the pickers: every character of the query must appear in order in the text
 * (case-insensitive). Consecutive runs and matches at word starts score higher, so "mtam" ranks
 * "my-tamil-hindu" above "my-malay-muslim-tamil".
 */

/** Score of `query` against `text`, or null when it does not match. Higher is better. */
export function fuzzyScore(query: string, text: string): number | null {
	const q = query.trim().toLowerCase();
	if (q.length === 0) return 0;
	const t = text.toLowerCase();
	let score = 0;
	let ti = 0;
	let run = 0;
	for (let qi = 0; qi < q.length; qi++) {
		const c = q[qi]!;
		if (c === ' ') {
			run = 0;
			continue;
		}
		const found = t.indexOf(c, ti);
		if (found === -1) return null;
		const wordStart = found === 0 || /[\s\-_.:/(]/.test(t[found - 1]!);
		run = found === ti && qi > 0 ? run + 1 : 0;
		score += 1 + run * 2 + (wordStart ? 3 : 0) - Math.min(3, (found - ti) * 0.1);
		ti = found + 1;
	}
	// Exact substring matches beat scattered ones.
	if (t.includes(q)) score += q.length * 2;
	return score;
}

/** Items that match, best first; ties keep the input order. */
export function fuzzyFilter<T>(items: readonly T[], query: string, text: (item: T) => string): T[] {
	if (query.trim().length === 0) return [...items];
	const scored: Array<{item: T; score: number; index: number}> = [];
	items.forEach((item, index) => {
		const score = fuzzyScore(query, text(item));
		if (score !== null) scored.push({item, score, index});
	});
	scored.sort((a, b) => b.score - a.score || a.index - b.index);
	return scored.map((entry) => entry.item);
}
