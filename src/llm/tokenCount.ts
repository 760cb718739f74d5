/*
 * A BPE tokenizer's cost grows with the square of a word's length: gpt-tokenizer took 4 s for 4 KB
 * and 32 s for 64 KB of one unbroken run of letters, so a 256 KB runaway reply (one a server really
 * sent: a model repeating one character) held a batch for minutes per call. Text is tokenized in
 * words, as BPE does anyway; a run of more than LONG_RUN characters without a space is not a word any
 * tokenizer keeps whole, and is counted at three characters a token (a tokenizer's worst for such
 * runs is about four), so counting stays linear and the figure, marked estimated, stays close.
 */

const LONG_RUN = 256;
const RUNS = /\S{257,}/g;

/** `count` over `text`, with runs longer than LONG_RUN characters counted by length instead. */
export function boundedTokenCount(text: string, count: (text: string) => number): number {
	if (text.length <= LONG_RUN || !RUNS.test(text)) {
		RUNS.lastIndex = 0;
		return count(text);
	}
	RUNS.lastIndex = 0;
	let total = 0;
	let at = 0;
	for (const match of text.matchAll(RUNS)) {
		if (match.index > at) total += count(text.slice(at, match.index));
		total += Math.ceil(match[0].length / 3);
		at = match.index + match[0].length;
	}
	if (at < text.length) total += count(text.slice(at));
	return total;
}
