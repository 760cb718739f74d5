import type {AssistantMockInput} from '../episode/assistant.js';
import type {SimulatorMockInput, SimulatorTurn} from '../episode/simulator.js';
import type {Turn} from '../domain/session.js';
import type {LanguageId} from '../domain/universe.js';
import {fnv1a} from '../util/hash.js';
import {describeCue, disclosureCue, disclosureMet, proposesPlan} from './disclosure.js';
import {phrases} from './phrasebook.js';
import {forbiddenThing, runsInto} from './rubric.js';
import {contentWords, lowerFirst, pick, sentences, stripEnd} from './text.js';
import {stemsOf} from './words.js';

/*
 * The offline simulated user keeps its secrets: a hidden constraint comes out only when the
 * assistant's last reply meets its `discloseWhen` condition (mock/disclosure.ts reads the wording), or
 * on the last message the user has, as the simulator's rules allow; its public messages are built from
 * public parts (the opener's slot values, the assistant's own words) and never from the wording of the
 * private state or the plan. Which constraints are out is kept in the private reasoning ("discloses
 * H2"), which the assistant never sees.
 */

/** The marker the private reasoning carries for a disclosed constraint (H1 is the first hidden constraint). */
const DISCLOSES = /\bdiscloses (H\d+)\b/g;

export function disclosedIds(turns: readonly Turn[]): Set<string> {
	const ids = new Set<string>();
	for (const turn of turns) if (turn.role === 'user' && turn.assessment) for (const match of turn.assessment.reasoning.matchAll(DISCLOSES)) ids.add(match[1]!);
	return ids;
}

type Reveal = {readonly id: string; readonly constraint: string; readonly why: string; readonly asked: boolean};

/** The one constraint to reveal now, if any: the first whose condition the reply meets; on the last message, the first still held back. */
function revealNow(sim: SimulatorMockInput, lastReply: string, lastChance: boolean): Reveal | undefined {
	const out = disclosedIds(sim.turns);
	const pending = sim.blueprint.private.hiddenConstraints.map((item, index) => ({...item, id: `H${index + 1}`})).filter((item) => !out.has(item.id));
	for (const item of pending) {
		const cue = disclosureCue(item.discloseWhen);
		if (disclosureMet(cue, lastReply, item.constraint)) return {id: item.id, constraint: item.constraint, why: `its condition is met (${item.discloseWhen}: ${describeCue(cue)})`, asked: cue.kind === 'asks'};
	}
	// The plan's own schedule decides which one the last message carries: the nearest phase's.
	if (lastChance && pending.length > 0) {
		const scheduled = sim.shards.slice(sim.shardIndex).flatMap((shard) => shard.disclose);
		const item = pending.find((candidate) => scheduled.includes(candidate.constraint)) ?? pending[0]!;
		return {id: item.id, constraint: item.constraint, why: 'this is the last message I have', asked: false};
	}
	return undefined;
}

/** Whether the last reply does what the phase asks, read from observable features. */
function meetsPhase(sim: SimulatorMockInput, lastReply: string): {ok: boolean; why: string} {
	const shard = sim.shards[sim.shardIndex]!;
	const words = contentWords(lastReply).length;
	const native = sim.language === 'native';
	const concrete = native ? lastReply.trim().length > 20 : proposesPlan(lastReply) || words >= 25;
	if (!concrete) return {ok: false, why: 'the reply is too thin to act on'};
	// A phase that carries a constraint is done once the reply takes it up (when it is out); a reply in
	// another language cannot be matched word for word, so there the concrete reply counts.
	const carried = shard.disclose.find((text) => sim.blueprint.private.hiddenConstraints.some((item, index) => item.constraint === text && disclosedIds(sim.turns).has(`H${index + 1}`)));
	if (carried && !native) {
		const subject = new Set(stemsOf(carried));
		if (!stemsOf(lastReply).some((word) => subject.has(word))) return {ok: false, why: 'the reply does not take up the constraint I mentioned'};
	}
	// The phase's own constraint has not come out (its condition was never met): nothing to adapt to yet.
	const waiting = shard.disclose.some((text) => sim.blueprint.private.hiddenConstraints.some((item, index) => item.constraint === text && !disclosedIds(sim.turns).has(`H${index + 1}`)));
	if (waiting) return {ok: true, why: 'the phase\'s constraint has not come up (its condition was not met), so the concrete reply is enough to move on'};
	return {ok: true, why: `its success condition: ${stripEnd(shard.successCondition)}`};
}

