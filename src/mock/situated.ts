import type {Chronotope, ExtractedNorm, GroundingScore, NormCategory, NormMatchScore, OutcomeScore, ReasonerAnswer, ResponseAdvice, RevisionPlan, RewardScore, SituatedDraft, Verification} from '../domain/situated.js';
import type {AdviceInput, ChronotopeMock, ExtractMock, GradeMock, PolicyMock, QuestionMock, ReasonerMock, RewardMock, ReviserMock, VerifierMock} from '../situated/agents.js';
import type {ItemContext} from '../situated/agents.js';
import {forkCategory} from '../situated/normSources.js';
import {fnv1a} from '../util/hash.js';
import {contentWords, sharesTrigram} from './text.js';

/*
 * Offline CRISP agents. They make the loop's plumbing visible without a model: every router path is
 * taken on some norms (keep at once, revise a leaking question, rerun a thin answer, discard after the
 * last round), decided by a hash of the norm id so runs repeat exactly. Texts are marked [mock].
 *
 * The device: the question writer plants a "cue phrase" made of two words of the norm plus "matter";
 * a reasoner that quotes the cue has found the norm (N=1), a scenario that quotes the norm's own words
 * leaks it (L=1), and graders look for the cue in answers and reasoning.
 */

type Frame = Omit<Chronotope, 'difference'>;

const FRAMES: readonly Frame[] = [
	{time: 'a weekday evening meal', place: 'the family home, private', participants: 'three generations of one family; the eldest is the host', activity: 'dinner after work', frame: 'relaxed, but the elders set the tone and notice small gestures', tension: 'doing what is convenient for oneself without waiting for the elders', activation: 'the eldest is present and the meal has just begun'},
	{time: 'working hours, a scheduled meeting', place: 'an office meeting room, semi-public', participants: 'a new employee, a manager and two senior colleagues', activity: 'a project kickoff', frame: 'formal; small gestures are read as signs of respect', tension: 'acting as one would among peers, in front of seniors', activation: 'a senior colleague is watching how the newcomer behaves'},
	{time: 'a public holiday morning', place: "a neighbour's house during an open-house visit", participants: 'neighbours who know each other slightly, and their children', activity: 'a festive visit with food', frame: 'warm and semi-formal; hospitality is watched', tension: 'treating the visit as casually as a visit to a close friend', activation: 'the host offers something and waits for the response'},
	{time: 'an unplanned, rushed moment', place: 'a busy market stall, public', participants: 'a shopper, the stall owner and other customers', activity: 'paying and leaving quickly', frame: 'brisk; manners still matter to regulars', tension: 'cutting a corner because everyone is in a hurry', activation: 'the stall owner hands something over in front of others'},
	{time: 'a weekend afternoon', place: "a video call from a friend's home, online", participants: "a young adult, a friend and the friend's parents", activity: 'planning a shared trip', frame: 'casual with peers, polite with the parents', tension: 'speaking to the parents as one speaks to the friend', activation: 'the parents join the call unexpectedly'},
];

const hashOf = (text: string) => fnv1a(text);

/** Two non-adjacent words of the norm and "matter": about the norm, but never three of its words in a row. */
export function cuePhrase(normText: string): string {
	const words = contentWords(normText).filter((word) => word.length > 3);
	// The first word of a taboo-derived norm is always "avoid"; the second and fourth say what it is about.
	const [a = 'visit', b = 'gift'] = [words[1], words[3] ?? words[2]];
	return `${a} ${b} matter`;
}

/** Where the scenario's cue sentence sits: the sentence quoting the cue phrase. */
const cueSentence = (cue: string) => `Nobody has mentioned the ${cue} yet, but the others are clearly waiting to see how it is handled.`;

function draftFor(item: ItemContext, leak: boolean): SituatedDraft {
	const cue = cuePhrase(item.norm.text);
	const c = item.chronotope;
	const scenario = [
		`[mock] Lin is taking part in ${c.activity}, at ${c.place}, during ${c.time}.`,
		`Present are ${c.participants}.`,
		`The mood is ${c.frame}.`,
		cueSentence(cue),
		leak ? `Everyone knows the rule here: ${item.norm.text}` : 'Lin wants to get this right without making a fuss.',
	].join(' ');
	return {
		scenario,
		question: 'What should Lin do next?',
		hiddenExpectedAnswer: `[mock] Lin should handle the ${cue} the way the people present expect, quietly and without drawing attention to it.`,
		notes: leak ? '[mock] The last sentence states the norm (a leak the verifier should catch).' : `[mock] The cue sentence about the ${cue} carries the norm.`,
	};
}

/**
 * Whether a norm's first draft leaks (then one revision fixes it), or every draft leaks (discarded
 * after the last round). Thin first answers, which take the rerun path, depend on the scenario.
 */
const pathOf = (normId: string) => (hashOf(normId) % 8 === 7 ? 'always-leak' : hashOf(normId) % 2 === 1 ? 'leak-once' : 'clean');

