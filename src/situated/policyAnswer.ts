import {PolicyAnswer} from '../domain/situated.js';

export type ParsedPolicyAnswer = {readonly answer: PolicyAnswer; readonly invalid: null} | {readonly answer: null; readonly invalid: string};

const THINKING = /<\/?(think|thinking|reasoning)>/i;

/**
 * The policy's output contract (CRISP C.2): a JSON object with exactly `answer` and `reasoning`, both
 * non-empty, and no thinking tags left inside. One Markdown code fence around the object is accepted
 * (chat models add it by habit and it hides nothing); a leading thinking block that is closed is cut,
 * as servers for reasoning models usually do. Anything else is invalid and says why.
 */
export function parsePolicyAnswer(raw: string): ParsedPolicyAnswer {
	let text = raw.trim();
	const closed = /^<(think|thinking)>[\s\S]*?<\/\1>/i.exec(text);
	if (closed) text = text.slice(closed[0].length).trim();
	const fence = /^```(?:json)?\s*\n([\s\S]*?)\n```$/i.exec(text);
	if (fence) text = fence[1]!.trim();
	if (text === '') return {answer: null, invalid: 'empty reply'};
	let value: unknown;
	try {
		value = JSON.parse(text);
	} catch {
		return {answer: null, invalid: text.startsWith('{') ? 'malformed or truncated JSON' : 'not a JSON object'};
	}
	if (!value || typeof value !== 'object' || Array.isArray(value)) return {answer: null, invalid: 'not a JSON object'};
	const keys = Object.keys(value).sort();
	if (keys.join(',') !== 'answer,reasoning') return {answer: null, invalid: `fields must be exactly answer and reasoning (got ${keys.join(', ') || 'none'})`};
	const {answer, reasoning} = value as {answer: unknown; reasoning: unknown};
	if (typeof answer !== 'string' || typeof reasoning !== 'string') return {answer: null, invalid: 'answer and reasoning must be strings'};
	const parsed = PolicyAnswer.safeParse({answer: answer.trim(), reasoning: reasoning.trim()});
	if (!parsed.success) return {answer: null, invalid: 'an empty answer or reasoning'};
	if (THINKING.test(parsed.data.answer) || THINKING.test(parsed.data.reasoning)) return {answer: null, invalid: 'thinking tags inside the answer'};
	return {answer: parsed.data, invalid: null};
}
