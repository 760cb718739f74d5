import stringWidth from 'string-width';

/*
 * The one measure of terminal text: string-width 8 (grapheme-aware: emoji such as ☕ ✅ 🇯🇵 take two
 * columns, CJK two, a Tamil vowel sign such as the one in `வே` one, as glibc's wcswidth and tmux count
 * it). Wrapping (src/util/wrap.ts, wrap-ansi 10, which measures with this same string-width),
 * truncation, padding and layout in the TUI and the plain-text tables all measure with it, so a line we
 * pre-wrap, cut or pad never disagrees with what Ink lays out (Ink 6 measures with string-width 8 too).
 */

const segmenter = new Intl.Segmenter();
const ASCII = /^[\x20-\x7e]*$/;

/*
 * Thai SARA AM (U+0E33) and Lao AM (U+0EB3) are spacing vowels that join the consonant before them in
 * one grapheme cluster: string-width 8 (and so Ink, which lays out by cluster) counts `สำ` as one
 * column, but glibc's wcwidth, and so tmux and xterm, draw it in two; every row holding one spilled a
 * column (test/e2e-tmux-scripts.test.ts found it). Their compatibility decompositions, NIKHAHIT + SARA
 * AA (U+0E4D U+0E32) and NIGGAHITA + AA (U+0ECD U+0EB2), look the same and are counted alike by both:
 * text is drawn in that form.
 */
const SPACING_AM = /[\u0E33\u0EB3]/g;

/** Text as the terminal is given it: the few characters whose width the measures disagree on, in a form they agree on. */
export function terminalForm(text: string): string {
	return text.includes('\u0E33') || text.includes('\u0EB3') ? text.replace(SPACING_AM, (am) => (am === '\u0E33' ? '\u0E4D\u0E32' : '\u0ECD\u0EB2')) : text;
}

export function displayWidth(text: string): number {
	return ASCII.test(text) ? text.length : stringWidth(terminalForm(text));
}

/** Grapheme clusters of a string (ASCII fast path): a cut never splits a character from its marks. */
export function clusters(text: string): string[] {
	if (ASCII.test(text)) return [...text];
	return Array.from(segmenter.segment(terminalForm(text)), (part) => part.segment);
}

/** The longest prefix of `text` that fits in `width` columns, with an ellipsis when cut. */
export function truncate(text: string, width: number): string {
	if (width <= 0) return '';
	if (displayWidth(text) <= width) return terminalForm(text);
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

/** `text` cut in the middle to `width` columns (ids: their start and their distinguishing end both stay). */
export function truncateMiddle(text: string, width: number): string {
	if (width <= 0) return '';
	if (displayWidth(text) <= width) return terminalForm(text);
	const parts = clusters(text);
	const room = width - 1;
	const headRoom = Math.ceil(room / 2);
	let head = '';
	let used = 0;
	for (const cluster of parts) {
		const w = displayWidth(cluster);
		if (used + w > headRoom) break;
		head += cluster;
		used += w;
	}
	let tail = '';
	let tailUsed = 0;
	for (let index = parts.length - 1; index >= 0; index--) {
		const w = displayWidth(parts[index]!);
		if (used + tailUsed + w > room) break;
		tail = parts[index]! + tail;
		tailUsed += w;
	}
	return `${head}…${tail}`;
}

/** `text` cut or padded with spaces to exactly `width` columns. */
export function fit(text: string, width: number): string {
	const cut = truncate(text, width);
	return cut + ' '.repeat(Math.max(0, width - displayWidth(cut)));
}
