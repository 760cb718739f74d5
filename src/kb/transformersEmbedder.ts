import {closeSync, existsSync, openSync, readFileSync, readSync, statSync} from 'node:fs';
import path from 'node:path';
import {shortHash} from '../util/hash.js';
import type {EmbedOptions, Embedder, EmbedderSpec} from './embedder.js';
import {type EmbeddingProfile, type Pooling, prefixFor, profileForFolder, profileForModelId, profileTag} from './embeddingProfile.js';

type TransformersSpec = Exclude<EmbedderSpec, {kind: 'hash'}>;
type Extractor = ((texts: string[], options: {pooling: Pooling; normalize: boolean}) => Promise<{data: ArrayLike<number>; dims: number[]}>) & {tokenizer?: {padding_side?: string}};

/** Texts per forward pass: large enough to amortise the call, small enough to keep padding waste low. */
const BATCH = 16;

/** A feature-extraction pipeline from @huggingface/transformers, pooled per its profile and L2-normalised. */
class TransformersEmbedder implements Embedder {
	constructor(
		readonly id: string,
		readonly dimension: number,
		readonly profile: EmbeddingProfile,
		private readonly extractor: Extractor,
	) {}

	async embed(texts: readonly string[], options: EmbedOptions): Promise<Float32Array[]> {
		const prefix = prefixFor(this.profile, options.role);
		const out: Float32Array[] = [];
		for (let start = 0; start < texts.length; start += BATCH) {
			const batch = texts.slice(start, start + BATCH).map((text) => prefix + text);
			const tensor = await this.extractor(batch, {pooling: this.profile.pooling, normalize: true});
			const data = Float32Array.from(tensor.data);
			for (let i = 0; i < batch.length; i++) out.push(data.slice(i * this.dimension, (i + 1) * this.dimension));
		}
		return out;
	}
}

const loaded = new Map<string, Promise<Embedder>>();

/**
 * Loads a model once per process. `local:` never touches the network (allowRemoteModels=false);
 * `hf:` downloads into `cacheDir` on first use. Throws when the model cannot be loaded; the caller
 * decides to fall back.
 */
export function loadTransformersEmbedder(spec: TransformersSpec, options: {cacheDir?: string} = {}): Promise<Embedder> {
	const key = spec.kind === 'local' ? `local:${spec.folder}` : `hf:${spec.model}@${spec.dtype}`;
	let promise = loaded.get(key);
	if (!promise) {
		promise = load(spec, options);
		loaded.set(key, promise);
		// A failure is not cached: the next call (e.g. after going online) tries again.
		promise.catch(() => loaded.delete(key));
	}
	return promise;
}

async function load(spec: TransformersSpec, options: {cacheDir?: string}): Promise<Embedder> {
	const transformers = await import('@huggingface/transformers');
	const {env} = transformers;
	let modelId: string;
	let dtype: string;
	let idBase: string;
	let profile: EmbeddingProfile;
	if (spec.kind === 'local') {
		if (!existsSync(path.join(spec.folder, 'config.json'))) throw new Error(`no config.json in ${spec.folder}`);
		env.allowRemoteModels = false;
		env.allowLocalModels = true;
		env.localModelPath = `${path.dirname(spec.folder)}${path.sep}`;
		modelId = path.basename(spec.folder);
		const fp32 = existsSync(path.join(spec.folder, 'onnx', 'model.onnx'));
		dtype = fp32 ? 'fp32' : 'q8';
		idBase = `local:${modelId}@${localFingerprint(spec.folder, fp32 ? 'model.onnx' : 'model_quantized.onnx')}`;
		profile = profileForFolder(spec.folder);
	} else {
		env.allowRemoteModels = true;
		if (options.cacheDir) env.cacheDir = options.cacheDir;
		modelId = spec.model;
		dtype = spec.dtype;
		idBase = `hf:${spec.model}:${spec.dtype}`;
		profile = profileForModelId(spec.model);
	}
	const pipe = (await transformers.pipeline('feature-extraction', modelId, {dtype: dtype as never})) as unknown as Extractor;
	if (profile.padLeft && pipe.tokenizer) pipe.tokenizer.padding_side = 'left';
	// One probe both proves the model runs and tells its output width.
	const probe = await pipe(['dimension probe'], {pooling: profile.pooling, normalize: true});
	const dimension = probe.dims[probe.dims.length - 1]!;
	const tag = profileTag(profile);
	return new TransformersEmbedder(`${idBase}${tag ? `:${tag}` : ''}:${dimension}`, dimension, profile, pipe);
}

/**
 * Identifies a local model by content rather than by where it sits, so moving the folder keeps its
 * indexes while replacing the weights rebuilds them. The weights file is sampled (size plus three
 * 64 KiB windows) rather than read whole, which keeps this cheap for a 500 MB model and still
 * changes when a retrained model of the same architecture replaces it.
 */
function localFingerprint(folder: string, onnxFile: string): string {
	const parts = ['config.json', 'tokenizer.json'].map((name) => (existsSync(path.join(folder, name)) ? readFileSync(path.join(folder, name), 'utf8') : ''));
	const onnx = path.join(folder, 'onnx', onnxFile);
	if (existsSync(onnx)) {
		const size = statSync(onnx).size;
		parts.push(String(size));
		const fd = openSync(onnx, 'r');
		try {
			const window = Buffer.alloc(Math.min(65536, size));
			for (const at of [0, Math.floor((size - window.length) / 2), size - window.length]) {
				readSync(fd, window, 0, window.length, at);
				parts.push(window.toString('base64'));
			}
		} finally {
			closeSync(fd);
		}
	}
	return shortHash(parts.join('\0')).slice(0, 8);
}
