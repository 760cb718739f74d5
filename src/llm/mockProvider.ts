import {setTimeout as delay} from 'node:timers/promises';
import {zodProblems} from '../util/errors.js';
import {type Provider, emitWords} from './provider.js';
import type {MockGenerator} from './types.js';
import {estimateUsage} from './usage.js';

const generators = new Map<string, MockGenerator>();

/**
 * Registers the offline reply builder for a stage: an exact stage ("blueprint") or a prefix ending
 * in ':' ("judge:" covers "judge:honesty", ...). An exact match wins over a prefix; among prefixes
 * the longest wins. Registering the same pattern again replaces the generator.
 */
export function registerMockGenerator(stagePattern: string, generator: MockGenerator): void {
	if (stagePattern === '') throw new Error('registerMockGenerator: empty stage pattern');
	generators.set(stagePattern, generator);
}

export function findMockGenerator(stage: string): MockGenerator | undefined {
	const exact = generators.get(stage);
	if (exact) return exact;
	let best: [string, MockGenerator] | undefined;
	for (const [pattern, generator] of generators) {
		if (pattern.endsWith(':') && stage.startsWith(pattern) && (!best || pattern.length > best[0].length)) best = [pattern, generator];
	}
	return best?.[1];
}

/** The stage patterns registered so far (for error messages and tests). */
export function mockStagePatterns(): string[] {
	return [...generators.keys()].sort();
}

/**
 * The deterministic offline provider. A generator that returns something its stage's schema rejects
 * is a bug in the generator, not model behaviour, so it throws a plain Error instead of entering the
 * re-ask loop. Free text is "streamed" word by word, instantly unless `tokenDelayMs` paces it (the
 * TUI does, so offline users can watch a reply arrive as they would from a model).
 */
export function createMockProvider(options: {tokenDelayMs?: number} = {}): Provider {
	const pace = options.tokenDelayMs ?? 0;
	return {
		kind: 'mock',
		remote: false,
		async complete(exchange) {
			const generator = findMockGenerator(exchange.stage);
			if (!generator) {
				throw new Error(`No mock generator for stage "${exchange.stage}" (registered: ${mockStagePatterns().join(', ') || 'none'}). Register one with registerMockGenerator(), or configure a real model for the ${exchange.role} role.`);
			}
			const output = await generator(exchange.request.mock, exchange.request);
			let text: string;
			if (exchange.schema) {
				const parsed = exchange.schema.schema.safeParse(output);
				if (!parsed.success) throw new Error(`Mock generator for stage "${exchange.stage}" returned a value that breaks schema ${exchange.schema.name}:\n  - ${zodProblems(parsed.error).join('\n  - ')}`);
				text = JSON.stringify(output);
			} else {
				if (typeof output !== 'string') throw new Error(`Mock generator for free-text stage "${exchange.stage}" must return a string (got ${typeof output}).`);
				text = output;
				if (pace > 0 && exchange.onToken) {
					for (const word of text.match(/\s*\S+\s*/g) ?? []) {
						await delay(pace, undefined, {signal: exchange.signal});
						exchange.onToken(word);
					}
				} else emitWords(text, exchange.onToken);
			}
			return {text, finishReason: 'stop', usage: estimateUsage(exchange.messages, text)};
		},
	};
}
