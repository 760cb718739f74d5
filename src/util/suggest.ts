/** Levenshtein distance with an early exit once `max` is exceeded. */
export function editDistance(a: string, b: string, max = Number.POSITIVE_INFINITY): number {
	if (a === b) return 0;
	if (Math.abs(a.length - b.length) > max) return max + 1;
	let previous = Array.from({length: b.length + 1}, (_, index) => index);
	for (let i = 1; i <= a.length; i++) {
		const current = [i];
		let rowMin = i;
		for (let j = 1; j <= b.length; j++) {
			const cost = a[i - 1] === b[j - 1] ? 0 : 1;
			const value = Math.min(previous[j]! + 1, current[j - 1]! + 1, previous[j - 1]! + cost);
			current.push(value);
			rowMin = Math.min(rowMin, value);
		}
		if (rowMin > max) return max + 1;
		previous = current;
	}
	return previous[b.length]!;
}

/** Up to `limit` candidates close to `input` (typos, case, partial ids), best first. */
export function nearMatches(input: string, candidates: Iterable<string>, limit = 3): string[] {
	// Ids are short: a long input (a 50 MB line of a seed file) is no typo of one, and its edit distance to
	// every candidate took 22 s before the error could be said.
	if (input.length > MAX_SUGGESTED_INPUT) return [];
	const needle = input.toLowerCase();
	const max = Math.max(2, Math.floor(needle.length / 3));
	const scored: Array<[string, number]> = [];
	for (const candidate of candidates) {
		const hay = candidate.toLowerCase();
		let score = editDistance(needle, hay, max);
		if (score > max && needle.length >= 3 && hay.includes(needle)) score = max;
		// An id with a segment left out (vn-kinh-a55-m for vn-kinh-buddhist-a55-m) is a strong hint.
		if (isTokenSubsequence(needle, hay)) score = Math.min(score, 0.5 + editDistance(needle, hay) / 1000);
		if (score <= max) scored.push([candidate, score]);
	}
	scored.sort((a, b) => a[1] - b[1] || a[0].localeCompare(b[0]));
	return scored.slice(0, limit).map(([candidate]) => candidate);
}

const tokens = (id: string) => id.split(/[-.:_\s]+/).filter(Boolean);

/** True when every segment of `needle` (two or more) appears in `hay`'s segments, in order. */
function isTokenSubsequence(needle: string, hay: string): boolean {
	const wanted = tokens(needle);
	if (wanted.length < 2) return false;
	let at = 0;
	for (const token of tokens(hay)) if (token === wanted[at] && ++at === wanted.length) return true;
	return false;
}

/** Inputs longer than this get no near matches (see nearMatches). */
const MAX_SUGGESTED_INPUT = 500;

/** "Unknown persona 'x'. Did you mean: a, b?" (a long input is quoted cut, so the message stays a line) */
export function unknownMessage(kind: string, input: string, candidates: Iterable<string>, hint?: string): string {
	const near = nearMatches(input, candidates);
	const shown = input.length > 120 ? `${input.slice(0, 120)}… (${input.length.toLocaleString('en')} characters)` : input;
	const parts = [`Unknown ${kind} '${shown}'.`];
	if (near.length > 0) parts.push(`Did you mean: ${near.join(', ')}?`);
	if (hint) parts.push(hint);
	return parts.join(' ');
}
