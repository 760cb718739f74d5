import wrapAnsi from 'wrap-ansi';
import {terminalForm} from './textWidth.js';

export type WrapOptions = {
	/** Spaces before every line. @default 0 */
	readonly indent?: number;
	/** Extra spaces before continuation lines of a paragraph (a hanging indent). @default 0 */
	readonly hang?: number;
};

const WRAP = {hard: true, trim: true} as const;

/**
 * Word-wraps text to `width` display columns with wrap-ansi 10, which measures with string-width 8,
 * the program's one width function (util/textWidth.ts). wrap-ansi 9, which Ink bundles, measures with
 * string-width 7.2 and counts a Tamil vowel sign such as the one in `வே` as no column, so its lines
 * of Tamil came out up to a quarter wider than their pane (58 columns measured, 74 drawn); 10 counts
 * as Ink lays out and tmux draws (test/e2e-tmux-scripts.test.ts). Newlines start new paragraphs (an empty paragraph is an empty line); a paragraph
 * keeps its leading spaces as an indent, and spaces between words on a line stay (so aligned columns
 * stay aligned). Words wider than a line, and runs of CJK or Thai text, which have no spaces, are
 * broken between characters (`hard`). Every returned line fits in `width` columns; at least one
 * line is returned.
 *
 * wrap-ansi takes one width per call, so with a hanging indent the first line is wrapped alone at
 * its own width and the rest of the paragraph at the continuation width.
 *
 * @example wrapText('a long sentence', 8) // ['a long', 'sentence']
 */
export function wrapText(text: string, width: number, options: WrapOptions = {}): string[] {
	const indent = Math.max(0, options.indent ?? 0);
	const hang = Math.max(0, options.hang ?? 0);
	const columns = Math.max(1, width);
	const out: string[] = [];
	// In the form whose width string-width and the terminal agree on (util/textWidth.ts terminalForm).
	for (const paragraph of terminalForm(text).replace(/\t/g, '  ').replace(/\r\n?/g, '\n').split('\n')) {
		const lead = /^ */.exec(paragraph)![0].length;
		const body = paragraph.slice(lead);
		if (body.trim() === '') {
			out.push('');
			continue;
		}
		const first = ' '.repeat(Math.min(indent + lead, columns - 1));
		const rest = ' '.repeat(Math.min(indent + lead + hang, columns - 1));
		const head = wrapAnsi(body, columns - first.length, WRAP).split('\n')[0]!;
		out.push(first + head);
		// The first line is a prefix of the paragraph (wrap-ansi only breaks and trims), so the rest follows it.
		const tail = body.slice(head.length).replace(/^ +/, '');
		if (tail) for (const line of wrapAnsi(tail, columns - rest.length, WRAP).split('\n')) out.push(rest + line);
	}
	return out.length > 0 ? out : [''];
}
