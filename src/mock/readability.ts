/**
 * Whether a filled request reads as a person's message (issue 23 follow-up): the places where a slot
 * filler of the wrong shape breaks the sentence. Pure: the request text and its slot values in, a list of
 * problems out. It does not judge meaning ("the family home" as a police office); only shape.
 */

/** A slot as the check sees it: its value as private.slots holds it. */
export type ReadableSlot = {name: string; value: string};

/** Words that put a verb after "to": "wants to {{X}}" needs a verb phrase, "goes to {{X}}" a place. */
const INFINITIVE_HEAD = /^(?:wants?|wanted|needs?|needed|plans?|planned|hopes?|hoped|expects?|expected|me|us|him|her|them|you|able|trying|try|tries|has|have|had|asked|decided|agreed|used|wish|wishes|refuses?|likely|supposed|allowed|how|whether|afraid|unable|forced|told)$/i;
/** Verbs that take someone to a place or an event: "invited me to {{EVENT}}", "take them to {{HEALER}}". */
const MOVES_SOMEONE = /^(?:invited?|invites|invited|take|takes|took|bring|brings|brought|welcome[sd]?|send|sends|sent|drive|drives|drove|walk|walks|lead|leads|led|introduce[sd]?|refer(?:s|red)?|return|move[sd]?)$/i;
/** Modals and "do not": what follows is a verb ("would {{X}}"). */
const MODAL = /^(?:would|will|could|should|must|can|may|might|cannot)$/i;
/** Subject pronouns, and "who" as a subject: a noun phrase straight after one has no verb ("parents who a household rule"). */
const SUBJECT = /^(?:I|we|We|they|They|he|He|she|She|who)$/;
/** A slot's meaning read as text: a question word or "the way" up front ("what the friend wrote"). */
const MEANING_TEXT = /^(?:what|why|how|whether|where|when|who|whose|which|the way)\b/i;
/** Words that repeat legitimately ("had had", "that that"). */
const MAY_REPEAT = new Set(['had', 'that', 'very', 'bye']);

function escape(text: string): string {
	return text.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');
}

/** Where a slot's value stands in the text: as private.slots holds it, or without its determiner. */
function occurrences(text: string, value: string): Array<{start: number; end: number; shown: string}> {
	const forms = [value, value.replace(/^(?:a|an|the|my|our) /i, '')].filter((form, index, all) => form.length > 0 && all.indexOf(form) === index);
	const found: Array<{start: number; end: number; shown: string}> = [];
	for (const form of forms) {
		for (const match of text.matchAll(new RegExp(`(?<![\\w-])${escape(form)}(?![\\w-])`, 'gi'))) {
			if (!found.some((seen) => match.index >= seen.start && match.index < seen.end)) found.push({start: match.index, end: match.index + match[0].length, shown: match[0]});
		}
	}
	return found;
}

/**
 * The problems of a filled request: a slot filler in a position that needs a verb phrase or a clause
 * ("wants to the renovation planned", "messaged that I what the friend wrote", "the partner replied that
 * what the partner said", "my mother-in-law was what went wrong"), a doubled word ("the the"), a count
 * read as "the number 4 guests", and a clause that lost its first-person subject ("I cannot swim, prefers ...").
 */
export function readabilityProblems(text: string, slots: readonly ReadableSlot[]): string[] {
	const problems: string[] = [];
	for (const slot of slots) {
		const meaningText = MEANING_TEXT.test(slot.value.replace(/^(?:a|an|the) (?=way\b)/i, 'the '));
		for (const {start, end, shown} of occurrences(text, slot.value)) {
			const words = text.slice(0, start).trimEnd().split(/\s+/);
			const previous = words.at(-1) ?? '';
			const beforeThat = words.at(-2) ?? '';
			const next = text.slice(end);
			const where = `${slot.name}="${shown}"`;
			const mover = words.at(-3) ?? '';
			if (previous === 'to' && INFINITIVE_HEAD.test(beforeThat) && !(/^(?:me|us|him|her|them|you)$/i.test(beforeThat) && MOVES_SOMEONE.test(mover))) problems.push(`${where} after "${beforeThat} to" needs a verb`);
			else if (MODAL.test(previous)) problems.push(`${where} after "${previous}" needs a verb`);
			else if (SUBJECT.test(previous)) problems.push(`${where} after the subject "${previous}" needs a verb`);
			else if (/^that$/i.test(previous) && (meaningText || /^\s*(?:[.,;:?!]|$)/.test(next))) problems.push(`${where} after "that" needs a clause`);
			else if (/^(?:was|were)$/i.test(previous) && meaningText) problems.push(`${where} after "${previous}" reads as a slot's meaning`);
			else if (previous === 'been' && /^(?:has|have|had)$/i.test(beforeThat) && meaningText) problems.push(`${where} after "${beforeThat} been" reads as a slot's meaning`);
			else if (/^been$/.test(previous) && /^(?:has|have)$/i.test(beforeThat) && !/^(?:a|an|the|my|our|their|his|her)\b/i.test(shown) && /s\b/.test(shown.split(/[ ,]/)[0] ?? '')) problems.push(`${where} after "${beforeThat} been" is a bare plural`);
		}
	}
	// The second word in a lookahead, so that every pair of neighbours is seen ("own background background").
	for (const match of text.matchAll(/\b(\w+)\s+(?=(\w+)\b)/g)) {
		if (match[1]!.toLowerCase() === match[2]!.toLowerCase() && !MAY_REPEAT.has(match[1]!.toLowerCase()) && !/^\d+$/.test(match[1]!)) problems.push(`doubled word "${match[1]} ${match[2]}"`);
	}
	// "the number 4" is right as the unlucky number ("amounts containing the number 4 should be avoided"), wrong as a count of things ("the number 4 guests").
	for (const match of text.matchAll(/\bthe number \d+(?:,\d{3})* (?!(?:is|are|was|were|should|must|can|could|would|will|may|might|contains?|in|on|at|and|or|as|for|to|of|has|have|had|brings?)\b)[a-z]+/gi)) problems.push(`a count read as "${match[0]}"`);
	for (const sentence of text.split(/(?<=[.?!])\s+/)) {
		const lost = /\bI\b([^.?!]*?)(?:,| but| and) (has never|has not|does not|is unsure|are unsure|prefers|worries|fears|wants|needs|keeps|says)\b/.exec(sentence);
		// Another subject between "I" and the verb ("I know my uncle, who ... and keeps") owns the verb.
		if (lost && !/\b(?:who|which|[Hh]e|[Ss]he)\b/.test(lost[1]!)) problems.push(`"${lost[2]}" after a first-person clause has no subject`);
	}
	// "me" as a subject after a joiner: a third person's verb turned first-person without its pronoun ("and me also wonders").
	for (const match of text.matchAll(/\b(?:and|but|yet|while|although|because|which|when|so) me (?:(?:also|now|still|often|already|never|always|then|really|only|even|usually) )?(?!and\b|or\b)[a-z]+s\b/g)) problems.push(`"me" as a subject: "${match[0]}"`);
	return problems;
}
