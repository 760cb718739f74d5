import stringWidth from 'string-width';

/*
 * Display width of terminal text: string-width, the same measure Ink lays out with, so a line we
 * pre-wrap or pad never disagrees with what Ink draws (emoji such as ☕ ✅ 🇯🇵 take two columns,
 * Thai and Tamil combining marks none, CJK two).
 */

const segmenter = new Intl.Segmenter();
const ASCII = /^[\x20-\x7e]*$/;

export function displayWidth(text: string): number {
	return ASCII.test(text) ? text.length : stringWidth(text);
}

/** Grapheme clusters of a string (ASCII fast path): a cut never splits a character from its marks. */
export function clusters(text: string): string[] {
	if (ASCII.test(text)) return [...text];
	return Array.from(segmenter.segment(text), (part) => part.segment);
}

/** The longest prefix of `text` that fits in `width` columns, with an ellipsis when cut. */
export function truncate(text: string, width: number): string {
	if (width <= 0) return '';
	if (displayWidth(text) <= width) return text;
	let out = '';
	let used = 0;
	for (const cluster of clusters(text)) {
		const w = displayWidth(cluster);
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
