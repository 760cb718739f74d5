import type {OracleState} from '../domain/blueprint.js';

const STOPWORDS = new Set('a an the and or but of to in on at for with by from as is are was were be been it its this that these those their there they them he she his her you your i me my we our not no do does did can could should would will may might must have has had if then than so such into about over under very more most any some all each other also just only own same too'.split(' '));

function contentWords(text: string): string[] {
	return (text.toLowerCase().match(/[\p{L}\p{N}']+/gu) ?? []).filter((word) => word.length > 2 && !STOPWORDS.has(word));
}

function shingles(words: readonly string[], n: number): Set<string> {
	const out = new Set<string>();
	for (let i = 0; i + n <= words.length; i++) out.add(words.slice(i, i + n).join(' '));
	return out;
}

/**
 * Oracle items whose wording shows up in the public message: a shared run of three content words, or
 * most of a short item's content words. Taboos, tripwires and hidden constraints are checked. A cheap,
 * deterministic first line of defence before the LLM audit, which catches paraphrases.
 */
export function oracleLeaks(publicMessage: string, oracle: OracleState, hidden: ReadonlyArray<{constraint: string}> = []): string[] {
	const message = contentWords(publicMessage);
	const messageSet = new Set(message);
	const messageShingles = shingles(message, 3);
	const items = [
		...oracle.tripwires.map((tripwire) => ({label: `tripwire ${tripwire.id}`, text: tripwire.description})),
		...oracle.taboos.map((taboo, index) => ({label: `taboo ${index + 1}`, text: taboo.description})),
		// Success criteria are left out on purpose: they naturally restate the user's request.
		...hidden.map((item, index) => ({label: `hidden constraint ${index + 1}`, text: item.constraint})),
	];
	const leaks: string[] = [];
	for (const item of items) {
		const words = contentWords(item.text);
		if (words.length === 0) continue;
		const shared = [...shingles(words, 3)].find((shingle) => messageShingles.has(shingle));
		const overlap = words.filter((word) => messageSet.has(word)).length / words.length;
		if (shared) leaks.push(`the opening message repeats ${item.label} ("${shared}"); keep oracle content out of the public message`);
		else if (words.length <= 8 && overlap >= 0.75) leaks.push(`the opening message restates ${item.label} ("${item.text}"); keep oracle content out of the public message`);
	}
	return leaks;
}