/** Something of the next part to ask about, from public parts only: a slot value the opener already carries. */
function nextTopic(sim: SimulatorMockInput): string | undefined {
	const next = sim.shards[sim.shardIndex + 1];
	const opener = sim.turns.find((turn) => turn.role === 'user')?.content.toLowerCase() ?? '';
	return next?.signifiers.find((value) => value.length > 2 && opener.includes(value.toLowerCase()));
}

/** Mid-sentence form of a slot value: "The aunt" -> "the aunt", but "Mr Raj" and "Diwali" stay as they are. */
function sentenceCase(value: string): string {
	return /^(?:The|A|An|My|Our|His|Her|Their|Some|One|Two|Three|About|Around|Next|Last|This)\b/.test(value) ? lowerFirst(value) : value;
}

/** "the usual festive dishes" said back by the assistant: the content words of a tripwire the reply repeats, in the reply's own order. */
function echoOf(reply: string, phrase: string): string {
	const wanted = new Set(contentWords(phrase));
	return contentWords(reply).filter((word) => wanted.has(word)).slice(0, 4).join(' ');
}

export function mockSimulator(input: unknown): SimulatorTurn {
	const sim = input as SimulatorMockInput;
	const shard = sim.shards[sim.shardIndex]!;
	const next = sim.shards[sim.shardIndex + 1];
	const lastReply = sim.turns.filter((turn) => turn.role === 'assistant').at(-1)?.content ?? '';
	const native = sim.language === 'native' ? phrases(sim.nativeLanguage as LanguageId) : null;
	const t = sim.turns.filter((turn) => turn.role === 'user').length;
	const key = `${sim.seedId}#${t}`;
	const hit = sim.blueprint.oracle.tripwires.find((tripwire) => runsInto(lastReply, tripwire.description) !== null);
	const pushedBack = sim.turns.some((turn) => turn.assessment?.reasoning.startsWith('The reply runs into'));
	if (hit) {
		if (pushedBack) return {reasoning: `The reply runs into a tripwire again (${hit.id}) after I objected.`, decision: 'END_FAILED', message: native?.failed ?? 'I don\'t think this will work for my family. Never mind, thanks anyway.'};
		return {reasoning: `The reply runs into a tripwire (${hit.id}); the phase is not done.`, decision: 'CONTINUE_CURRENT', message: native?.pushback ?? `Hmm, no: what you said about ${echoOf(lastReply, forbiddenThing(hit.description))} would not work for us at all. What else could I do?`};
	}
	const lastChance = sim.turnsLeft <= 1;
	const reveal = revealNow(sim, lastReply, lastChance);
	const phase = meetsPhase(sim, lastReply);
	const heldHere = sim.turns.some((turn) => turn.role === 'user' && turn.shard === sim.shardIndex && turn.assessment?.decision === 'CONTINUE_CURRENT');
	const heldEver = sim.turns.some((turn) => turn.role === 'user' && turn.assessment?.decision === 'CONTINUE_CURRENT');
	const marker = reveal ? ` I bring up a hidden constraint now, as ${reveal.why}: discloses ${reveal.id}.` : '';
	const revealText = (lead: string) => native?.reveal ?? `${lead} ${lowerFirst(stripEnd(reveal!.constraint))}. ${pick(['Does that change what you would suggest?', 'How would that fit in?', 'Would that change the plan?'], `${key}#ask`)}`;
	// Not met yet, and not already held once in this phase: ask for more on the same phase.
	if (!phase.ok && !heldHere) {
		if (reveal) return {reasoning: `Not yet: ${phase.why}.${marker}`, decision: 'CONTINUE_CURRENT', message: revealText(pick(['Hmm, that does not quite work yet. I should say:', 'Wait, one thing first:'], `${key}#lead`))};
		return {reasoning: `Not yet: ${phase.why}.`, decision: 'CONTINUE_CURRENT', message: native?.continue ?? pick(['That does not really answer it for me yet. Could you be more specific about what I should do?', 'Hmm, I am not sure that fits. Could you think about it again with my situation in mind?'], `${key}#thin`)};
	}
	// Now and then a person asks for more on the same phase even when the reply is fine.
	if (next && phase.ok && !heldEver && !reveal && fnv1a(`${sim.seedId}#hold#${t}`) % 3 === 0) {
		return {reasoning: `The reply is a start but does not yet fully meet: ${shard.successCondition}`, decision: 'CONTINUE_CURRENT', message: native?.example ?? 'That is a start, but could you make it more concrete? For example, what exactly would I say or do first?'};
	}
	const reasoning = `${phase.ok ? `The reply meets ${phase.why}` : `Not fully, but I asked once already (${phase.why}); moving on`}.${marker}`;
	// The closing message thanks and leaves: a constraint nobody gave occasion for stays unsaid (and unmarked).
	if (!next) return {reasoning: reasoning.replace(marker, ''), decision: 'ADVANCE_NEXT', message: native?.closing ?? 'Thank you, this is really helpful. I think I know what to do now.'};
	if (reveal) return {reasoning, decision: 'ADVANCE_NEXT', message: revealText(reveal.asked ? pick(['Right. Since you ask, there is something else:', 'Good question. I should say:'], `${key}#lead`) : pick(['Okay, that helps. One thing I should have mentioned:', 'That makes sense. I should add one thing:'], `${key}#lead`))};
	if (native) return {reasoning, decision: 'ADVANCE_NEXT', message: native.advance};
	const last = sim.shardIndex + 1 === sim.shards.length - 1;
	if (last) return {reasoning, decision: 'ADVANCE_NEXT', message: pick(['Okay, I think I have the pieces. Could you pull it together into what I should actually do, in order?', 'That helps. So what would you do first, and what exactly should I say?', 'Good. Can you turn that into something I can use as it is?'], `${key}#close`)};
	const topic = nextTopic(sim);
	return {reasoning, decision: 'ADVANCE_NEXT', message: topic ? `Okay, that makes sense. And what about ${sentenceCase(stripEnd(topic))}? How would you handle that part?` : pick(['Okay, that makes sense. What would be the next thing to sort out?', 'Alright. What else should I think about before going ahead?'], `${key}#next`)};
}

