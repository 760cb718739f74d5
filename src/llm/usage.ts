import type {CallRecord, ChatMessage, TokenUsage} from '../domain/session.js';

export const ZERO_USAGE: TokenUsage = {prompt: 0, completion: 0, total: 0};

/**
 * A rough token count (4 characters per token), used where no endpoint reports usage: the mock,
 * replayed lines without usage, and endpoints that omit it. Good enough for budgets, not for bills.
 */
export function estimateTokens(text: string): number {
	return Math.ceil(text.length / 4);
}

export function estimateUsage(messages: readonly ChatMessage[], reply: string): TokenUsage {
	const prompt = messages.reduce((sum, message) => sum + estimateTokens(message.content), 0);
	const completion = estimateTokens(reply);
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
	/** Tokens that reached a paid endpoint: not cached, not mock, not replayed. */
	readonly billableTokens: TokenUsage;
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
	for (const call of calls) {
		tokens = addUsage(tokens, call.tokens);
		if (!call.cached && call.provider === 'openai') billableTokens = addUsage(billableTokens, call.tokens);
		if (!call.ok) failed++;
		if (call.cached) cached++;
		if (call.provider === 'mock') mock++;
		attempts += call.attempts;
		latencyMs += call.latencyMs;
	}
	return {calls: calls.length, failed, cached, mock, attempts, tokens, billableTokens, latencyMs};
}
