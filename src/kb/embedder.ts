import {mkdirSync, readFileSync, rmSync, writeFileSync} from 'node:fs';
import {homedir} from 'node:os';
import path from 'node:path';
import {UserError, errorMessage} from '../util/errors.js';
import {DEFAULT_HASH_DIMENSION, HashEmbedder} from './hashEmbedder.js';

export type EmbedRole = 'query' | 'passage';
export type EmbedOptions = {
	/** Asymmetric models (e5) embed questions and passages with different prefixes. */
	role: EmbedRole;
};

/** Turns texts into unit-length vectors of a fixed dimension. */
export interface Embedder {
	/** Recorded in every index built with it, e.g. "hash:v1:384" or "hf:Xenova/multilingual-e5-small:q8:mean+<prompts hash>:384". */
	readonly id: string;
	readonly dimension: number;
	embed(texts: readonly string[], options: EmbedOptions): Promise<Float32Array[]>;
}

export type EmbedderSpec =
	| {kind: 'hash'; dimension: number}
	| {kind: 'hf'; model: string; dtype: string}
	| {kind: 'local'; folder: string};

/**
 * The default on a laptop CPU: multilingual-e5-small (384-d, 12 layers, int8 ONNX of about 118 MB).
 * It covers the XLM-R language set, which includes all nine native languages (Malay, Chinese,
 * Indonesian, Japanese, Korean, Tamil, Filipino/Tagalog, Thai, Vietnamese), and is an asymmetric
 * retriever ("query: " / "passage: " prefixes). The paper's Qwen3-Embedding-0.6B is about 5x larger.
 * @default "hf:Xenova/multilingual-e5-small"
 */
export const DEFAULT_EMBEDDER = 'hf:Xenova/multilingual-e5-small';

/** Env variable naming the embedder; the `--embedder` flag wins over it. */
export const EMBEDDER_ENV = 'CULTURECONVERSE_EMBEDDER';

/**
 * Parses `hash`, `hash:<dim>`, `hf:<model-id>[@<dtype>]` or `local:<folder>`.
 * @example parseEmbedderSpec('hf:Xenova/multilingual-e5-small@fp32')
 */
export function parseEmbedderSpec(text: string, cwd = process.cwd()): EmbedderSpec {
	const spec = text.trim();
	if (spec === 'hash') return {kind: 'hash', dimension: DEFAULT_HASH_DIMENSION};
	const hash = /^hash:(\d+)$/.exec(spec);
	if (hash) return {kind: 'hash', dimension: Number(hash[1])};
	if (spec.startsWith('hf:')) {
		const [model, dtype] = spec.slice(3).split('@');
		if (!model || !/^[\w.-]+(\/[\w.-]+)?$/.test(model)) throw new UserError(`Bad embedder '${spec}': expected hf:<owner>/<model>, e.g. ${DEFAULT_EMBEDDER}.`);
		if (dtype !== undefined && !['fp32', 'fp16', 'q8', 'int8', 'uint8', 'q4', 'bnb4', 'q4f16'].includes(dtype)) throw new UserError(`Bad embedder '${spec}': unknown dtype '${dtype}' (use fp32, fp16, q8, q4 ...).`);
		// int8 weights by default: a quarter of the download and about twice as fast on a CPU.
		return {kind: 'hf', model, dtype: dtype ?? 'q8'};
	}
	if (spec.startsWith('local:')) {
		const folder = spec.slice(6);
		if (!folder) throw new UserError(`Bad embedder '${spec}': expected local:<folder holding config.json, tokenizer.json and onnx/>.`);
		return {kind: 'local', folder: path.resolve(cwd, folder)};
	}
	throw new UserError(`Unknown embedder '${spec}'. Use one of: hash, hash:<dim>, hf:<model-id>, local:<folder> (default ${DEFAULT_EMBEDDER}).`);
}

/** The spec to use: the flag, else the environment variable, else the default. */
export function embedderSpecText(options: {flag?: string; env?: NodeJS.ProcessEnv}): string {
	const fromEnv = options.env?.[EMBEDDER_ENV];
	return options.flag?.trim() || fromEnv?.trim() || DEFAULT_EMBEDDER;
}

