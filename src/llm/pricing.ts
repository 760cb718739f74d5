import type {CallRecord} from '../domain/session.js';

/** USD per million tokens. */
export type Price = {readonly input: number; readonly output: number};

/**
 * List prices of a few common models, for the running cost estimate only (override or extend with
 * the config file's `prices`). Unknown models show no cost rather than a wrong one.
 */
export const DEFAULT_PRICES: Readonly<Record<string, Price>> = {
	'gpt-5-mini': {input: 0.25, output: 2.0},
	'gpt-5-nano': {input: 0.05, output: 0.4},
	'gpt-5': {input: 1.25, output: 10.0},
	'gpt-4.1-mini': {input: 0.4, output: 1.6},
	'gpt-4o-mini': {input: 0.15, output: 0.6},
};

export type CostEstimate = {readonly usd: number; readonly unpriced: number};

/** Estimated spend of the billable calls (cache hits and mock calls cost nothing). */
export function estimateCost(calls: readonly CallRecord[], prices: Readonly<Record<string, Price>> = DEFAULT_PRICES): CostEstimate {
	let usd = 0;
	let unpriced = 0;
	for (const call of calls) {
		if (call.cached || call.provider !== 'openai') continue;
		const price = prices[call.model];
		if (!price) {
			unpriced++;
			continue;
		}
		usd += (call.tokens.prompt * price.input + call.tokens.completion * price.output) / 1_000_000;
	}
	return {usd, unpriced};
}
