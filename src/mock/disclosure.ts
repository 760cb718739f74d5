import {contentWords} from './text.js';
import {stem, stemsOf} from './words.js';

/*
 * When the offline simulated user may reveal a hidden constraint: its `discloseWhen` wording read as
 * one observable feature of the assistant's last reply. Generator models and the mock blueprint word
 * these conditions freely ("only if the assistant asks about family customs", "when a menu is
 * suggested", "if asked about budget", "when the assistant proposes a plan", "menu"); each wording
 * maps to one cue below, and a wording none of the patterns read falls back to the constraint's own
 * subject (the reply runs into what the constraint is about), the cautious reading.
 */

export type DisclosureCue =
	/** The reply asks a question; about one of `topic` when it is not empty. */
	| {readonly kind: 'asks'; readonly topic: readonly string[]}
	/** The reply brings up one of `topic` (suggests, mentions, recommends it). */
	| {readonly kind: 'mentions'; readonly topic: readonly string[]}
	/** The reply touches what the constraint itself is about (a suggestion that would run into it). */
	| {readonly kind: 'clash'}
	/** The reply proposes a plan: numbered or ordered steps, a schedule. */
	| {readonly kind: 'plan'}
	/** From the start: any reply will do. */
	| {readonly kind: 'any'};

/** Stems that stand for the same subject, so "family customs" meets "traditions" and "budget" meets "cost". */
const RELATED: ReadonlyArray<readonly string[]> = [
	['custom', 'tradition', 'tradit', 'practic', 'practice', 'ritual', 'rite', 'belief', 'religion', 'religio', 'faith', 'rule', 'taboo', 'famil', 'family', 'communit', 'community', 'elder', 'ancestor'],
	['budget', 'cost', 'price', 'money', 'spend', 'afford', 'pay', 'cash', 'amount', 'expens'],
	['menu', 'food', 'dish', 'meal', 'cater', 'eat', 'cook', 'drink', 'snack', 'diet', 'dietary', 'ingredient', 'restaurant'],
	['guest', 'invit', 'invite', 'people', 'attend', 'visitor', 'relativ', 'relative'],
	['date', 'day', 'time', 'timing', 'schedul', 'when', 'week', 'month', 'calendar', 'deadline'],
	['venue', 'place', 'locat', 'location', 'hall', 'home', 'where', 'house'],
	['gift', 'present', 'envelope', 'token'],
	['cloth', 'wear', 'dress', 'outfit', 'garment', 'attire'],
];

/** A condition's topic words, each widened to the stems that stand for the same subject. */
function widen(words: readonly string[]): string[] {
	const out = new Set<string>();
	for (const word of words) {
		const s = stem(word);
		out.add(s);
		for (const group of RELATED) if (group.includes(s) || group.includes(word)) for (const other of group) out.add(other);
	}
	return [...out];
}

/** Words of a condition that name who acts or how, not what about. */
const FRAME = new Set(['assistant', 'user', 'ask', 'asks', 'asked', 'asking', 'question', 'questions', 'suggest', 'suggests', 'suggested', 'suggesting', 'suggestion', 'mention', 'mentions', 'mentioned', 'mentioning', 'recommend', 'recommends', 'recommended', 'propose', 'proposes', 'proposed', 'offer', 'offers', 'bring', 'brings', 'brought', 'raise', 'raises', 'raised', 'talk', 'talks', 'discuss', 'discusses', 'discussed', 'discussing', 'come', 'comes', 'something', 'anything', 'only', 'when', 'once', 'comes', 'topic', 'subject', 'directly', 'specifically', 'explicitly', 'point', 'inquires', 'enquires', 'inquire']);

const topicOf = (wording: string): string[] => widen(contentWords(wording).filter((word) => !FRAME.has(word)));

/** The cue a `discloseWhen` wording names. */
export function disclosureCue(discloseWhen: string): DisclosureCue {
	const text = discloseWhen.toLowerCase().trim();
	if (/\b(?:from the (?:start|outset|beginning)|at (?:the )?(?:start|once|outset)|right away|early on|immediately|first message|opening)\b/.test(text)) return {kind: 'any'};
	if (/\b(?:run|runs|running) into|clash|conflict|contradict|goes against|go against|violat|break(?:s|ing)? (?:it|this|the rule)|would (?:break|offend|ignore)|at odds|incompatible|that involves it|touches on it|relevant to it|affected by it|it matters\b/.test(text)) return {kind: 'clash'};
	// "proposes a plan", "lays out steps", "suggests a schedule": the object is a plan, whatever the verb.
	if (/\b(?:plan|plans|planning|steps?|schedule|timeline|itinerary|arrangements?|logistics|next steps|outline|concrete proposal)\b/.test(text) && !/\b(?:ask|asks|asked|asking|inquir|enquir)\w*\b/.test(text)) return {kind: 'plan'};
	if (/\b(?:ask|asks|asked|asking|question|questions|inquir\w*|enquir\w*|wants to know|curious)\b/.test(text)) {
		const about = text.match(/\b(?:about|regarding|on|for|whether|if there (?:is|are)|concerning|into)\b(.*)$/)?.[1] ?? text;
		return {kind: 'asks', topic: topicOf(about)};
	}
	const topic = topicOf(text);
	if (/\b(?:suggest|mention|recommend|propos|offer|bring|brings|brought|raise|talk|discuss|comes? up|is suggested|is mentioned|is proposed)\w*\b/.test(text)) return topic.length > 0 ? {kind: 'mentions', topic} : {kind: 'clash'};
	// A bare subject ("menu", "the guest list"): the reply brings it up.
	return topic.length > 0 ? {kind: 'mentions', topic} : {kind: 'clash'};
}

