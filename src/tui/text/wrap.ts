import {clusterWidth, clusters, displayWidth} from './width.js';

export type WrapOptions = {
	/** Spaces before every line. @default 0 */
	readonly indent?: number;
	/** Extra spaces before continuation lines of a paragraph (a hanging indent). @default 0 */
	readonly hang?: number;
};

/**
 * Word-wraps text to `width` display columns. Newlines start new paragraphs (an empty paragraph is
 * an empty line); a paragraph keeps its leading spaces and the spaces between words on a line (so aligned columns
 * stay aligned); spaces at a line break are dropped. Words wider
 * than a line (and runs of CJK or Thai text, which have no spaces) are broken between grapheme
 * clusters. Every returned line fits in `width` columns; at least one line is returned.
 *
 * @example wrapText('a long sentence', 8) // ['a long', 'sentence']
 */
export function wrapText(text: string, width: number, options: WrapOptions = {}): string[] {
	const indent = Math.max(0, options.indent ?? 0);
	const hang = Math.max(0, options.hang ?? 0);
	const out: string[] = [];
	for (const paragraph of text.replace(/\t/g, '  ').replace(/\r\n?/g, '\n').split('\n')) {
		wrapParagraph(paragraph, Math.max(1, width), indent, hang, out);
	}
	return out.length > 0 ? out : [''];
}

function wrapParagraph(paragraph: string, width: number, indent: number, hang: number, out: string[]): void {
	const lead = /^ */.exec(paragraph)![0];
	const tokens = paragraph.slice(lead.length).match(/ +|[^ ]+/g) ?? [];
	const firstPrefix = ' '.repeat(Math.min(indent + lead.length, Math.max(0, width - 1)));
	const restPrefix = ' '.repeat(Math.min(indent + lead.length + hang, Math.max(0, width - 1)));
	if (tokens.length === 0) {
		out.push('');
		return;
	}
	let prefix = firstPrefix;
	let line = '';
	let used = 0;
	let space = '';
	const room = () => width - prefix.length;
	const flush = () => {
		out.push(prefix + line);
		prefix = restPrefix;
		line = '';
		used = 0;
	};
	for (const token of tokens) {
		if (token.startsWith(' ')) {
			space = token;
			continue;
		}
		const word = token;
		const w = displayWidth(word);
		const gap = used === 0 ? '' : space;
		space = '';
		if (used + gap.length + w <= room()) {
			line += gap + word;
			used += gap.length + w;
			continue;
		}
		if (w <= width - restPrefix.length && !breaksAnywhere(word)) {
			if (used > 0) flush();
			line = word;
			used = w;
			continue;
		}
		// Too wide for any line, or text that breaks between characters: fill lines cluster by cluster.
		if (used > 0) {
			if (used + gap.length < room()) {
				line += gap;
				used += gap.length;
			} else flush();
		}
		for (const cluster of clusters(word)) {
			const cw = clusterWidth(cluster);
			if (used + cw > room() && used > 0) flush();
			line += cluster;
			used += cw;
		}
	}
	if (used > 0 || line.length > 0) flush();
}

/** Scripts written without spaces between words: break anywhere rather than push the run to a new line. */
function breaksAnywhere(word: string): boolean {
	return /[\u0e00-\u0e7f\u3040-\u30ff\u3400-\u9fff\uac00-\ud7a3\uf900-\ufaff]/.test(word) && displayWidth(word) > 12;
}
