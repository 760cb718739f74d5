import type {LanguageId} from '../domain/universe.js';
import {checkLanguage} from '../lang/detect.js';

/** Phrases an assistant writes and a person asking for help does not. */
const ASSISTANT_TELLS = [
	/^\s*(?:sure|certainly|of course|absolutely)[,!.]\s+(?:here|i can|i'd be happy|i would be happy)/i,
	/\bas an ai\b/i,
	/\bi(?:'m| am) (?:an? )?(?:ai|language model|assistant|chatbot)\b/i,
	/\bhappy to help you\b/i,
	/\bhere (?:are|is) (?:some|a few|several) (?:options|suggestions|tips|ideas|steps)\b/i,
	/^\s*#{1,6} /m,
	/\*\*[^*]+\*\*:/,
];

/** Words that belong to the simulation, never to a real user's message. */
const META_TELLS = /\b(?:shard|phase \d|success condition|failure condition|tripwire|oracle|simulat(?:ed|ion|or)|ADVANCE_NEXT|CONTINUE_CURRENT|END_FAILED)\b/i;

function numberedItems(text: string): number {
	return (text.match(/^\s*(?:\d+[.)]|[-*•])\s+\S/gm) ?? []).length;
}

/** Length of the longest run of words the two texts share verbatim. */
function longestSharedRun(a: string, b: string): number {
	const x = a.toLowerCase().match(/[\p{L}\p{N}]+/gu) ?? [];
	const y = b.toLowerCase().match(/[\p{L}\p{N}]+/gu) ?? [];
	let best = 0;
	let previous = new Array<number>(y.length + 1).fill(0);
	for (let i = 1; i <= x.length; i++) {
		const current = new Array<number>(y.length + 1).fill(0);
		for (let j = 1; j <= y.length; j++) {
			if (x[i - 1] === y[j - 1]) {
				current[j] = previous[j - 1]! + 1;
				if (current[j]! > best) best = current[j]!;
			}
		}
		previous = current;
	}
	return best;
}

/**
 * Why a simulated user message is unusable (empty, speaking as the assistant, leaking the plan, in the
 * wrong language); empty when it is fine. Problems go back to the simulator model as feedback.
 */
export function simulatorMessageProblems(message: string, options: {language: LanguageId | 'english'; lastAssistant?: string}): string[] {
	const text = message.trim();
	if (text.length === 0) return ['message is empty: write your next message to the assistant'];
	const problems: string[] = [];
	if (ASSISTANT_TELLS.some((pattern) => pattern.test(text)) || numberedItems(text) >= 4) problems.push('message reads like an assistant reply; you are the person asking for help, so write as that person');
	// Quoting a phrase back is human; copying a whole passage of the reply is the simulator losing its role.
	if (options.lastAssistant && longestSharedRun(text, options.lastAssistant) >= 15) problems.push('message copies a long passage of the assistant\'s reply; respond to it as the person instead');
	if (META_TELLS.test(text)) problems.push('message mentions the simulation or its plan; stay in character');
	const language = checkLanguage(text, options.language);
	if (!language.ok) problems.push(`wrong language: ${language.reason}`);
	return problems;
}