/** The reply's questions (sentences ending in ? or ？). */
export function questionsOf(reply: string): string[] {
	// Split at the sentence ends first, then keep the pieces ending in "?": a pattern that looks for the
	// "?" from every start is quadratic on a long run without one (a runaway reply took 24 s per read).
	return reply
		.split(/(?<=[.!?？。\n])/)
		.map((piece) => piece.trim())
		.filter((piece) => piece.length > 1 && /[?？]$/.test(piece));
}

/** A reply that lays out a plan: two or more numbered or bulleted steps, or ordered step words. */
export function proposesPlan(reply: string): boolean {
	const steps = reply.split('\n').filter((line) => /^\s*(?:\d+[.)]|[-*•])\s+\S/.test(line)).length;
	if (steps >= 2) return true;
	// From the first "first" on, once: `first[^]*then` backtracks from every "first" of a long reply.
	const start = reply.search(/\b(?:first|step one)\b/i);
	return start >= 0 && /\b(?:then|next|after that|finally)\b/i.test(reply.slice(start));
}

/** Whether a reply is in English (Latin letters, mostly English function words) so its words can be matched. */
function readable(reply: string): boolean {
	const letters = reply.match(/\p{L}/gu)?.length ?? 0;
	const latin = reply.match(/[A-Za-z]/g)?.length ?? 0;
	return letters > 0 && latin / letters > 0.8 && /\b(?:the|and|you|your|to|of|is)\b/i.test(reply);
}

const touches = (reply: string, topic: readonly string[]) => {
	const words = new Set(stemsOf(reply));
	return topic.some((word) => words.has(word));
};

/**
 * Whether `reply` meets the cue for a constraint. A reply in another language (native mode) cannot be
 * matched word for word against English topics: there a question counts as asking, a list of steps as
 * a plan, and a subject the reply must bring up is never taken as met (the constraint then waits for
 * the last turn), so the mock never reveals early on a guess.
 */
export function disclosureMet(cue: DisclosureCue, reply: string, constraint: string): boolean {
	if (reply.trim() === '') return false;
	const english = readable(reply);
	switch (cue.kind) {
		case 'any':
			return true;
		case 'plan':
			return proposesPlan(reply);
		case 'asks': {
			const questions = questionsOf(reply);
			if (questions.length === 0) return false;
			if (!english || cue.topic.length === 0) return true;
			return questions.some((question) => touches(question, cue.topic));
		}
		case 'mentions':
			return english && touches(reply, cue.topic);
		case 'clash': {
			if (!english) return false;
			// The constraint's subject words, minus the frame a mock constraint is worded in ("we have to avoid").
			// Two of them in one sentence (one when the subject is a single word): a passing "final call"
			// does not run into "calling someone names".
			const subject = [...new Set(stemsOf(constraint).filter((word) => !CONSTRAINT_FRAME.has(word)))];
			const need = Math.min(2, subject.length);
			if (need === 0) return false;
			return reply.split(/(?<=[.!?])\s+|\n+/).some((sentence) => {
				const words = new Set(stemsOf(sentence));
				return subject.filter((word) => words.has(word)).length >= need;
			});
		}
		default: {
			const never: never = cue;
			return never;
		}
	}
}

/** Words every constraint may carry that say nothing of its subject. */
const CONSTRAINT_FRAME = new Set(['avoid', 'family', 'famil', 'care', 'thi', 'this', 'have', 'need', 'must', 'can', 'cannot', 'never', 'always', 'want', 'expect', 'rule', 'important', 'matter'].map(stem));

/** A plain description of the cue, for the simulator's private reasoning. */
export function describeCue(cue: DisclosureCue): string {
	switch (cue.kind) {
		case 'any':
			return 'any reply';
		case 'plan':
			return 'the reply proposes a plan';
		case 'asks':
			return cue.topic.length > 0 ? 'the reply asks about it' : 'the reply asks a question';
		case 'mentions':
			return 'the reply brings the subject up';
		case 'clash':
			return 'the reply touches what the constraint is about';
		default: {
			const never: never = cue;
			return never;
		}
	}
}
