/**
 * Script-aware text segmentation shared by the hash embedder and BM25.
 *
 * The KB mixes English with the nine native languages. Some scripts separate words with spaces
 * (Latin incl. Vietnamese and Malay, Hangul, Tamil); others do not (Han, Kana, Thai), so "words" there
 * are character n-grams. Combining marks (Thai vowel and tone marks, Tamil vowel signs, Latin
 * diacritics after NFD) are kept with their base character as one cluster, so an n-gram never splits
 * a syllable in the middle.
 */

export type ScriptClass = 'latin' | 'cjk' | 'hangul' | 'thai' | 'tamil' | 'other';

/** A run of clusters of one script class: a word for spaced scripts, a whole run for unspaced ones. */
export type Segment = {
	readonly script: ScriptClass;
	/** Clusters as written (lower-cased, NFKC). */
	readonly clusters: readonly string[];
	/** The same clusters with Latin diacritics removed (equal to `clusters` for other scripts). */
	readonly folded: readonly string[];
};

/** Scripts written without spaces between words: segment by character n-grams instead. */
export const UNSPACED: ReadonlySet<ScriptClass> = new Set(['cjk', 'thai']);

const SEPARATOR = 0;
const MARK = 1;
type CharClass = ScriptClass | typeof SEPARATOR | typeof MARK;

const ASCII = /^[\x00-\x7f]*$/;
const letterRe = /[\p{L}\p{N}]/u;
const markRe = /\p{M}/u;
const slowCache = new Map<number, CharClass>();

/** Classifies one code point; the common ranges are checked numerically because this runs per character. */
export function charClass(cp: number): CharClass {
	if (cp < 0x80) {
		if ((cp >= 0x61 && cp <= 0x7a) || (cp >= 0x30 && cp <= 0x39) || (cp >= 0x41 && cp <= 0x5a)) return 'latin';
		return SEPARATOR;
	}
	if (cp >= 0x0300 && cp <= 0x036f) return MARK;
	if ((cp >= 0xc0 && cp <= 0x24f && cp !== 0xd7 && cp !== 0xf7) || (cp >= 0x1e00 && cp <= 0x1eff)) return 'latin';
	if (cp >= 0x0e00 && cp <= 0x0e7f) return cp === 0x0e31 || (cp >= 0x0e34 && cp <= 0x0e3a) || (cp >= 0x0e47 && cp <= 0x0e4e) ? MARK : 'thai';
	if (cp >= 0x0b80 && cp <= 0x0bff) return (cp >= 0x0bbe && cp <= 0x0bcd) || cp === 0x0bd7 || cp === 0x0b82 ? MARK : 'tamil';
	if ((cp >= 0x4e00 && cp <= 0x9fff) || (cp >= 0x3400 && cp <= 0x4dbf) || (cp >= 0xf900 && cp <= 0xfaff) || (cp >= 0x20000 && cp <= 0x2fa1f) || cp === 0x3005) return 'cjk';
	// Kana joins Han in one class: Japanese mixes them inside a word (お正月), and bigrams across the seam matter.
	if ((cp >= 0x3040 && cp <= 0x30ff && cp !== 0x30fb) || (cp >= 0x31f0 && cp <= 0x31ff)) return cp === 0x3099 || cp === 0x309a ? MARK : 'cjk';
	if ((cp >= 0xac00 && cp <= 0xd7af) || (cp >= 0x1100 && cp <= 0x11ff) || (cp >= 0x3130 && cp <= 0x318f)) return 'hangul';
	let known = slowCache.get(cp);
	if (known === undefined) {
		const char = String.fromCodePoint(cp);
		known = markRe.test(char) ? MARK : letterRe.test(char) ? 'other' : SEPARATOR;
		slowCache.set(cp, known);
	}
	return known;
}

const foldCache = new Map<string, string>();

/** Removes Latin diacritics (phở -> pho, đ -> d) so queries typed without them still match. */
export function foldLatin(cluster: string): string {
	if (cluster.length === 1 && cluster.charCodeAt(0) < 0x80) return cluster;
	let folded = foldCache.get(cluster);
	if (folded === undefined) {
		folded = cluster.normalize('NFD').replace(/[\u0300-\u036f]/g, '').replace(/đ/g, 'd').replace(/ø/g, 'o').replace(/ß/g, 'ss');
		foldCache.set(cluster, folded);
	}
	return folded;
}

/** NFKC + lower case: full-width Latin and half-width Kana become their ordinary forms. */
export function normalizeText(text: string): string {
	return text.normalize('NFKC').toLowerCase();
}

/**
 * Splits text into segments. A spaced-script segment is one word; an unspaced-script segment is a
 * whole run (its words are found later by n-grams). NFKC composes Latin letters with their
 * diacritics (ở is one code point); `folded` strips them per cluster.
 */
export function segment(text: string): Segment[] {
	// Fast path for plain ASCII (most English passages): words are runs of [a-z0-9], nothing to fold.
	if (ASCII.test(text)) {
		return (text.toLowerCase().match(/[a-z0-9]+/g) ?? []).map((word) => {
			const clusters = word.split('');
			return {script: 'latin', clusters, folded: clusters};
		});
	}
	const normalized = normalizeText(text);
	const segments: Segment[] = [];
	let script: ScriptClass | undefined;
	let clusters: string[] = [];
	const flush = () => {
		if (script !== undefined && clusters.length > 0) {
			segments.push({script, clusters, folded: script === 'latin' ? clusters.map(foldLatin) : clusters});
		}
		script = undefined;
		clusters = [];
	};
	for (const char of normalized) {
		const cp = char.codePointAt(0)!;
		const kind = charClass(cp);
		if (kind === MARK) {
			if (clusters.length > 0) clusters[clusters.length - 1] += char;
			continue;
		}
		if (kind === SEPARATOR) {
			flush();
			continue;
		}
		if (kind !== script) flush();
		script = kind;
		clusters.push(char);
	}
	flush();
	return segments;
}

/** Function words that carry no topic; skipped as word features in the languages written in Latin script. */
export const STOPWORDS: ReadonlySet<string> = new Set(
	(
		// English
		'a an and are as at be been but by can could did do does for from had has have he her his how i if in into is it its ' +
		'me my no not of on or our she should so than that the their them then there these they this those to too up us was ' +
		'we were what when where which who whom why will with would you your about also any each more most other some such ' +
		// Malay / Indonesian
		'dan yang di ke dari untuk dengan ini itu ada atau pada juga tidak akan oleh sebagai dalam ' +
		// Filipino
		'ang ng sa na mga si ay ni at kay ' +
		// Vietnamese (most frequent function syllables)
		'và của là các những cho có được với trong một này để'
	).split(' '),
);

/** Word tokens and unspaced-script bigrams for lexical matching (BM25), diacritics folded. */
export function lexicalTokens(text: string): string[] {
	if (ASCII.test(text)) return (text.toLowerCase().match(/[a-z0-9]+/g) ?? []).filter((word) => word.length >= 2 && !STOPWORDS.has(word));
	const tokens: string[] = [];
	for (const seg of segment(text)) {
		if (UNSPACED.has(seg.script)) {
			const chars = seg.folded;
			if (chars.length === 1) tokens.push(chars[0]!);
			for (let i = 0; i + 1 < chars.length; i++) tokens.push(chars[i]! + chars[i + 1]!);
			continue;
		}
		const exact = seg.clusters.join('');
		if (seg.script === 'latin' && (STOPWORDS.has(exact) || exact.length < 2)) continue;
		tokens.push(seg.folded.join(''));
	}
	return tokens;
}
