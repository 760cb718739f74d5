/*
 * Display width of terminal text, close to what Ink measures (string-width): grapheme clusters,
 * East Asian wide and fullwidth characters count 2, combining marks count 0, spacing marks count 1.
 * Where the two could disagree this errs on the wide side, so a pre-wrapped line never overflows
 * its pane (an over-wide line would be cut by Ink, never re-wrapped).
 */

const segmenter = new Intl.Segmenter();
const ASCII = /^[\x20-\x7e]*$/;
const INVISIBLE = /^[\p{Mn}\p{Me}\p{Cf}\p{Cc}]$/u;
const SPACING_MARK = /^\p{Mc}$/u;
const PICTOGRAPHIC = /\p{Extended_Pictographic}/u;

/** True for East Asian Wide (W) and Fullwidth (F) code points. */
export function isWide(cp: number): boolean {
	return (
		(cp >= 0x1100 && cp <= 0x115f) ||
		(cp >= 0x2e80 && cp <= 0x303e) ||
		(cp >= 0x3041 && cp <= 0x33ff) ||
		(cp >= 0x3400 && cp <= 0x4dbf) ||
		(cp >= 0x4e00 && cp <= 0x9fff) ||
		(cp >= 0xa000 && cp <= 0xa4cf) ||
		(cp >= 0xa960 && cp <= 0xa97f) ||
		(cp >= 0xac00 && cp <= 0xd7a3) ||
		(cp >= 0xf900 && cp <= 0xfaff) ||
		(cp >= 0xfe10 && cp <= 0xfe19) ||
		(cp >= 0xfe30 && cp <= 0xfe6f) ||
		(cp >= 0xff00 && cp <= 0xff60) ||
		(cp >= 0xffe0 && cp <= 0xffe6) ||
		(cp >= 0x1f300 && cp <= 0x1f64f) ||
		(cp >= 0x1f900 && cp <= 0x1f9ff) ||
		(cp >= 0x20000 && cp <= 0x3fffd)
	);
}

/** Width of one grapheme cluster. */
export function clusterWidth(cluster: string): number {
	if (cluster.length === 1) {
		const cp = cluster.charCodeAt(0);
		if (cp >= 0x20 && cp < 0x7f) return 1;
		if (cp < 0x20 || cp === 0x7f) return 0;
	}
	let width = 0;
	let base = true;
	for (const char of cluster) {
		const cp = char.codePointAt(0)!;
		if (INVISIBLE.test(char)) continue;
		if (base) {
			width += isWide(cp) || (cluster.length > 1 && PICTOGRAPHIC.test(char)) ? 2 : 1;
			base = false;
		} else if (SPACING_MARK.test(char) || (cp >= 0xff00 && cp <= 0xffef)) {
			width += 1;
		}
	}
	return width;
}

/** Grapheme clusters of a string (ASCII fast path). */
export function clusters(text: string): string[] {
	if (ASCII.test(text)) return [...text];
	return Array.from(segmenter.segment(text), (part) => part.segment);
}

export function displayWidth(text: string): number {
	if (ASCII.test(text)) return text.length;
	let width = 0;
	for (const {segment} of segmenter.segment(text)) width += clusterWidth(segment);
	return width;
}

/** The longest prefix of `text` that fits in `width` columns, with an ellipsis when cut. */
export function truncate(text: string, width: number): string {
	if (width <= 0) return '';
	if (displayWidth(text) <= width) return text;
	let out = '';
	let used = 0;
	for (const cluster of clusters(text)) {
		const w = clusterWidth(cluster);
		if (used + w > width - 1) break;
		out += cluster;
		used += w;
	}
	return `${out}…`;
}

/** `text` cut or padded with spaces to exactly `width` columns. */
export function fit(text: string, width: number): string {
	const cut = truncate(text, width);
	return cut + ' '.repeat(Math.max(0, width - displayWidth(cut)));
}
