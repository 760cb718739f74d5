import type {RiteTable} from './lexicon.js';
import type {Persona} from './universe.js';

/** One way a text contradicts who the persona is. */
export type PersonaContradiction = {
	/** The tradition or diet rule it comes from (kb/lexicon/rites.json). */
	rule: string;
	/** The word that gave it away, as written in the table. */
	word: string;
	reason: string;
};

/**
 * A text that is about someone else's rules (a host's kitchen, a colleague's fast, an in-law's church):
 * a persona respecting them is not keeping them as its own.
 */
const OTHERS = /\b(?:hosts?|guests?|colleagues?|co-?workers?|neighbou?rs?|friends?|in-laws?|partner(?:'s)?|fianc[ée]e?(?:'s)?|boss|clients?|visitors?|employers?|classmates?|others?|other family|their|his|her|the couple|the bride|the groom|tenants?|landlord)\b/i;
/** A food named in order to refuse it ("we have to avoid pork") keeps the rule, it does not break it. */
const REFUSAL = /\b(?:avoid\w*|no|not|never|without|free of|forbid\w*|haram|halal|refus\w*|cannot|can't|don't|doesn't|abstain\w*|instead of|substitut\w*|skip\w*|rule against|ban\w*)\b/i;

/** Whether a text is about someone else's rules (a host's, a guest's), which the persona may have to respect. */
export function aboutOthers(text: string): boolean {
	return OTHERS.test(text);
}

const escape = (word: string) => word.replace(/[.*+?^${}()|[\]\\]/g, '\\$&').replace(/ /g, '\\s+');
const patterns = new Map<string, RegExp>();
function wordPattern(word: string): RegExp {
	let pattern = patterns.get(word);
	if (!pattern) {
		// Whole words in any script: letters and digits on either side (Latin with diacritics included) break the match.
		pattern = new RegExp(`(?<![\\p{L}\\p{N}])${escape(word)}(?![\\p{L}\\p{N}])`, 'iu');
		patterns.set(word, pattern);
	}
	return pattern;
}

function owns(persona: Pick<Persona, 'tags' | 'region'>, owners: readonly string[]): boolean {
	return owners.some((owner) => (owner.startsWith('region:') ? persona.region === owner.slice('region:'.length) : persona.tags.includes(owner)));
}

/**
 * Where `text`, said by or of the persona as its own, contradicts the persona's tags: another faith's or
 * community's rites (a Tamil Hindu's own "church rules", a Ryukyuan's "dol"), or a food the persona's
 * faith forbids offered as its own dish. Rules kept for someone else (a Muslim's host's pork and
 * alcohol) are not contradictions, nor is a forbidden food named to refuse it. Pure: the table is given.
 */
export function personaContradictions(persona: Pick<Persona, 'tags' | 'region' | 'identity'>, text: string, table: RiteTable): PersonaContradiction[] {
	if (aboutOthers(text)) return [];
	const found: PersonaContradiction[] = [];
	for (const tradition of table.traditions) {
		if (owns(persona, tradition.owners)) continue;
		const word = tradition.words.find((candidate) => wordPattern(candidate).test(text));
		if (word) found.push({rule: tradition.id, word, reason: `'${word}' belongs to ${tradition.id} rites, which a ${persona.identity} persona does not keep as its own`});
	}
	if (!REFUSAL.test(text)) {
		for (const diet of table.diets) {
			if (!owns(persona, diet.owners)) continue;
			const word = diet.words.find((candidate) => wordPattern(candidate).test(text));
			if (word) found.push({rule: diet.id, word, reason: `'${word}' as the persona's own food breaks the ${diet.id} rule a ${persona.identity} persona keeps`});
		}
	}
	return found;
}

/**
 * A slot value read with what the slot means: "beef" filling "an ingredient common in the host's
 * cooking" is the host's food, not the persona's, so only the value of a slot about the persona's own
 * things is held to its tags.
 */
export function slotContradictions(persona: Pick<Persona, 'tags' | 'region' | 'identity'>, value: string, meaning: string, table: RiteTable): PersonaContradiction[] {
	return aboutOthers(meaning) ? [] : personaContradictions(persona, value, table);
}
