import {readFileSync} from 'node:fs';
import path from 'node:path';
import {z} from 'zod';
import {writeFileAtomic} from '../util/atomicWrite.js';
import {type ChatMessage, TokenUsage} from '../domain/session.js';
import {sha256} from '../util/hash.js';
import type {WireFormat} from './provider.js';

/** Everything that determines a reply, and nothing secret: no API key, no headers. */
export type CacheKeyInput = {
	readonly provider: string;
	readonly baseURL: string | null;
	readonly model: string;
	readonly messages: readonly ChatMessage[];
	readonly format: WireFormat;
	readonly temperature: number | null;
	readonly maxTokens: number | null;
	readonly reasoningEffort?: string | null;
	/** Sample index of a best-of-N request; 0 or absent for ordinary calls. */
	readonly sample?: number;
	/** Trial number of a repeated episode; 1 or absent for the first. */
	readonly trial?: number;
	readonly repeat?: number;
	/** Choices asked for in one request (best-of-N with `n`); absent or 1 for ordinary calls. */
	readonly n?: number;
	/** The role's extraBody (it can change the reply: a seed, chat_template_kwargs). */
	readonly extraBody?: Readonly<Record<string, unknown>>;
};

export const CacheEntry = z.strictObject({
	key: z.string(),
	createdAt: z.string(),
	model: z.string(),
	text: z.string(),
	usage: TokenUsage.nullable(),
	/** Every choice, for a call that asked for several (`n`). */
	choices: z.array(z.string()).optional(),
	/** Thinking text removed from the reply (kept so a cache hit's record says what the model thought). */
	reasoning: z.string().nullable().optional(),
	tokensEstimated: z.boolean().optional(),
	/** A kept reply that was not whole (a free-text reply cut by the cap or a content filter), so a cache hit marks its turn the same. */
	finishReason: z.enum(['length', 'content_filter']).optional(),
});
export type CacheEntry = z.infer<typeof CacheEntry>;

export interface ResponseCache {
	get(key: string): CacheEntry | null;
	set(entry: CacheEntry): void;
}

/**
 * sha256 over the JSON of the inputs in a fixed field order. Object keys inside the schema are NOT
 * sorted: property order steers generation (a rationale before a score), so it is part of the key.
 */
export function cacheKey(input: CacheKeyInput): string {
	const {provider, baseURL, model, messages, format, temperature, maxTokens, reasoningEffort, sample, trial, repeat, n, extraBody} = input;
	// The optional inputs join the key only when set, so keys of calls without them stay as they were.
	return sha256(
		JSON.stringify({
			v: 1,
			provider,
			baseURL,
			model,
			messages: messages.map(({role, content}) => ({role, content})),
			format,
			temperature,
			maxTokens,
			...(reasoningEffort ? {reasoningEffort} : {}),
			...(sample ? {sample} : {}),
			...(trial && trial > 1 ? {trial} : {}),
			...(repeat && repeat > 1 ? {repeat} : {}),
			...(n && n > 1 ? {n} : {}),
			...(extraBody && Object.keys(extraBody).length > 0 ? {extraBody} : {}),
		}),
	);
}

/**
 * A content-addressed cache under `<dir>/<first 2 hex>/<hash>.json`. Writes go to a temporary file
 * renamed into place, so a crash never leaves a half-written entry; an unreadable entry counts as a
 * miss (it will be overwritten by the next successful call).
 */
export function createFileCache(dir: string): ResponseCache {
	const fileOf = (key: string) => path.join(dir, key.slice(0, 2), `${key}.json`);
	return {
		get(key) {
			let text: string;
			try {
				text = readFileSync(fileOf(key), 'utf8');
			} catch {
				return null;
			}
			try {
				const parsed = CacheEntry.safeParse(JSON.parse(text));
				return parsed.success && parsed.data.key === key ? parsed.data : null;
			} catch {
				return null;
			}
		},
		set(entry) {
			const file = fileOf(entry.key);
			writeFileAtomic(file, `${JSON.stringify(entry, null, 2)}\n`);
		},
	};
}

