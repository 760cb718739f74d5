import type {LexiconEntry} from '../domain/lexicon.js';
import type {Slot, Template} from '../domain/template.js';
import type {Persona} from '../domain/universe.js';
import {type Lexicon, lexiconEntries} from '../universe/lexicon.js';
import {contentWords, pick, stripEnd} from './text.js';

/** A slot's chosen filler: the lexicon entry, or (no entry fits) a plain phrase from the slot's meaning. */
export type SlotChoice = {name: string; entry: LexiconEntry; fromLexicon: boolean; value: string};

/**
 * A slot no lexicon entry fits reads as its meaning ("the guest's food rule"), shaped like an entry so
 * the sentence decides its determiner; "how the money is held" reads "the way the money is held".
 */
function fromMeaning(meaning: string): LexiconEntry {
	const text = stripEnd(meaning).replace(/^how (?!many|much|long|often|far|old|soon)/i, 'the way ');
	const article = /^(a|an|the) /i.exec(text)?.[1]?.toLowerCase();
	return {text: article ? text.slice(article.length + 1) : text, det: article === 'the' ? 'the' : article ? 'a' : 'none', topics: []};
}

/** Words after which a noun phrase takes no determiner of its own ("their {{X}}", "a {{X}}"). */
const DETERMINER = /^(?:a|an|the|my|our|your|their|his|her|its|this|these|those|each|every|any|some|no|whose|one|another|other|same)$/i;
/** Words between which and the slot there is no room for an adjective ("for small {{X}}" is rare; "has only {{X}}" common). */
const NOT_ADJECTIVE = /^(?:to|for|at|in|on|with|by|from|of|about|as|is|are|was|were|has|have|had|and|or|but|only|than|into|near|before|after|until|during|within|between|including|like|such|whether|if|when|while)$/i;

/**
 * The words of a slot that topics are matched against: its name's parts and its meaning's words,
 * singular too. A free slot is matched on its name only: its meaning is a description ("a health or
 * diet need among the guests") whose loose words would pull in an unrelated filler.
 */
function slotWords(slot: Pick<Slot, 'name' | 'meaning' | 'kind'>): Set<string> {
	const words = new Set<string>();
	const meaning = slot.kind === 'free' ? [] : [...contentWords(slot.meaning), ...(slot.meaning.toLowerCase().match(/[a-z-]+/g) ?? [])];
	for (const word of [...slot.name.toLowerCase().split('_'), ...meaning]) {
		words.add(word);
		if (word.endsWith('s') && word.length > 3) words.add(word.slice(0, -1));
	}
	if (slot.name.includes('IN_LAW')) words.add('in-law');
	return words;
}

/** Words of slot names that say nothing of the value ("USUAL_ACTIVITY" is an activity). */
const GENERIC_NAME_WORDS = new Set('usual own main daily other new current preferred family household personal specific common local key first last previous recent shared typical required expected customary traditional for of the a an to in on at with and or'.split(' '));

function nameWords(name: string): string[] {
	return name.toLowerCase().split('_').filter(Boolean);
}