export type CreateEmbedderOptions = {
	/** Where downloaded models are cached (hf: only). @default modelCacheDir(env) */
	cacheDir?: string;
	/**
	 * A file remembering that the default model could not be loaded here. While it says so, the
	 * default is not tried again (every offline command used to retry the download and print the
	 * warning again); naming a model explicitly (flag or environment) always tries.
	 */
	failureFile?: string;
	/** True when the spec came from --embedder or the environment, not the default. */
	explicit?: boolean;
	/** Receives the fallback warning; the CLI passes stderr. */
	log?: (message: string) => void;
	cwd?: string;
};

export type EmbedderHandle = {
	embedder: Embedder;
	/** The spec that was asked for. */
	requested: string;
	/** Why the requested model could not be used, when the hash embedder stands in for it. */
	fallback?: string;
};

/**
 * Creates the embedder named by `spec`. A model that cannot be loaded (offline, missing files) is
 * reported through `log` and replaced by the hash embedder, so retrieval keeps working offline.
 */
export async function createEmbedder(spec: string, options: CreateEmbedderOptions = {}): Promise<EmbedderHandle> {
	const parsed = parseEmbedderSpec(spec, options.cwd);
	if (parsed.kind === 'hash') return {embedder: new HashEmbedder(parsed.dimension), requested: spec};
	const remembered = options.failureFile && !options.explicit ? readFailure(options.failureFile, spec) : null;
	if (remembered) return {embedder: new HashEmbedder(), requested: spec, fallback: `${remembered.reason} (on ${remembered.at.slice(0, 10)}; not tried again)`};
	try {
		const {loadTransformersEmbedder} = await import('./transformersEmbedder.js');
		const embedder = await loadTransformersEmbedder(parsed, {cacheDir: options.cacheDir});
		if (options.failureFile) rmSync(options.failureFile, {force: true});
		return {embedder, requested: spec};
	} catch (error) {
		const reason = errorMessage(error).split('\n')[0]!;
		options.log?.(
			`cultureconverse: cannot load embedder '${spec}' (${reason}); using the offline 'hash' embedder, which matches words rather than meaning. ` +
				`${options.failureFile && !options.explicit ? `This is remembered in ${options.failureFile}: the download is not tried again until you name the model (--embedder ${spec}) or delete that file. ` : ''}` +
				`To choose hash yourself: --embedder hash, or ${EMBEDDER_ENV}=hash.\n`,
		);
		if (options.failureFile && !options.explicit) {
			try {
				mkdirSync(path.dirname(options.failureFile), {recursive: true});
				writeFileSync(options.failureFile, JSON.stringify({spec, reason, at: new Date().toISOString()}));
			} catch {
				// A read-only workspace tries again next time.
			}
		}
		return {embedder: new HashEmbedder(), requested: spec, fallback: reason};
	}
}

/** The failure remembered for `spec` in `file` (its reason and when), or null. */
export function readFailure(file: string, spec: string): {reason: string; at: string} | null {
	try {
		const saved = JSON.parse(readFileSync(file, 'utf8')) as {spec?: unknown; reason?: unknown; at?: unknown};
		return saved.spec === spec && typeof saved.reason === 'string' && typeof saved.at === 'string' ? {reason: saved.reason, at: saved.at} : null;
	} catch {
		return null;
	}
}

/**
 * Where transformers.js keeps downloaded models: one shared copy per user, not one per working folder
 * (118 MB each). `$HF_HOME/transformers.js` when HF_HOME is set (Hugging Face's own convention for
 * its cache root), else `$XDG_CACHE_HOME/huggingface/transformers.js`, else `~/.cache/huggingface/transformers.js`.
 */
export function modelCacheDir(env: NodeJS.ProcessEnv = process.env): string {
	if (env['HF_HOME']?.trim()) return path.join(env['HF_HOME'], 'transformers.js');
	const cache = env['XDG_CACHE_HOME']?.trim() || path.join(env['HOME']?.trim() || homedir(), '.cache');
	return path.join(cache, 'huggingface', 'transformers.js');
}
