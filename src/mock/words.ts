import {contentWords} from './text.js';

/*
 * Word stems for the offline rubric and the simulated user's disclosure checks: a crude suffix
 * stripper, enough that "customs", "customary" and "custom" meet, and "suggests"/"suggested" too.
 * It only has to be consistent, not linguistically right: both sides of every comparison go through it.
 */

const SUFFIXES = ['ations', 'ation', 'ments', 'ment', 'ingly', 'ings', 'ing', 'ness', 'ities', 'ity', 'ies', 'ied', 'ary', 'ally', 'ate', 'ful', 'ous', 'ive', 'ers', 'er', 'ed', 'ly', 'es', 's'];

export function stem(word: string): string {
	const lower = word.toLowerCase().replace(/'s?$/, '');
	if (lower.length <= 4) return lower.replace(/s$/, '');
	for (const suffix of SUFFIXES) {
		if (lower.endsWith(suffix) && lower.length - suffix.length >= 4) return lower.slice(0, -suffix.length).replace(/(.)\1$/, '$1').replace(/e$/, '');
	}
	return lower.replace(/e$/, '');
}

/** The stems of a text's content words, in order (repeats kept). */
export function stemsOf(text: string): string[] {
	return contentWords(text).map(stem);
}

/** The stems two texts share (as a set). */
export function sharedStems(a: string, b: string): Set<string> {
	const other = new Set(stemsOf(b));
	return new Set(stemsOf(a).filter((word) => other.has(word)));
}

/** Runs of `n` consecutive words (lowercased, punctuation dropped): the unit a "copy" is measured in. */
export function wordGrams(text: string, n: number): Set<string> {
	const words = text.toLowerCase().match(/[\p{L}\p{N}']+/gu) ?? [];
	const grams = new Set<string>();
	for (let i = 0; i + n <= words.length; i++) grams.add(words.slice(i, i + n).join(' '));
	return grams;
}

/** True when `text` repeats a run of `n` words of `source` (5 by default: a copied phrase, not a shared idiom). */
export function copiesPhrase(text: string, source: string, n = 5): boolean {
	const grams = wordGrams(source, n);
	if (grams.size === 0) return false;
	for (const gram of wordGrams(text, n)) if (grams.has(gram)) return true;
	return false;
}
