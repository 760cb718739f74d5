import type {Chronotope, NormMatchScore, OutcomeScore, ReasonerAnswer, ResponseAdvice, RevisionPlan, SituatedDraft, Verification} from '../domain/situated.js';
import type {AdviceInput, ChronotopeMock, GradeMock, PolicyMock, QuestionMock, ReasonerMock, ReviserMock, VerifierMock} from '../situated/agents.js';
import type {ItemContext} from '../situated/agents.js';
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

const FRAMES: readonly Chronotope[] = [
	{time: 'a weekday evening meal', place: 'the family home, private', participants: 'three generations of one family; the eldest is the host', activity: 'dinner after work', expectations: 'relaxed, but the elders set the tone'},
	{time: 'working hours, a scheduled meeting', place: 'an office meeting room, semi-public', participants: 'a new employee, a manager and two senior colleagues', activity: 'a project kickoff', expectations: 'formal; small gestures are read as signs of respect'},
	{time: 'a public holiday morning', place: "a neighbour's house during an open-house visit", participants: 'neighbours who know each other slightly, and their children', activity: 'a festive visit with food', expectations: 'warm and semi-formal; hospitality is watched'},
	{time: 'an unplanned, rushed moment', place: 'a busy market stall, public', participants: 'a shopper, the stall owner and other customers', activity: 'paying and leaving quickly', expectations: 'brisk; manners still matter to regulars'},
	{time: 'a weekend afternoon', place: "a video call from a friend's home, online", participants: "a young adult, a friend and the friend's parents", activity: 'planning a shared trip', expectations: 'casual with peers, polite with the parents'},
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
		`The mood is ${c.expectations}.`,
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
	return FRAMES[(hashOf(norm.id) + index) % FRAMES.length]!;
}

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

/** Answers of three kinds by sample: one that uses the cue, a generic one, and one that breaks the contract. */
export function mockPolicy(input: unknown): string {
	const {question, sample} = input as PolicyMock;
	const cue = /Nobody has mentioned the (.+?) yet/.exec(question.scenario)?.[1] ?? 'situation';
	switch ((sample + hashOf(question.scenario)) % 3) {
		case 0:
			return JSON.stringify({answer: `[mock] Handle the ${cue} the way the others expect, quietly.`, reasoning: `[mock] The others are waiting to see how the ${cue} is handled; people here handle the ${cue} the way the others expect.`});
		case 1:
			return JSON.stringify({answer: '[mock] Be polite and check local customs before doing anything.', reasoning: '[mock] Respect for others is always important.'});
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
