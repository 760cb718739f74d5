import type {Evidence} from '../domain/kb.js';
import type {EvidenceSource} from '../episode/engine.js';
import type {Universe} from '../universe/load.js';
import {HashEmbedder} from './hashEmbedder.js';
import path from 'node:path';
import {workspaceDir} from '../util/paths.js';
import {EMBEDDER_ENV, embedderSpecText, parseEmbedderSpec, readFailure} from './embedder.js';
import {KnowledgeBase} from './knowledgeBase.js';
import {retrieveEvidence} from './retrieve.js';

export type EvidenceSourceOptions = {
	universe: Universe;
	env: NodeJS.ProcessEnv;
	cwd: string;
	/** `--embedder` flag value; else $CULTURECONVERSE_EMBEDDER, else the default model. */
	embedder?: string;
	/** One-line warnings (embedder fallback, index rebuilds), without the "cultureconverse: " prefix. */
	warn?: (message: string) => void;
	/** Top-k of K_W and K_T. @default DEFAULT_K */
	k?: {cultural?: number; taboo?: number};
};

/**
 * The engine's EvidenceSource over the KB. The KB is opened on the first episode that needs evidence
 * (opening may load a model), then reused for every later seed in the process.
 */
export function createEvidenceSource(options: EvidenceSourceOptions): {source: EvidenceSource; embedderId: () => string} {
	let kb: Promise<KnowledgeBase> | undefined;
	let opened: KnowledgeBase | undefined;
	const spec = embedderSpecText({flag: options.embedder, env: options.env});
	const log = (message: string) => options.warn?.(message.replace(/^cultureconverse: /, '').trimEnd());
	const open = () => {
		// The flag as given (not the resolved spec): a default that failed is remembered only when nobody named it (kb/embedder.ts).
		kb ??= KnowledgeBase.open({universe: options.universe, env: options.env, cwd: options.cwd, embedder: options.embedder, log}).then((value) => (opened = value));
		kb.catch(() => (kb = undefined));
		return kb;
	};
	// A default that failed before and is remembered will be hash (kb/embedder.ts): the session's config says so from its start.
	const remembered = () => !options.embedder?.trim() && !options.env[EMBEDDER_ENV]?.trim() && readFailure(path.join(workspaceDir(options.env, options.cwd), 'embedder-unavailable.json'), spec) !== null;
	const source: EvidenceSource = async ({seed, persona, template, universe}): Promise<Evidence> => retrieveEvidence({universe, seed, persona, template, kb: await open(), k: options.k});
	return {
		source,
		/** The id recorded in indexes once the KB is open; before that, the best prediction from the spec. */
		embedderId: () => opened?.embedderId ?? (remembered() ? new HashEmbedder().id : predictedId(spec, options.cwd)),
	};
}

function predictedId(spec: string, cwd: string): string {
	try {
		const parsed = parseEmbedderSpec(spec, cwd);
		return parsed.kind === 'hash' ? new HashEmbedder(parsed.dimension).id : spec;
	} catch {
		return spec;
	}
}
