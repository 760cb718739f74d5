import {existsSync, readFileSync} from 'node:fs';
import path from 'node:path';
import {z} from 'zod';
import {shortHash} from '../util/hash.js';
import type {EmbedRole} from './embedder.js';

export type Pooling = 'mean' | 'cls' | 'last_token';

/**
 * How a sentence-embedding model wants to be called: which token states become the vector and
 * what each side of an asymmetric retriever is prefixed with. Getting either wrong silently costs
 * retrieval accuracy rather than failing, so it is decided in one place and recorded in the
 * embedder id (a change rebuilds the indexes).
 */
export type EmbeddingProfile = {
	readonly pooling: Pooling;
	readonly queryPrefix: string;
	readonly passagePrefix: string;
	/** Last-token pooling reads position -1, which is the real last token only with left padding. */
	readonly padLeft: boolean;
};

/**
 * The task line Qwen3-Embedding puts before queries ("Instruct: ...\nQuery:"); passages go in bare.
 * Written for our retrieval task: a user's situation in, local custom and constraint passages out.
 */
export const QWEN3_QUERY_INSTRUCTION = 'Given a person describing an everyday situation in a specific East or Southeast Asian community, retrieve passages about the local customs, norms and constraints that bear on it';

const MEAN: EmbeddingProfile = {pooling: 'mean', queryPrefix: '', passagePrefix: '', padLeft: false};

/**
 * Qwen3-Embedding (the paper's embedder): the last token's state, so left padding, and queries
 * prefixed `Instruct: {task}\nQuery:` with the text following directly, as in the model card's
 * `get_detailed_instruct`; documents go in bare.
 */
export const QWEN3_PROFILE: EmbeddingProfile = {pooling: 'last_token', queryPrefix: `Instruct: ${QWEN3_QUERY_INSTRUCTION}\nQuery:`, passagePrefix: '', padLeft: true};

/** Known model families by id, for hub models whose sentence-transformers files we do not download. */
export function profileForModelId(model: string): EmbeddingProfile {
	if (/(^|\/)(multilingual-)?e5-/i.test(model)) return {...MEAN, queryPrefix: 'query: ', passagePrefix: 'passage: '};
	if (/qwen3-embedding/i.test(model)) return QWEN3_PROFILE;
	if (/(^|\/)bge-m3/i.test(model) || /(^|\/)gte-multilingual/i.test(model)) return {...MEAN, pooling: 'cls'};
	return MEAN;
}

/** `1_Pooling/config.json` of a sentence-transformers model folder (the fields we act on). */
const StPooling = z.object({
	pooling_mode_cls_token: z.boolean().optional(),
	pooling_mode_mean_tokens: z.boolean().optional(),
	pooling_mode_lasttoken: z.boolean().optional(),
});
/** `config_sentence_transformers.json`: named prompts, e.g. {"query": "query: ", "document": ""}. */
const StConfig = z.object({prompts: z.record(z.string(), z.string()).optional()});
/** The fields of a model's `config.json` that name its family. */
const ModelConfig = z.object({model_type: z.string().optional()});

/**
 * The profile of a local model folder: its sentence-transformers files when it has them (the
 * standard way a model states its pooling and prompts), else what its folder name suggests.
 * Throws with the file name when such a file exists but cannot be read, rather than guessing.
 *
 * A folder whose `config.json` declares a Qwen3 model (`model_type: "qwen3"`) is called as
 * Qwen3-Embedding whatever the folder is named: a downloaded copy keeps the hub's config but rarely
 * its name. Its query instruction is always ours (QWEN3_QUERY_INSTRUCTION), even when the folder's
 * sentence-transformers prompt says "Given a web search query, ...": the instruction states the task
 * (Qwen recommends writing it for the task), and one instruction keeps `hf:` and `local:` copies of
 * the model on the same embedder id and indexes.
 */
export function profileForFolder(folder: string): EmbeddingProfile {
	const qwen3 = readOptional(path.join(folder, 'config.json'), ModelConfig, 'model configuration')?.model_type === 'qwen3';
	const guess = qwen3 ? QWEN3_PROFILE : profileForModelId(path.basename(folder));
	const pooling = readOptional(path.join(folder, '1_Pooling', 'config.json'), StPooling);
	const config = readOptional(path.join(folder, 'config_sentence_transformers.json'), StConfig);
	if (qwen3 || guess === QWEN3_PROFILE) {
		if (pooling && !pooling.pooling_mode_lasttoken) throw new Error(`${path.join(folder, '1_Pooling', 'config.json')}: a Qwen3 embedding model pools the last token, but this file asks for another pooling`);
		return QWEN3_PROFILE;
	}
	if (!pooling && !config?.prompts) return guess;
	const mode: Pooling = pooling ? (pooling.pooling_mode_lasttoken ? 'last_token' : pooling.pooling_mode_cls_token ? 'cls' : 'mean') : guess.pooling;
	const prompts = config?.prompts;
	return {
		pooling: mode,
		queryPrefix: prompts ? (prompts['query'] ?? '') : guess.queryPrefix,
		passagePrefix: prompts ? (prompts['document'] ?? prompts['passage'] ?? '') : guess.passagePrefix,
		padLeft: mode === 'last_token',
	};
}

function readOptional<T>(file: string, schema: z.ZodType<T>, what = 'sentence-transformers file'): T | null {
	if (!existsSync(file)) return null;
	try {
		return schema.parse(JSON.parse(readFileSync(file, 'utf8')));
	} catch (error) {
		throw new Error(`${file}: not a usable ${what} (${(error as Error).message.split('\n')[0]})`);
	}
}

export function prefixFor(profile: EmbeddingProfile, role: EmbedRole): string {
	return role === 'query' ? profile.queryPrefix : profile.passagePrefix;
}

/** A short tag for the embedder id: empty for the plain mean-pooled, unprefixed case. */
export function profileTag(profile: EmbeddingProfile): string {
	if (profile.pooling === 'mean' && !profile.queryPrefix && !profile.passagePrefix) return '';
	const prompts = profile.queryPrefix || profile.passagePrefix ? `+${shortHash(`${profile.queryPrefix}\u0000${profile.passagePrefix}`).slice(0, 6)}` : '';
	return `${profile.pooling}${prompts}`;
}
