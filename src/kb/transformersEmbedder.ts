import {closeSync, existsSync, openSync, readFileSync, readSync, statSync} from 'node:fs';
import path from 'node:path';
import {shortHash} from '../util/hash.js';
import type {EmbedOptions, EmbedRole, Embedder, EmbedderSpec} from './embedder.js';

type TransformersSpec = Exclude<EmbedderSpec, {kind: 'hash'}>;
type Extractor = (texts: string[], options: {pooling: 'mean'; normalize: boolean}) => Promise<{data: ArrayLike<number>; dims: number[]}>;

/** Texts per forward pass: large enough to amortise the call, small enough to keep padding waste low. */
const BATCH = 16;

/**
 * Instruction prefixes of asymmetric retrievers. e5 models were trained with "query: " and
 * "passage: " and lose accuracy without them; other models get the text unchanged.
 */
export function rolePrefix(model: string, role: EmbedRole): string {
	if (/(^|\/)(multilingual-)?e5-/i.test(model)) return role === 'query' ? 'query: ' : 'passage: ';
	return '';
}

/** A feature-extraction pipeline from @huggingface/transformers, mean-pooled and L2-normalised. */
class TransformersEmbedder implements Embedder {
	constructor(
		readonly id: string,
		readonly dimension: number,
		private readonly model: string,
		private readonly extractor: Extractor,
	) {}

	async embed(texts: readonly string[], options: EmbedOptions): Promise<Float32Array[]> {
		const prefix = rolePrefix(this.model, options.role);
		const out: Float32Array[] = [];
		for (let start = 0; start < texts.length; start += BATCH) {
			const batch = texts.slice(start, start + BATCH).map((text) => prefix + text);
			const tensor = await this.extractor(batch, {pooling: 'mean', normalize: true});
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
	if (spec.kind === 'local') {
		if (!existsSync(path.join(spec.folder, 'config.json'))) throw new Error(`no config.json in ${spec.folder}`);
		env.allowRemoteModels = false;
		env.allowLocalModels = true;
		env.localModelPath = `${path.dirname(spec.folder)}${path.sep}`;
		modelId = path.basename(spec.folder);
		const fp32 = existsSync(path.join(spec.folder, 'onnx', 'model.onnx'));
		dtype = fp32 ? 'fp32' : 'q8';
		idBase = `local:${modelId}@${localFingerprint(spec.folder, fp32 ? 'model.onnx' : 'model_quantized.onnx')}`;
	} else {
		env.allowRemoteModels = true;
		if (options.cacheDir) env.cacheDir = options.cacheDir;
		modelId = spec.model;
		dtype = spec.dtype;
		idBase = `hf:${spec.model}:${spec.dtype}`;
	}
	const pipe = (await transformers.pipeline('feature-extraction', modelId, {dtype: dtype as never})) as unknown as Extractor;
	// One probe both proves the model runs and tells its output width.
	const probe = await pipe(['dimension probe'], {pooling: 'mean', normalize: true});
	const dimension = probe.dims[probe.dims.length - 1]!;
	return new TransformersEmbedder(`${idBase}:${dimension}`, dimension, modelId, pipe);
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
