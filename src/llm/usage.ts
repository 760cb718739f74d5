import type {CallRecord, ChatMessage, TokenUsage} from '../domain/session.js';
import {boundedTokenCount} from './tokenCount.js';

export const ZERO_USAGE: TokenUsage = {prompt: 0, completion: 0, total: 0};

/**
 * A rough token count (4 characters per token), for the offline mock only: its replies are filler
 * and their "tokens" are never billed. Endpoints that omit usage are counted with a real tokenizer
 * (`countUsage`): chars/4 undercounts Japanese about 3.6x, Korean 2.2x and Thai 1.5x.
 */
export function estimateTokens(text: string): number {
	return Math.ceil(text.length / 4);
}

export function estimateUsage(messages: readonly ChatMessage[], reply: string): TokenUsage {
	const prompt = messages.reduce((sum, message) => sum + estimateTokens(message.content), 0);
	const completion = estimateTokens(reply);
	return {prompt, completion, total: prompt + completion};
}

type Tokenizer = {countTokens: (text: string) => number};
let tokenizer: Promise<Tokenizer> | undefined;

/**
 * Token counts from a real BPE tokenizer (gpt-tokenizer's o200k_base, the encoding of the gpt-4o and
 * gpt-5 families), for replies whose server sent no `usage`. Other models' tokenizers differ by a few
 * percent, which is why such figures are marked estimated. Loaded on first use (about 0.3 s), so runs
 * against servers that report usage never pay for it. Each message adds the chat format's few tokens
 * of framing.
 */
export async function countUsage(messages: readonly ChatMessage[], reply: string): Promise<TokenUsage> {
	tokenizer ??= import('gpt-tokenizer') as Promise<Tokenizer>;
	// Linear in the text whatever it holds (a runaway reply of one unbroken run: tokenCount.ts).
	const {countTokens: bpe} = await tokenizer;
	const countTokens = (text: string) => boundedTokenCount(text, bpe);
	const prompt = messages.reduce((sum, message) => sum + countTokens(message.content) + 4, 2);
	const completion = countTokens(reply);
	return {prompt, completion, total: prompt + completion};
}

export function addUsage(a: TokenUsage, b: TokenUsage): TokenUsage {
	return {prompt: a.prompt + b.prompt, completion: a.completion + b.completion, total: a.total + b.total};
}

/** Totals over calls, for status lines and reports. */
export type UsageSummary = {
	readonly calls: number;
	readonly failed: number;
	readonly cached: number;
	readonly mock: number;
	readonly attempts: number;
	readonly tokens: TokenUsage;
	/** Tokens that reached a paid endpoint: not cached, not mock, not replayed, not a local server. */
	readonly billableTokens: TokenUsage;
	/** How many calls' tokens were counted locally because the server sent no usage. */
	readonly estimatedCalls: number;
	readonly latencyMs: number;
};

export function summarizeCalls(calls: readonly CallRecord[]): UsageSummary {
	let tokens = ZERO_USAGE;
	let billableTokens = ZERO_USAGE;
	let failed = 0;
	let cached = 0;
	let mock = 0;
	let attempts = 0;
	let latencyMs = 0;
	let estimatedCalls = 0;
	for (const call of calls) {
		if (call.tokensEstimated) estimatedCalls++;
		tokens = addUsage(tokens, call.tokens);
		if (!call.cached && call.provider === 'openai' && !call.local) billableTokens = addUsage(billableTokens, call.tokens);
		if (!call.ok) failed++;
		if (call.cached) cached++;
		if (call.provider === 'mock') mock++;
		attempts += call.attempts;
		latencyMs += call.latencyMs;
	}
	return {calls: calls.length, failed, cached, mock, attempts, tokens, billableTokens, latencyMs, estimatedCalls};
}

/** What a tally reads of a call record (all a worker thread sends of one). */
export type UsageCall = Pick<CallRecord, 'ok' | 'cached' | 'provider' | 'tokensEstimated' | 'attempts' | 'validationRetries' | 'latencyMs' | 'tokens' | 'model' | 'local'>;

export function usageCall(call: CallRecord): UsageCall {
	return {ok: call.ok, cached: call.cached, provider: call.provider, tokensEstimated: call.tokensEstimated, attempts: call.attempts, validationRetries: call.validationRetries, latencyMs: call.latencyMs, tokens: call.tokens, model: call.model, ...(call.local ? {local: true} : {})};
}

/**
 * Usage summed call by call, keeping no records: a batch of any length holds a few numbers, not
 * 0.44 MB of call records an episode. Costs are priced as calls arrive.
 */
export class UsageTally {
	calls = 0;
	failed = 0;
	cached = 0;
	mock = 0;
	attempts = 0;
	reasks = 0;
	estimatedCalls = 0;
	latencyMs = 0;
	tokens: TokenUsage = ZERO_USAGE;
	billableTokens: TokenUsage = ZERO_USAGE;
	usd = 0;
	estimatedUsd = 0;
	unpriced = 0;

	constructor(private readonly price: (call: UsageCall) => number | null = () => null) {}

	add(call: UsageCall): void {
		this.calls++;
		if (!call.ok) this.failed++;
		if (call.cached) this.cached++;
		if (call.provider === 'mock') this.mock++;
		if (call.tokensEstimated) this.estimatedCalls++;
		this.attempts += call.attempts;
		this.reasks += call.validationRetries;
		this.latencyMs += call.latencyMs;
		this.tokens = addUsage(this.tokens, call.tokens);
		if (call.cached || call.provider !== 'openai' || call.local) return;
		this.billableTokens = addUsage(this.billableTokens, call.tokens);
		const usd = this.price(call);
		if (usd === null) this.unpriced++;
		else {
			this.usd += usd;
			if (call.tokensEstimated) this.estimatedUsd += usd;
		}
	}
}
