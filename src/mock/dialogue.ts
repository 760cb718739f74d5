import type {AssistantMockInput} from '../episode/assistant.js';
import type {SimulatorMockInput, SimulatorTurn} from '../episode/simulator.js';
import type {LanguageId} from '../domain/universe.js';
import {fnv1a} from '../util/hash.js';
import {phrases} from './phrasebook.js';
import {lowerFirst, sharesTrigram, stripEnd} from './text.js';

/**
 * The offline simulated user follows the shard plan literally: it moves to the next phase after each
 * reply, revealing that phase's hidden constraint as it goes; now and then it asks for more on the
 * same phase; it pushes back once when the assistant's reply hits a tripwire and gives up if it
 * happens again.
 */
export function mockSimulator(input: unknown): SimulatorTurn {
	const sim = input as SimulatorMockInput;
	const shard = sim.shards[sim.shardIndex]!;
	const next = sim.shards[sim.shardIndex + 1];
	const lastReply = sim.turns.filter((turn) => turn.role === 'assistant').at(-1)?.content ?? '';
	const native = sim.language === 'native' ? phrases(sim.nativeLanguage as LanguageId) : null;
	const hit = sim.blueprint.oracle.tripwires.find((tripwire) => sharesTrigram(lastReply, tripwire.description));
	const pushedBack = sim.turns.some((turn) => turn.assessment?.reasoning.startsWith('The reply runs into'));
	if (hit) {
		if (pushedBack) return {reasoning: `The reply runs into a tripwire again (${hit.id}) after I objected.`, decision: 'END_FAILED', message: native?.failed ?? 'I don\'t think this will work for my family. Never mind, thanks anyway.'};
		return {reasoning: `The reply runs into a tripwire (${hit.id}); the phase is not done.`, decision: 'CONTINUE_CURRENT', message: native?.pushback ?? `Hmm, that would not work for us: ${lowerFirst(stripEnd(hit.description.replace(/^Recommends or endorses: /, '')))} is out of the question. What else could I do?`};
	}
	const t = sim.turns.filter((turn) => turn.role === 'user').length;
	const heldAlready = sim.turns.some((turn) => turn.role === 'user' && turn.assessment?.decision === 'CONTINUE_CURRENT');
	if (next && !heldAlready && fnv1a(`${sim.seedId}#hold#${t}`) % 3 === 0) {
		return {reasoning: `The reply is a start but does not yet fully meet: ${shard.successCondition}`, decision: 'CONTINUE_CURRENT', message: native?.example ?? 'That is a start, but could you make it more concrete? For example, what exactly would I say or do first?'};
	}
	const reasoning = `The reply meets the phase's success condition: ${shard.successCondition}`;
	if (!next) return {reasoning, decision: 'ADVANCE_NEXT', message: native?.closing ?? 'Thank you, this is really helpful. I think I know what to do now.'};
	const reveal = next.disclose[0];
	if (reveal) return {reasoning, decision: 'ADVANCE_NEXT', message: native?.reveal ?? `Okay, that helps. One thing I should have mentioned: ${lowerFirst(stripEnd(reveal))}. Does that change what you would suggest?`};
	return {reasoning, decision: 'ADVANCE_NEXT', message: native?.advance ?? `Okay, that makes sense. ${stripEnd(next.goal)}: how would you put that together?`};
}

/** The offline assistant: a generic, polite, structured reply that picks up the user's words and asks one question. */
export function mockAssistant(input: unknown, request?: {readonly sample?: number}): string {
	const {view, gold, guidance, language} = input as AssistantMockInput;
	// A best-of-N sample is numbered on the request (`gateway.sample`), or in the input (older callers).
	const sample = request?.sample ?? (input as AssistantMockInput).sample ?? 0;
	const turn = view.messages.filter((message) => message.role === 'user').length;
	if (language !== 'english') {
		const p = phrases(language as LanguageId);
		return [p.assistantIntro, ...p.assistantSteps.map((step, index) => `${index + 1}. ${step}`), p.assistantQuestion].join('\n');
	}
	// Best-of-N samples differ in their opening and in whether they end on a question.
	const intro = ['Thanks for explaining the situation. Here is how I would approach it:', 'That makes sense. A practical way forward:', 'Good to know. Taking that into account, I would suggest:'][(turn + sample) % 3]!;
	const lines = [
		intro,
		'1. Talk it through first with the most senior person involved, so nobody is surprised later.',
		'2. Check any religious, family or community rules that apply before fixing dates, food or gifts.',
		'3. Write down the budget and timing, and leave room for the people who must be consulted.',
	];
	if (gold && guidance) {
		const firstCriterion = guidance.split('\n').find((line) => line.startsWith('- '));
		if (firstCriterion) lines.push(`Most importantly: ${lowerFirst(firstCriterion.slice(2))}`);
	}
	if (sample % 2 === 0) lines.push('Is there anything about your family\'s or community\'s customs I should take into account?');
	else lines.push('I hope this helps you plan it.');
	return lines.join('\n');
}