/** The words before the slot's first use in the sketch or ask, for fillers that need a preposition ("within"). */
function wordBefore(template: Pick<Template, 'sketch' | 'ask'>, name: string): string {
	const match = new RegExp(`(\\S+)\\s+\\{\\{${name}\\}\\}`).exec(`${template.sketch} ${template.ask}`);
	return (match?.[1] ?? '').toLowerCase().replace(/[^a-z']/g, '');
}

/**
 * Chooses each slot's filler by kind from the curated lexicon: entries whose topics meet the slot's
 * name or meaning first, the kind's general entries otherwise, always within what the persona's tags
 * allow. A free slot with no topical entry, or a kind with none, falls back to its meaning: never to
 * a knowledge-base title (those are passages, not values).
 */
export function chooseFillers(template: Pick<Template, 'sketch' | 'ask' | 'slots'>, persona: Pick<Persona, 'region' | 'tags' | 'identity'>, lexicon: Lexicon, key: string): SlotChoice[] {
	const taken = new Set<string>();
	return template.slots.map((slot) => {
		const words = slotWords(slot);
		const before = wordBefore(template, slot.name);
		const entries = lexiconEntries(lexicon, persona, slot.kind, slot.meaning).filter((entry) => !taken.has(entry.text) && (!entry.after || entry.after.includes(before)));
		// A free slot is matched on its name, and a filler must account for every specific word of it:
		// "CLEANSING_PRACTICE" is not a prayer routine just because "PRACTICE" is among a prayer's topics.
		const covers = (entry: LexiconEntry) => slot.kind !== 'free' || nameWords(slot.name).every((word) => GENERIC_NAME_WORDS.has(word) || entry.topics.includes(word) || entry.topics.includes(word.replace(/s$/, '')));
		const scored = entries.filter(covers).map((entry) => ({entry, score: entry.topics.filter((topic) => words.has(topic)).length}));
		const best = Math.max(0, ...scored.map((item) => item.score));
		let pool = best > 0 ? scored.filter((item) => item.score === best).map((item) => item.entry) : slot.kind === 'free' ? [] : scored.filter((item) => item.entry.topics.length === 0).map((item) => item.entry);
		// A kind whose every filler is topical (a region's dishes) still fills a slot no topic names.
		if (pool.length === 0 && slot.kind !== 'free') pool = entries;
		if (slot.plural && pool.some((entry) => entry.plural)) pool = pool.filter((entry) => entry.plural);
		if (pool.length === 0) {
			const fallback = fromMeaning(slot.meaning);
			return {name: slot.name, entry: fallback, fromLexicon: false, value: standalone(fallback)};
		}
		const entry = pick(pool, `${key}:${slot.name}`);
		taken.add(entry.text);
		return {name: slot.name, entry, fromLexicon: true, value: standalone(entry)};
	});
}

function article(text: string): 'a' | 'an' {
	return /^[aeiou]/i.test(text) && !/^(?:uni|use|one|eu)/i.test(text) ? 'an' : 'a';
}

/** A filler as it reads on its own (in private.slots): with its determiner. */
export function standalone(entry: LexiconEntry): string {
	if (entry.det === 'none') return entry.text;
	return `${entry.det === 'a' ? article(entry.text) : entry.det} ${entry.text}`;
}

/**
 * Puts the fillers into a template text, each shaped by the words before it: no determiner of its own
 * after "a", "their" or "X's" (and "a" turned to "an" before a vowel), a capital at a sentence start.
 */
export function fillText(text: string, choices: readonly SlotChoice[]): string {
	const byName = new Map(choices.map((choice) => [choice.name, choice]));
	let out = '';
	let last = 0;
	for (const match of text.matchAll(/\{\{([A-Z0-9_]+)\}\}/g)) {
		out += text.slice(last, match.index);
		last = match.index + match[0].length;
		const choice = byName.get(match[1]!);
		if (!choice) {
			out += match[0];
			continue;
		}
		const words = out.trimEnd().split(/\s+/);
		const previous = words.at(-1) ?? '';
		const beforeThat = words.at(-2) ?? '';
		const determined = DETERMINER.test(previous) || /'s$/.test(previous) || (DETERMINER.test(beforeThat) && /^[a-z-]+$/.test(previous) && !NOT_ADJECTIVE.test(previous));
		let value = determined ? choice.entry.text : standalone(choice.entry);
		if (determined && /^(?:a|an)$/i.test(previous)) {
			if (choice.entry.det === 'a' || choice.entry.det === 'none') out = out.replace(/\b(a|an)(\s*)$/i, (_whole, word: string, space: string) => `${word[0] === 'A' ? article(value).replace(/^a/, 'A') : article(value)}${space}`);
			// "a {{X}}" with a possessive or plural filler: the filler's own determiner wins.
			if (choice.entry.det === 'my' || choice.entry.det === 'our' || choice.entry.plural) {
				out = out.replace(/\b(?:a|an)(\s*)$/i, '');
				value = standalone(choice.entry);
			}
		}
		if (out.trim() === '' || /[.!?]\s*$/.test(out)) value = value.charAt(0).toUpperCase() + value.slice(1);
		out += value;
	}
	return out + text.slice(last);
}