export function mockChronotope(input: unknown): Chronotope {
	const {norm, index} = input as ChronotopeMock;
	const frame = FRAMES[(hashOf(norm.id) + index) % FRAMES.length]!;
	return {...frame, difference: index === 0 ? '[mock] The first setting for this norm.' : `[mock] A different time, place and set of relationships from the ${index} setting(s) before it.`};
}

/** Offline norm extraction: the keyed answer restated as a sentence about the culture, marked [mock]. */
export function mockExtract(input: unknown): ExtractedNorm {
	const {row} = input as ExtractMock;
	const source = row.statement ?? `${row.question ?? ''} ${row.answer ?? ''}`;
	if (/\[no norm\]/i.test(source)) return {statesNorm: false, norm: '[mock] The row states a fact, not an expectation about behaviour.', type: 'prescriptive', category: 'other'};
	const text = row.statement !== null ? `[mock] In ${row.culture}, ${lowerFirst(row.statement.replace(/[.!?\s]+$/, ''))}.` : `[mock] In ${row.culture}, on "${(row.question ?? '').replace(/[?\s]+$/, '')}", the expected answer is: ${(row.answer ?? '').replace(/[.!?\s]+$/, '')}.`;
	const avoid = /\b(not|never|avoid|unusual|uncommon|inappropriate|rude|impolite)\b/i.test(row.question ?? row.statement ?? '');
	return {statesNorm: true, norm: text, type: avoid ? 'proscriptive' : 'prescriptive', category: forkCategory(row.hint) ?? categoryOf(source)};
}

const CATEGORY_WORDS: ReadonlyArray<[NormCategory, RegExp]> = [
	['tipping', /\btip/i],
	['eating_utensils', /\b(chopsticks?|fork|knife|spoon|utensils?|hands?)\b/i],
	['gift_giving', /\bgifts?\b/i],
	['greetings', /\b(greet\w*|bow\w*|handshakes?)\b/i],
	['dining_etiquette', /\b(eat\w*|meals?|dinner|lunch|restaurants?|food|drinks?|soup|rice|table)\b/i],
	['workplace', /\b(office|boss|colleagues?|work)\b/i],
];
const categoryOf = (text: string): NormCategory => CATEGORY_WORDS.find(([, pattern]) => pattern.test(text))?.[0] ?? 'other';
const lowerFirst = (text: string) => (/^[A-Z][a-z]/.test(text) ? text[0]!.toLowerCase() + text.slice(1) : text);

export function mockQuestion(input: unknown): SituatedDraft {
	const {item} = input as QuestionMock;
	const path = pathOf(item.norm.id);
	return draftFor(item, path === 'leak-once' || path === 'always-leak');
}

export function mockReasoner(input: unknown): ReasonerAnswer {
	const {question, guidance} = input as ReasonerMock;
	const cue = /Nobody has mentioned the (.+?) yet/.exec(question.scenario)?.[1];
	const evidence = cue ? cueSentence(cue) : 'the people present';
	// A first attempt on some scenarios is thin: a vague reason and evidence that is not in the text.
	const thin = guidance === null && /\[mock\]/.test(question.scenario) && hashOf(question.scenario) % 3 === 0;
	if (thin) return {action: '[mock] Be polite.', reason: 'It seems right.', inferredNorms: [{norm: `[mock] Handle the ${cue ?? 'situation'} with care.`, evidence: 'general politeness'}]};
	return {
		action: `[mock] Handle the ${cue ?? 'situation'} the way the others expect, without drawing attention to it.`,
		reason: `[mock] The others are waiting to see how the ${cue ?? 'situation'} is handled, which shows it carries social meaning in this setting, so doing it the expected way keeps the occasion smooth.`,
		inferredNorms: [{norm: `[mock] People here handle the ${cue ?? 'situation'} the way the others expect.`, evidence}],
	};
}

export function mockVerifier(input: unknown): Verification {
	const {item, draft, answer} = input as VerifierMock;
	const leak = sharesTrigram(`${draft.scenario} ${draft.question}`, item.norm.text);
	const inferred = answer.inferredNorms.map((n) => n.norm).join(' ');
	const match = sharesTrigram(inferred, draft.hiddenExpectedAnswer);
	const evidence = answer.inferredNorms.some((n) => draft.scenario.includes(n.evidence));
	const reasoned = contentWords(answer.reason).length >= 6;
	const check = (ok: boolean, yes: string, no: string) => ({score: ok ? 1 : 0, reason: `[mock] ${ok ? yes : no}`});
	return {
		actionCorrect: check(match, 'The action follows the cue the expected answer relies on.', 'The action misses what the expected answer relies on.'),
		evidenceSupport: check(evidence, 'The evidence quotes the scenario.', 'The evidence is not in the scenario.'),
		normMatch: check(match, 'The inferred norm matches the target.', 'The inferred norm is a different one.'),
		reasonSupportsAction: check(reasoned, 'The reason explains the action.', 'The reason is too thin to support the action.'),
		normLeakage: check(leak, 'The scenario repeats the norm in its own words.', 'The norm has to be inferred.'),
	};
}