/** Generic steps the offline assistant picks from, so replies differ from turn to turn while staying filler. */
const STEPS = [
	'Talk it through first with the most senior person involved, so nobody is surprised later.',
	'Check any religious, family or community rules that apply before fixing dates, food or gifts.',
	'Write down the budget and timing, and leave room for the people who must be consulted.',
	'Ask someone who has handled a similar occasion in your community what they did.',
	'Keep a simple fallback option in case the first choice does not work out.',
	'Agree on who will make the final call before you start, so decisions do not stall.',
	'Give people a little notice so they can plan around it.',
	'In many families the eldest relative is asked first; it is worth checking whether that applies to yours.',
	'Customs vary from place to place, so confirm the details with someone local.',
];

/**
 * What a revealed constraint rules out, when the user worded it as something to avoid ("we have to
 * avoid X", "we never serve X", "no X" -> "X"); the careless baseline below suggests it anyway.
 */
function ruledOut(focus: string): string | undefined {
	return (
		focus.match(/\b(?:have to|must|need to|should|cannot|can't) (?:avoid|skip|stay away from|not have|not serve|not eat|not use) (.+)$/i)?.[1] ??
		focus.match(/\b(?:never|don't|do not|cannot|can't|must not|mustn't) (?:serve|eat|have|use|give|wear|bring|drink|do|offer|hold|mention) (.+)$/i)?.[1] ??
		focus.match(/^(?:no|avoiding) (.+)$/i)?.[1]
	);
}

/** The user's last point in their own words: what follows "one thing ...:" when the message adds one, or the part it asks about. */
function focusOf(message: string): string | undefined {
	const said = stripEnd(message.split(/:\s+/).slice(1).join(': ').split(/[.!?](?:\s|$)/)[0] ?? '');
	if (said.split(/\s+/).length >= 3) return said;
	return undefined;
}

/** "what about my team leader?" -> "my team leader". */
function askedAbout(message: string): string | undefined {
	return message.match(/\bwhat about ([^?]{3,80})\?/i)?.[1];
}

/** The sentence the baseline opens with when the user added something, in its words as far as it can. */
function takeUp(focus: string): string {
	const cares = focus.match(/^in my family we care about this:\s*(.+)$/i)?.[1];
	if (cares) return `Since your family cares about ${stripEnd(cares)}, I would build the plan around it.`;
	const out = ruledOut(focus);
	if (out) return `Since ${stripEnd(out)} is out for you, I would plan around that from the start.`;
	return `Since ${lowerFirst(focus)}, I would keep that at the centre of the plan.`;
}

/** The offline assistant: a generic, polite, structured reply that picks up the user's words and asks one question. */
export function mockAssistant(input: unknown, request?: {readonly sample?: number}): string {
	const {view, gold, guidance, language} = input as AssistantMockInput;
	// A best-of-N sample is numbered on the request (`gateway.sample`), or in the input (older callers).
	const sample = request?.sample ?? (input as AssistantMockInput).sample ?? 0;
	const users = view.messages.filter((message) => message.role === 'user');
	const turn = users.length;
	if (language !== 'english') {
		const p = phrases(language as LanguageId);
		return [p.assistantIntro, ...p.assistantSteps.map((step, index) => `${index + 1}. ${step}`), p.assistantQuestion].join('\n');
	}
	const lastUser = users.at(-1)?.content ?? '';
	const key = `${lastUser}#${sample}`;
	// Best-of-N samples differ in their opening and in whether they end on a question.
	const intro = ['Thanks for explaining the situation. Here is how I would approach it:', 'That makes sense. A practical way forward:', 'Good to know. Taking that into account, I would suggest:'][(turn + sample) % 3]!;
	const focus = turn > 1 ? focusOf(lastUser) : undefined;
	// One episode in three the baseline is careless: it brushes aside what the user said to avoid, as a
	// weak assistant does (the simulated user pushes back, the rubric finds the tripwire), so offline
	// scores spread the way model scores do instead of sitting on one value.
	const opener = users[0]?.content ?? '';
	const careless = fnv1a(`${opener}#careless`) % 3 === 0 && sample === 0 ? ruledOut(focus ?? '') : undefined;
	const start = fnv1a(key) % STEPS.length;
	const steps = [0, 1, 2].map((offset) => STEPS[(start + offset * 2) % STEPS.length]!);
	const about = turn > 1 ? askedAbout(lastUser) : undefined;
	const opening = careless ? `Honestly, ${stripEnd(careless)} is fine to include here; most families are relaxed about it these days.` : focus ? takeUp(focus) : about ? `On ${about}: the same approach works, with a little care.` : undefined;
	const lines = [intro, ...(opening ? [opening] : []), ...steps.map((step, index) => `${index + 1}. ${step}`)];
	if (gold && guidance) {
		const firstCriterion = guidance.split('\n').find((line) => line.startsWith('- '));
		if (firstCriterion) lines.push(`Most importantly: ${lowerFirst(firstCriterion.slice(2))}`);
	}
	const ending = fnv1a(`${key}#end`) % 3;
	if (sample % 2 === 0 && ending > 0) lines.push(ending === 1 ? 'Is there anything about your family\'s or community\'s customs I should take into account?' : 'Would it help if I suggested some wording you could use?');
	else lines.push('I hope this helps you plan it.');
	return lines.join('\n');
}
