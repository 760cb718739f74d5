import type {CallRecord} from '../domain/session.js';
import {bareModel} from './modelFamily.js';

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

export type CostEstimate = {
	readonly usd: number;
	/** Billable calls of models with no known price (left out of `usd`). */
	readonly unpriced: number;
	/** The part of `usd` priced from tokens counted locally (the server sent no usage): an estimate of an estimate. */
	readonly estimatedUsd: number;
};

/**
 * Estimated spend of the billable calls (cache hits, mock calls and calls to local servers cost nothing). A model is priced by
 * its exact name first, then without a router's vendor prefix ("openai/gpt-5-mini" as "gpt-5-mini").
 */
export function estimateCost(calls: readonly CallRecord[], prices: Readonly<Record<string, Price>> = {}): CostEstimate {
	const table = {...DEFAULT_PRICES, ...prices};
	let usd = 0;
	let estimatedUsd = 0;
	let unpriced = 0;
	for (const call of calls) {
		// A local server (vLLM, Ollama, llama.cpp, LM Studio, loopback) costs nothing: never "unpriced".
		if (call.cached || call.provider !== 'openai' || call.local) continue;
		const price = table[call.model] ?? table[bareModel(call.model)];
		if (!price) {
			unpriced++;
			continue;
		}
		const cost = (call.tokens.prompt * price.input + call.tokens.completion * price.output) / 1_000_000;
		usd += cost;
		if (call.tokensEstimated) estimatedUsd += cost;
	}
	return {usd, unpriced, estimatedUsd};
}

/** The price of one billable call, or null for a model with no known price. */
export function callPrice(call: Pick<CallRecord, 'model' | 'tokens' | 'local'>, prices: Readonly<Record<string, Price>> = {}): number | null {
	if (call.local) return 0;
	const price = prices[call.model] ?? DEFAULT_PRICES[call.model] ?? prices[bareModel(call.model)] ?? DEFAULT_PRICES[bareModel(call.model)];
	return price ? (call.tokens.prompt * price.input + call.tokens.completion * price.output) / 1_000_000 : null;
}

/** "~$0.0123", with what it leaves out and how much of it rests on locally counted tokens. */
export function formatCost(cost: CostEstimate, billableTokens: number): string {
	if (billableTokens === 0) return '$0';
	const parts = [`~$${cost.usd.toFixed(4)}`];
	if (cost.estimatedUsd > 0) parts.push(cost.estimatedUsd >= cost.usd - 1e-12 ? '(estimated tokens: the server sent no usage)' : `(of which ~$${cost.estimatedUsd.toFixed(4)} from estimated tokens)`);
	if (cost.unpriced > 0) parts.push(`(+${cost.unpriced} call(s) of unpriced models: add them to "prices" in the config)`);
	return parts.join(' ');
}