export function mockAdvisor(input: unknown): ResponseAdvice {
	const {diagnosis} = input as AdviceInput;
	return {diagnosis: `[mock] ${diagnosis}`, guidance: '[mock] Quote the exact detail of the scenario that shows what the others expect, and explain how it leads to the action.'};
}

export function mockPlanner(input: unknown): RevisionPlan {
	const {diagnosis} = input as AdviceInput;
	return {diagnosis: `[mock] ${diagnosis}`, goal: '[mock] The norm must be inferable from the situation without being stated.', guidance: '[mock] Remove the sentence that states the rule; keep the cue about what the others are waiting for.'};
}

export function mockReviser(input: unknown): SituatedDraft {
	const {item} = input as ReviserMock;
	return draftFor(item, pathOf(item.norm.id) === 'always-leak');
}

/**
 * Answers of four kinds by sample: one that acts on the cue, a generic one, a plausible opposite (it
 * quotes the scene but skips what the others expect, so a reward model that counts scene details can
 * be fooled by it), and one that breaks the answer contract.
 */
export function mockPolicy(input: unknown): string {
	const {question, sample} = input as PolicyMock;
	const cue = /Nobody has mentioned the (.+?) yet/.exec(question.scenario)?.[1] ?? 'situation';
	switch ((sample + hashOf(question.scenario)) % 4) {
		case 0:
			return JSON.stringify({answer: `[mock] Handle the ${cue} the way the others expect, quietly.`, reasoning: `[mock] The others are waiting to see how the ${cue} is handled; people here handle the ${cue} the way the others expect.`});
		case 1:
			return JSON.stringify({answer: '[mock] Be polite and check local customs before doing anything.', reasoning: '[mock] Respect for others is always important.'});
		case 2:
			return JSON.stringify({answer: `[mock] Lin can skip the ${cue.split(' ')[0]} this once and move on.`, reasoning: '[mock] Getting things done quickly keeps everyone comfortable.'});
		default:
			return '[mock] I would just be polite and see what happens.';
	}
}

export function mockOutcome(input: unknown): OutcomeScore {
	const {draft, answer} = input as GradeMock;
	if (sharesTrigram(answer, draft.hiddenExpectedAnswer)) return {score: hashOf(answer) % 4 === 0 ? 4 : 5, evidence: answer.slice(0, 80), reason: '[mock] The answer acts on the cue the reference answer relies on.'};
	if (/check|ask/i.test(answer)) return {score: 3, evidence: answer.slice(0, 80), reason: '[mock] Generic advice to check customs leaves the decisive point open.'};
	return {score: 2, evidence: answer.slice(0, 80), reason: '[mock] The answer does not address the decisive point.'};
}

export function mockNormMatch(input: unknown): NormMatchScore {
	const {draft, reasoning} = input as GradeMock;
	if (sharesTrigram(reasoning, draft.hiddenExpectedAnswer)) return {score: 2, reason: '[mock] The reasoning names what the others expect here.'};
	if (/custom|expect|respect/i.test(reasoning)) return {score: 1, reason: '[mock] The reasoning gestures at a generic value only.'};
	return {score: 0, reason: '[mock] The reasoning does not recover the norm.'};
}

export function mockGrounding(input: unknown): GroundingScore {
	const {draft, reasoning} = input as GradeMock;
	if (sharesTrigram(reasoning, draft.hiddenExpectedAnswer)) return {reason: '[mock] The reasoning rests on what the others expect here.', grounded: 0.9};
	if (/custom|expect|respect/i.test(reasoning)) return {reason: '[mock] Only a generic value.', grounded: 0.35};
	return {reason: '[mock] Nothing of the norm.', grounded: 0.05};
}

/**
 * The offline reward model. It reads only what a reward model gets (culture, scenario, question,
 * answer) and rewards answers that act on details of the scenario over generic advice, with a little
 * hash noise so it is a heuristic, not a copy of the grader: best-of-N by it lands between a random
 * pick and the oracle ceiling.
 */
export function mockReward(input: unknown): RewardScore {
	const {input: item} = input as RewardMock;
	const scenario = new Set(contentWords(`${item.scenario} ${item.question}`));
	const overlap = new Set(contentWords(item.answer).filter((word) => scenario.has(word))).size;
	const generic = /\b(check|ask around|local customs|be polite|see what happens)\b/i.test(item.answer) ? 3 : 0;
	const noise = hashOf(`${item.scenario}|${item.answer}`) % 5;
	return {assessment: `[mock] ${overlap} detail(s) of the scenario used${generic ? '; generic advice' : ''}.`, score: Math.max(1, Math.min(10, 2 + overlap + noise - generic))};
}
