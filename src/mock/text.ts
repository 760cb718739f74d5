import {fnv1a} from '../util/hash.js';

/** Deterministic pick from a list by a string key. */
export function pick<T>(items: readonly T[], key: string): T {
	return items[fnv1a(key) % items.length]!;
}

export function sentences(text: string): string[] {
	return text.match(/[^.!?]+[.!?]+/g)?.map((sentence) => sentence.trim()) ?? [text.trim()];
}

export function lowerFirst(text: string): string {
	return text.charAt(0).toLowerCase() + text.slice(1);
}

export function stripEnd(text: string): string {
	return text.trim().replace(/[.!?]+$/, '');
}

/** Rewrites a third-person template sketch ("A person ... They ...") in the first person, roughly. */
export function firstPerson(text: string): string {
	return text
		.replace(/\bThe person asking is\b/g, 'I am')
		// "Someone living in the city wants to cook" -> "As someone living in the city, I want to cook":
		// the subject's own clause is kept whole and the main verb agrees with "I".
		.replace(new RegExp(`\\b(?:Someone|A person|The person) ((?:who \\w+|\\w+ing|with)\\b[^.,;]*?) (${MAIN_VERB})\\b`, 'g'), (_whole, clause: string, verb: string) => `As someone ${clause}, I ${agreeWord(verb)}`)
		// "someone's former teacher" is "my former teacher", never "I's".
		.replace(/\b(?:Someone|A person|The person)'s\b/g, 'My')
		.replace(/\b(?:someone|a person)'s\b/g, 'my')
		// "which the person has never attended": the person is the subject there, so "I have".
		// After a joiner the next word is the person's verb, known or not ("yet the person suspects" is "yet I suspect", never "yet me suspects").
		.replace(new RegExp(`\\b(which|that|who|whom|where|when|because|and|but|yet|while|although|after|before|if|until|so) (?:the person|someone|they) ((?:also|now|still|often|already|never|always|then|really|only|even|usually) )?(${MAIN_VERB}|\\w+ed|\\w+s)\\b`, 'g'), (_whole, joiner: string, adverb: string | undefined, verb: string) => `${joiner} I ${adverb ?? ''}${agreeWord(verb)}`)
		.replace(/\b(?:A|The) (?:person|user|young adult|parent|family member)(?:'s) (?:the|a|an) /g, 'My ')
		.replace(/\b(?:A|The) (?:person|user|young adult|parent|family member)(?:'s)\b/g, 'My')
		.replace(/\b(?:a|the) (?:person|user)(?:'s)\b/g, 'my')
		.replace(new RegExp(`\\b(?:the|a) person (${MAIN_VERB})\\b`, 'g'), (_whole, verb: string) => `I ${agreeWord(verb)}`)
		.replace(/\b(?:A|The) person\b/g, 'I')
		.replace(/\b(?:a|the) person\b/g, 'me')
		.replace(/\bSomeone\b/g, 'I')
		// Lower-case "someone" is another person ("for someone who died") unless a verb follows it.
		.replace(/\bone of them\b/g, 'one of us')
		.replace(/\bsomeone (will|is|has)\b/g, (_whole, verb: string) => `I ${agreeWord(verb)}`)
		.replace(/\bThey are\b/g, 'I am')
		.replace(/\bthey are\b/g, 'I am')
		.replace(/\bThey have\b/g, 'I have')
		.replace(/\bthey have\b/g, 'I have')
		.replace(/\bThey\b/g, 'I')
		.replace(/\bthey\b/g, 'I')
		.replace(/\btheir\b/g, 'my')
		.replace(/\bTheir\b/g, 'My')
		.replace(/\bthemselves\b/g, 'myself')
		.replace(/\bthem\b/g, 'me')
		.replace(/\bI (\w+?)(e?s)\b/g, (whole, stem: string, ending: string) => `I ${agree(stem, ending)}`)
		.replace(/[^.!?]+[.!?]*/g, coordinatedVerbs);
}

/** Third-person verbs and modals that end a subject's clause ("Someone living in X wants ..."). */
const MAIN_VERB = '(?:has|is|was|wants|needs|keeps|finds|will|would|learns|must|can|cannot|should|gets|hopes|plans|asks|feels|worries|knows|expects|faces|lives|works|receives|received|attended|joined|ordered|borrowed|vowed|does|did|believes|thinks|prefers|fears|wishes|feels)';

/** "has" -> "have", "wants" -> "want"; past forms and modals stay. */
function agreeWord(verb: string): string {
	const match = /^(\w+?)(e?s)$/.exec(verb);
	if (!match || /(?:ed|ss)$/.test(verb)) return verb;
	return agree(match[1]!, match[2]!);
}

/** Words after which "and <verb>s" is a verb taking an object or clause, not a plural noun ending a list. */
const OBJECT_START = '(?:that|to|a|an|the|several|some|it|my|our|this|these|what|how|whether|if|about|on|for|with)';

/** In a sentence whose subject is I, "I follow X and suspects that" -> "... and suspect that". */
function coordinatedVerbs(sentence: string): string {
	if (!/^\s*(?:I\b|As someone [^,]*, I\b)/.test(sentence)) return sentence;
	return sentence.replace(/\band (is|has|does)\b/g, (_whole, verb: string) => `and ${IRREGULAR[verb]}`).replace(new RegExp(`\\band (\\w+?)(e?s) (?=${OBJECT_START}\\b)`, 'g'), (_whole, stem: string, ending: string) => `and ${agree(stem, ending)} `);
}

const IRREGULAR: Readonly<Record<string, string>> = {is: 'am', has: 'have', does: 'do', was: 'was', always: 'always', perhaps: 'perhaps', sometimes: 'sometimes', thus: 'thus', less: 'less', unless: 'unless'};

/** The first-person form of a third-person verb: suspects -> suspect, worries -> worry, wishes -> wish. */
function agree(stem: string, ending: string): string {
	const word = stem + ending;
	if (IRREGULAR[word]) return IRREGULAR[word];
	if (word.endsWith('ss') || stem.length < 2) return word;
	if (ending === 'es' && /(?:sh|ch|ss|x|z|o)$/.test(stem)) return stem;
	if (ending === 'es' && stem.endsWith('i')) return `${stem.slice(0, -1)}y`;
	return ending === 'es' ? `${stem}e` : stem;
}

/** "They ask for tactful wording to ..." -> "Could you help me with tactful wording to ...?" */
export function askAsRequest(ask: string): string {
	const body = stripEnd(ask)
		.replace(/^(?:They|The person|Someone) (?:asks?|wants?|needs?) (?:the assistant )?(?:for |to )?/i, '')
		.replace(/^(?:They|The person) would like /i, '');
	return `Could you help me with ${lowerFirst(firstPerson(body))}?`;
}

const STOPWORDS = new Set('a an the and or but of to in on at for with by from as is are was were be been it its this that these those their there they them he she his her you your i me my we our not no do does did can could should would will may might must have has had if then than so such into about over under very more most any some all each other also just only own same too who what when where which how'.split(' '));

export function contentWords(text: string): string[] {
	return (text.toLowerCase().match(/[\p{L}\p{N}']+/gu) ?? []).filter((word) => word.length > 2 && !STOPWORDS.has(word));
}

/** True when `text` shares a run of three content words with `phrase` (used to spot tripwire hits). */
export function sharesTrigram(text: string, phrase: string): boolean {
	const a = contentWords(text);
	const b = contentWords(phrase);
	const grams = new Set<string>();
	for (let i = 0; i + 3 <= b.length; i++) grams.add(b.slice(i, i + 3).join(' '));
	for (let i = 0; i + 3 <= a.length; i++) if (grams.has(a.slice(i, i + 3).join(' '))) return true;
	return false;
}
