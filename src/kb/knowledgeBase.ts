import {existsSync, mkdirSync, readFileSync, rmSync, statSync} from 'node:fs';
import path from 'node:path';
import {writeFileAtomic} from '../util/atomicWrite.js';
import type {EvidenceHit} from '../domain/kb.js';
import {type DomainId, REGION_CODES, type RegionCode} from '../domain/universe.js';
import type {Universe} from '../universe/load.js';
import {errorMessage} from '../util/errors.js';
import {packageRoot, workspaceDir} from '../util/paths.js';
import {Bm25Index} from './bm25.js';
import {CorruptIndexError, INDEX_FILE, type IndexHeader, readIndexHeader} from './codec.js';
import {EMBEDDER_ENV, type Embedder, type EmbedderHandle, createEmbedder, embedderSpecText, modelCacheDir} from './embedder.js';
import {type IndexRecord, appliesKey, hitFromMetadata, tagKey, toRecord, type RecordMetadata} from './records.js';
import {TOPIC_HEAD_PER_SLOT, type TopicPrior, rankTopicFirst, reciprocalRankFusion, removeNearDuplicates, rerankByPersona, type Scored} from './rerank.js';
import {KB_KINDS, type KbKind, type KbLocation, type KbSources, listSourceFiles, loadKbSources, regionContentHashes, sourcesDigest} from './sources.js';
import {type KbCounts, countSources} from './stats.js';
import type {FileStorage} from 'vectra';
import type {OpenedIndex} from './vectraStore.js';

/** Metadata filters of a search. Every given field must match. */
export type KbFilter = {
	/** One region or several; all regions when absent. */
	region?: RegionCode | readonly RegionCode[];
	domain?: DomainId;
	/** Taboo category (one of the domain ids); for cultural passages it filters the domain. */
	category?: DomainId;
	/** Entries carrying at least one of these tags (`religion:islam`, `identity:my-tamil-hindu`, ...). */
	tags?: readonly string[];
	/** Taboo entries that apply to this identity: region-wide ones plus those listing it. */
	identity?: string;
};

export type SearchMode = 'dense' | 'hybrid';

export type KbSearchOptions = {
	kind: KbKind;
	/** @default 5 */
	topK?: number;
	filter?: KbFilter;
	/** Re-ranks candidates by the tags they share with this persona (identity, religion, ethnicity, ...). */
	persona?: {readonly tags: readonly string[]};
	/** Cosine at or above which a lower-ranked hit counts as a near-duplicate and is dropped; null keeps all. @default 0.92 */
	dedupeThreshold?: number | null;
	/** @default the knowledge base's mode (see OpenKnowledgeBaseOptions.mode) */
	mode?: SearchMode;
	/**
	 * Ranks topic first (issue 13): candidates come from the whole region and from the topic's domain,
	 * relevance is weighted by the domain/subdomain prior (`TOPIC_WEIGHTS`), and `persona` re-ranks only
	 * within the topical head. Without it, `persona` boosts each ranked list of the whole region.
	 */
	topic?: TopicPrior;
	/** Only entries written about one of the filter's regions, not those that list it as a secondary region. @default false */
	primaryOnly?: boolean;
};

export type BuildProgress = {phase: 'embed' | 'save' | 'done'; kind: KbKind; region: RegionCode; done: number; total: number};

export type OpenKnowledgeBaseOptions = {
	/** Shipped KB folder (holds cultural/ and taboo/). @default $CULTURECONVERSE_KB_DIR, else the package's kb/ */
	kbDir?: string;
	/** Workspace holding user imports (kb/) and indexes (index/). @default workspaceDir(env, cwd) */
	workspace?: string;
	/** An embedder spec (`hash`, `hf:<id>`, `local:<dir>`) or a ready embedder. @default $CULTURECONVERSE_EMBEDDER, else DEFAULT_EMBEDDER */
	embedder?: string | Embedder;
	/** Enables cross-checks of identity ids when sources are parsed. */
	universe?: Universe;
	env?: NodeJS.ProcessEnv;
	cwd?: string;
	/** Warnings and rebuild notices (the CLI passes stderr). */
	log?: (message: string) => void;
	/** Progress of index builds (the CLI draws a progress bar from it). */
	onProgress?: (event: BuildProgress) => void;
	/** @default defaultSearchMode(embedder id): hybrid for the hash embedder, dense for models (see src/kb/README.md) */
	mode?: SearchMode;
	/** Vectra storage for index files. @default AtomicFileStorage (temp file, fsync, rename) */
	storage?: FileStorage;
};

export type RegionIndexStatus = {kind: KbKind; region: RegionCode; entries: number; status: 'fresh' | 'stale' | 'missing' | 'corrupt' | 'empty'; reason?: string};

export type KbStats = KbCounts & {
	embedder: {id: string; dimension: number; requested: string; fallback: string | null};
	sources: {shipped: string; user: string; files: number; digest: string};
	indexDir: string;
};

export type BuildReport = {embedder: string; built: Array<{kind: KbKind; region: RegionCode; entries: number; ms: number; reason: string}>; upToDate: number; empty: number; ms: number};

/** What the KB knows about its sources without parsing them again: kept in `<workspace>/index/sources-state.json`. */
type SourcesState = {
	/** 2: counts gained namedSource and byDataset; a state of another version is derived again. */
	version: typeof STATE_VERSION;
	digest: string;
	crossChecked: boolean;
	regions: ReturnType<typeof regionContentHashes>;
	counts: KbCounts;
};

type LoadedRegion = {opened: OpenedIndex; bm25?: Bm25Index};
type Candidate = {metadata: RecordMetadata; vector: ArrayLike<number>; similarity: number};

const STATE_VERSION = 2;
const DEFAULT_TOP_K = 5;
/** The usual RRF constant (Cormack et al.); smaller values did not change the labelled-set results. */
const RRF_K = 60;
const DEFAULT_DEDUPE = 0.92;
const EMBED_BATCH = 256;

/**
 * The retrieval port (paper section 3.5): cultural passages (K_W) and taboo entries (K_T) from the
 * shipped KB plus the user's imports, one Vectra index per kind and region, built on demand and loaded
 * lazily. Queries are always region-filtered in practice, so a search touches only the regions it needs.
 */
export class KnowledgeBase {
	private parsed: KbSources | undefined;
	private readonly loaded = new Map<string, Promise<LoadedRegion | undefined>>();
	private vectra: Promise<typeof import('./vectraStore.js')> | undefined;

	private constructor(
		readonly location: KbLocation,
		readonly indexDir: string,
		private readonly handle: EmbedderHandle,
		private state: SourcesState,
		private readonly stateFile: string,
		private readonly options: OpenKnowledgeBaseOptions,
		parsed: KbSources | undefined,
	) {
		this.parsed = parsed;
	}

	/**
	 * Opens the KB: resolves folders and the embedder (falling back to `hash` with a warning when a model
	 * cannot be loaded) and checks the sources. Nothing is embedded or loaded until a search needs it.
	 * @example const kb = await KnowledgeBase.open({env: process.env, log: (m) => process.stderr.write(m)});
	 */
	static async open(options: OpenKnowledgeBaseOptions = {}): Promise<KnowledgeBase> {
		const env = options.env ?? process.env;
		const cwd = options.cwd ?? process.cwd();
		const workspace = options.workspace ?? workspaceDir(env, cwd);
		const location = resolveKbLocation({env, cwd, kbDir: options.kbDir, workspace});
		const handle: EmbedderHandle =
			typeof options.embedder === 'object'
				? {embedder: options.embedder, requested: options.embedder.id}
				: await createEmbedder(embedderSpecText({flag: options.embedder, env}), {
						cacheDir: modelCacheDir(env),
						failureFile: path.join(workspace, 'embedder-unavailable.json'),
						explicit: Boolean(options.embedder?.trim() || env[EMBEDDER_ENV]?.trim()),
						log: options.log,
						cwd,
					});
		const indexRoot = path.join(workspace, 'index');
		const stateFile = path.join(indexRoot, 'sources-state.json');
		const digest = sourcesDigest(listSourceFiles(location));
		let state = readState(stateFile);
		let parsed: KbSources | undefined;
		if (!state || state.digest !== digest || (options.universe && !state.crossChecked)) {
			parsed = loadKbSources(location, {universe: options.universe});
			state = {version: STATE_VERSION, digest: parsed.digest, crossChecked: Boolean(options.universe), regions: regionContentHashes(parsed), counts: countSources(parsed)};
			writeState(stateFile, state);
		}
		return new KnowledgeBase(location, path.join(indexRoot, slug(handle.embedder.id)), handle, state, stateFile, options, parsed);
	}

	get embedder(): Embedder {
		return this.handle.embedder;
	}

	get embedderId(): string {
		return this.handle.embedder.id;
	}

	/** Counts per kind, region, domain, category and severity, plus the embedder in use. Needs no index. */
	stats(): KbStats {
		return {
			...this.state.counts,
			embedder: {id: this.embedderId, dimension: this.embedder.dimension, requested: this.handle.requested, fallback: this.handle.fallback ?? null},
			sources: {shipped: this.location.shippedDir, user: this.location.userDir, files: Object.keys(this.state.counts.byFile).length, digest: this.state.digest},
			indexDir: this.indexDir,
		};
	}

	/** Whether each region index on disk matches the current sources and embedder (reads headers only). */
	indexStatus(): RegionIndexStatus[] {
		const out: RegionIndexStatus[] = [];
		for (const kind of KB_KINDS) for (const region of REGION_CODES) out.push(this.regionStatus(kind, region));
		return out;
	}

	/**
	 * Builds every index that is missing, stale or corrupt (or all of them with `force`). A build that
	 * is killed leaves the previous file or none (saves are atomic), and the next run rebuilds.
	 */
	async build(options: {force?: boolean; kinds?: readonly KbKind[]; regions?: readonly RegionCode[]; onProgress?: (event: BuildProgress) => void} = {}): Promise<BuildReport> {
		const started = performance.now();
		const report: BuildReport = {embedder: this.embedderId, built: [], upToDate: 0, empty: 0, ms: 0};
		for (const kind of options.kinds ?? KB_KINDS) {
			for (const region of options.regions ?? REGION_CODES) {
				const status = this.regionStatus(kind, region);
				if (status.status === 'empty') {
					report.empty++;
					continue;
				}
				if (status.status === 'fresh' && !options.force) {
					report.upToDate++;
					continue;
				}
				const t0 = performance.now();
				await this.buildRegion(kind, region, options.onProgress);
				report.built.push({kind, region, entries: status.entries, ms: Math.round(performance.now() - t0), reason: options.force && status.status === 'fresh' ? 'forced' : status.reason ?? status.status});
			}
		}
		report.ms = Math.round(performance.now() - started);
		return report;
	}

	/**
	 * Searches one kind of entry. Candidates (a pool of 4x top-k per region) come from Vectra's cosine
	 * scan with the metadata filter applied inside the index; they are merged across regions,
	 * optionally fused with BM25, re-ranked by persona tags, de-duplicated and cut to top-k. Every hit
	 * keeps its id, source, score, raw similarity and rank.
	 */
	async search(query: string, options: KbSearchOptions): Promise<EvidenceHit[]> {
		const topK = options.topK ?? DEFAULT_TOP_K;
		if (topK <= 0 || query.trim() === '') return [];
		const filter = options.filter ?? {};
		const regions = filter.region === undefined ? REGION_CODES : typeof filter.region === 'string' ? [filter.region] : filter.region;
		const [vector] = await this.embedder.embed([query], {role: 'query'});
		if (!vector || !vector.some((value) => value !== 0)) return [];
		const store = await this.store();
		const vectraFilter = toVectraFilter(options.kind, filter);
		const mode = options.mode ?? this.options.mode ?? defaultSearchMode(this.embedderId);
		const topic = options.topic;
		// The topical prior reorders a wider pool, so it gets more candidates than a plain search.
		const pool = topic ? Math.max(topK * 6, 40) : Math.max(topK * 4, 20);
		// With a topic, candidates come from the whole region and from the topic's domain: an on-topic
		// passage with modest similarity still gets its chance against the prior.
		const filters = topic ? uniqueFilters([vectraFilter, toVectraFilter(options.kind, {...filter, domain: topic.domain as DomainId})]) : [vectraFilter];
		const primaryOk = (metadata: RecordMetadata) => !options.primaryOnly || regions.includes(primaryRegion(metadata));
		const candidates = new Map<string, Candidate>();
		const dense: Candidate[] = [];
		const lexical: Array<{candidate: Candidate; score: number}> = [];
		for (const region of regions) {
			const loaded = await this.region(options.kind, region);
			if (!loaded) continue;
			for (const one of filters) {
				for (const result of await store.queryIndex(loaded.opened, vector, pool, one)) {
					if (!Number.isFinite(result.score) || !primaryOk(result.item.metadata as RecordMetadata)) continue;
					dense.push(remember(candidates, {metadata: result.item.metadata as RecordMetadata, vector: result.item.vector, similarity: result.score}));
				}
			}
			if (mode === 'hybrid') {
				loaded.bm25 ??= new Bm25Index(loaded.opened.items.map((item) => `${String(item.metadata['title'])}. ${String(item.metadata['text'])}`));
				const items = loaded.opened.items;
				const lists = filters.map((one) => loaded.bm25!.search(query, pool, one ? (index: number) => store.matchesFilter(items[index]!.metadata, one) : undefined));
				// BM25 scores depend on each region's statistics; scaling by the region's best makes lists of
				// several regions comparable (and one region's filtered and unfiltered lists share the scale).
				const top = Math.max(...lists.map((hits) => hits[0]?.score ?? 0)) || 1;
				for (const hits of lists) {
					for (const hit of hits) {
						const item = items[hit.index]!;
						if (!primaryOk(item.metadata as RecordMetadata)) continue;
						lexical.push({candidate: remember(candidates, {metadata: item.metadata as RecordMetadata, vector: item.vector, similarity: cosineToQuery(vector, item.vector)}), score: hit.score / top});
					}
				}
			}
		}
		const tagsOf = (candidate: Candidate) => splitTags(candidate.metadata);
		let ranked: Array<Scored<Candidate>>;
		if (topic) {
			const lexicalById = new Map<string, number>();
			for (const {candidate, score} of lexical) {
				const id = String(candidate.metadata['id']);
				lexicalById.set(id, Math.max(lexicalById.get(id) ?? 0, score));
			}
			ranked = rankTopicFirst(
				[...candidates.values()].map((candidate) => ({
					item: candidate,
					similarity: candidate.similarity,
					lexical: lexicalById.get(String(candidate.metadata['id'])) ?? 0,
					domain: String(candidate.metadata['domain']),
					subdomains: splitList(candidate.metadata['subdomains']),
					tags: tagsOf(candidate),
				})),
				{topic, personaTags: options.persona?.tags, head: Math.max(topK * TOPIC_HEAD_PER_SLOT, topK + 2), hybrid: mode === 'hybrid'},
			);
		} else {
			// Persona re-ranking happens inside each ranked list, on its own score scale (cosine, BM25), so a
			// boost moves a passage past others of similar relevance only. Applied after rank fusion instead,
			// it swamped relevance: RRF scores of ranks 1 and 20 differ by a fifth, less than one identity boost.
			const denseRanked = rerankByPersona(unique(dense).map((item) => ({item, similarity: item.similarity})), tagsOf, options.persona?.tags);
			if (mode === 'hybrid') {
				const lexicalRanked = rerankByPersona(uniqueBy([...lexical].sort((a, b) => b.score - a.score), (entry) => String(entry.candidate.metadata['id'])).map(({candidate, score}) => ({item: candidate, similarity: score})), tagsOf, options.persona?.tags);
				const fused = reciprocalRankFusion([denseRanked, lexicalRanked].map((list) => list.map((scored) => String(scored.item.metadata['id']))), RRF_K);
				// Divided by the best possible RRF score (rank 1 in both lists), so scores read 0..1.
				const best = 2 / (RRF_K + 1);
				ranked = [...fused.entries()]
					.map(([id, score]) => ({item: candidates.get(id)!, similarity: candidates.get(id)!.similarity, score: score / best}))
					.sort((a, b) => b.score - a.score || b.similarity - a.similarity);
			} else {
				ranked = denseRanked;
			}
		}
		const threshold = options.dedupeThreshold === undefined ? DEFAULT_DEDUPE : options.dedupeThreshold;
		const kept = threshold === null ? ranked.slice(0, topK) : removeNearDuplicates(ranked, (scored) => scored.item.vector, threshold, topK);
		return kept.map((scored, index) => hitFromMetadata(scored.item.metadata, {score: scored.score, similarity: scored.item.similarity, rank: index + 1}));
	}

	private regionStatus(kind: KbKind, region: RegionCode): RegionIndexStatus {
		const expected = this.state.regions[kind][region];
		if (expected.count === 0) return {kind, region, entries: 0, status: 'empty'};
		const file = path.join(this.regionDir(kind, region), INDEX_FILE);
		if (!existsSync(file)) return {kind, region, entries: expected.count, status: 'missing', reason: 'not built yet'};
		let header: IndexHeader;
		try {
			header = readIndexHeader(file);
		} catch (error) {
			return {kind, region, entries: expected.count, status: 'corrupt', reason: errorMessage(error)};
		}
		const reason = staleReason(header, {embedder: this.embedderId, dimension: this.embedder.dimension, contentHash: expected.hash, kind, region});
		return reason ? {kind, region, entries: expected.count, status: 'stale', reason} : {kind, region, entries: expected.count, status: 'fresh'};
	}

	private regionDir(kind: KbKind, region: RegionCode): string {
		return path.join(this.indexDir, kind, region);
	}

	/** Loads a region index once, building it first when it is missing, stale or fails verification. */
	private region(kind: KbKind, region: RegionCode): Promise<LoadedRegion | undefined> {
		const key = `${kind}/${region}`;
		let promise = this.loaded.get(key);
		if (!promise) {
			promise = this.loadRegion(kind, region);
			this.loaded.set(key, promise);
			promise.catch(() => this.loaded.delete(key));
		}
		return promise;
	}

	private async loadRegion(kind: KbKind, region: RegionCode): Promise<LoadedRegion | undefined> {
		const status = this.regionStatus(kind, region);
		if (status.status === 'empty') return undefined;
		if (status.status !== 'fresh') await this.buildOnce(kind, region);
		const store = await this.store();
		try {
			return {opened: await store.openIndex(this.regionDir(kind, region), this.options.storage)};
		} catch (error) {
			if (!(error instanceof CorruptIndexError)) throw error;
			// The header looked right but the body does not verify (torn copy, disk damage): rebuild once.
			this.options.log?.(`cultureconverse: index ${kind}/${region} is corrupt (${error.message}); rebuilding it\n`);
			await this.buildOnce(kind, region, true);
			return {opened: await store.openIndex(this.regionDir(kind, region), this.options.storage)};
		}
	}

	/**
	 * Builds a missing or stale region index unless another builder is at it: worker threads of one
	 * batch, or several batches sharing one workspace, would otherwise build the same index at once and
	 * read each other's half-written files (seen as evidence failures in a fresh workspace). A
	 * `<region>.building` folder marks the build (mkdir is atomic across threads and processes); a
	 * waiter uses the index once it is fresh, and a marker older than ten minutes is a builder that
	 * died, taken over.
	 */
	private async buildOnce(kind: KbKind, region: RegionCode, corrupt = false): Promise<void> {
		const marker = `${this.regionDir(kind, region)}.building`;
		mkdirSync(path.dirname(marker), {recursive: true});
		for (const started = Date.now(); ; ) {
			try {
				mkdirSync(marker);
			} catch (error) {
				if ((error as NodeJS.ErrnoException).code !== 'EEXIST') throw error;
				let age = 0;
				try {
					age = Date.now() - statSync(marker).mtimeMs;
				} catch {
					continue; // gone between the two calls: try to take it
				}
				if (age > 10 * 60_000) rmSync(marker, {recursive: true, force: true});
				else if (Date.now() - started > 10 * 60_000) throw new Error(`index ${kind}/${region} is being built by someone else (${marker}) for over ten minutes`);
				else await new Promise((resolve) => setTimeout(resolve, 100));
				continue;
			}
			try {
				// Built by someone else while this one waited for the marker: nothing to do.
				const status = this.regionStatus(kind, region);
				if (status.status === 'fresh' && !corrupt) return;
				if (!corrupt) this.options.log?.(`cultureconverse: index ${kind}/${region} is ${status.status}${status.reason ? ` (${status.reason})` : ''}; building it (${status.entries} entries)\n`);
				await this.buildRegion(kind, region);
				return;
			} finally {
				rmSync(marker, {recursive: true, force: true});
			}
		}
	}

	private async buildRegion(kind: KbKind, region: RegionCode, onProgress = this.options.onProgress): Promise<void> {
		const sources = this.sources();
		const entries = sources[kind].filter(({entry}) => (kind === 'cultural' ? (entry as {regions: RegionCode[]}).regions.includes(region) : (entry as {region: RegionCode}).region === region));
		const records: IndexRecord[] = entries.map(({entry}) => toRecord(kind, entry));
		const vectors: Int8Array[] = [];
		const total = records.length;
		onProgress?.({phase: 'embed', kind, region, done: 0, total});
		for (let start = 0; start < total; start += EMBED_BATCH) {
			const batch = await this.embedder.embed(records.slice(start, start + EMBED_BATCH).map((record) => record.text), {role: 'passage'});
			// Quantised as they come, so a large region never holds its float32 vectors all at once.
			for (const vector of batch) vectors.push(quantize(vector));
			onProgress?.({phase: 'embed', kind, region, done: Math.min(start + EMBED_BATCH, total), total});
		}
		onProgress?.({phase: 'save', kind, region, done: total, total});
		const store = await this.store();
		await store.writeIndex({
			dir: this.regionDir(kind, region),
			info: {kind, region, embedder: this.embedderId, dimension: this.embedder.dimension, contentHash: this.state.regions[kind][region].hash, builtAt: new Date().toISOString()},
			records,
			vectors,
			storage: this.options.storage,
		});
		this.loaded.delete(`${kind}/${region}`);
		onProgress?.({phase: 'done', kind, region, done: total, total});
	}

	/** Parsed sources, read on first need (a build); the state file lets searches skip parsing. */
	private sources(): KbSources {
		if (!this.parsed) {
			this.parsed = loadKbSources(this.location, {universe: this.options.universe});
			if (this.parsed.digest !== this.state.digest) {
				// The files changed since open(): adopt the new content so indexes match what was embedded.
				this.state = {version: STATE_VERSION, digest: this.parsed.digest, crossChecked: Boolean(this.options.universe), regions: regionContentHashes(this.parsed), counts: countSources(this.parsed)};
				writeState(this.stateFile, this.state);
			}
		}
		return this.parsed;
	}

	private store(): Promise<typeof import('./vectraStore.js')> {
		this.vectra ??= import('./vectraStore.js');
		return this.vectra;
	}
}

/**
 * Hybrid (dense + BM25, rank-fused) where it was measured to help: with the hash embedder, fusion raised
 * MRR@10 from 0.771 to 0.815 on the labelled set in test/fixtures/kb-eval (46 queries; 5 improved, none
 * worse). Model embedders stay dense until the same measurement (test/bench/kb-eval.ts) shows a gain.
 */
export function defaultSearchMode(embedderId: string): SearchMode {
	return embedderId.startsWith('hash:') ? 'hybrid' : 'dense';
}

/**
 * The shipped KB folder ($CULTURECONVERSE_KB_DIR, as src/main.ts reads it, else the package's kb/) and
 * the user folder `<workspace>/kb` that `kb import` writes to.
 */
export function resolveKbLocation(options: {env: NodeJS.ProcessEnv; cwd: string; kbDir?: string; workspace?: string}): KbLocation {
	const fromEnv = options.env['CULTURECONVERSE_KB_DIR'];
	const shippedDir = options.kbDir ?? (fromEnv ? path.resolve(options.cwd, fromEnv) : path.join(packageRoot(), 'kb'));
	return {shippedDir, userDir: path.join(options.workspace ?? workspaceDir(options.env, options.cwd), 'kb')};
}

/** Candidates in descending similarity, each id once (a passage tagged with two searched regions is met twice). */
function unique(list: readonly Candidate[]): Candidate[] {
	return uniqueBy([...list].sort((a, b) => b.similarity - a.similarity), (c) => String(c.metadata['id']));
}

/** The first occurrence of each key, in order. */
function uniqueBy<T>(list: readonly T[], key: (item: T) => string): T[] {
	const seen = new Set<string>();
	return list.filter((item) => {
		const k = key(item);
		if (seen.has(k)) return false;
		seen.add(k);
		return true;
	});
}

function remember(candidates: Map<string, Candidate>, candidate: Candidate): Candidate {
	const id = String(candidate.metadata['id']);
	const existing = candidates.get(id);
	// A passage tagged with two searched regions is found twice; keep one copy with the better score.
	if (!existing || candidate.similarity > existing.similarity) candidates.set(id, candidate);
	return candidates.get(id)!;
}

function cosineToQuery(query: Float32Array, vector: ArrayLike<number>): number {
	let dot = 0;
	let qq = 0;
	let vv = 0;
	for (let i = 0; i < query.length; i++) {
		dot += query[i]! * vector[i]!;
		qq += query[i]! * query[i]!;
		vv += vector[i]! * vector[i]!;
	}
	return qq === 0 || vv === 0 ? 0 : dot / Math.sqrt(qq * vv);
}

function splitList(value: unknown): string[] {
	return typeof value === 'string' && value !== '' ? value.split('|') : [];
}

function splitTags(metadata: RecordMetadata): string[] {
	// A taboo entry that lists identities applies to them as if it were tagged with each of them.
	const identities = metadata['kind'] === 'taboo' ? splitList(metadata['identities']).map((id) => `identity:${id}`) : [];
	return [...splitList(metadata['tags']), ...identities];
}

/** The region an entry is written about: its first region. */
function primaryRegion(metadata: RecordMetadata): RegionCode {
	return (typeof metadata['primary'] === 'string' ? metadata['primary'] : String(metadata['regions']).split('|')[0]) as RegionCode;
}

/** The distinct filters of a list, by their JSON form (undefined for "no filter" counts once). */
function uniqueFilters(filters: ReadonlyArray<Record<string, unknown> | undefined>): Array<Record<string, unknown> | undefined> {
	const seen = new Set<string>();
	return filters.filter((filter) => {
		const key = JSON.stringify(filter ?? null);
		if (seen.has(key)) return false;
		seen.add(key);
		return true;
	});
}

/** Why an index on disk does not match what is expected, or undefined when it does. */
export function staleReason(header: IndexHeader, expected: {embedder: string; dimension: number; contentHash: string; kind: string; region: string}): string | undefined {
	if (header.kind !== expected.kind || header.region !== expected.region) return `it holds ${header.kind}/${header.region}`;
	if (header.embedder !== expected.embedder) return `built with embedder ${header.embedder}, now ${expected.embedder}`;
	if (header.dimension !== expected.dimension) return `dimension ${header.dimension}, now ${expected.dimension}`;
	if (header.contentHash !== expected.contentHash) return 'sources changed';
	return undefined;
}

/** Translates a KbFilter into Vectra's Pinecone-style metadata filter (region is the index itself). */
export function toVectraFilter(kind: KbKind, filter: KbFilter): Record<string, unknown> | undefined {
	const clauses: Array<Record<string, unknown>> = [];
	if (filter.domain) clauses.push({domain: {$eq: filter.domain}});
	if (filter.category) clauses.push(kind === 'taboo' ? {category: {$eq: filter.category}} : {domain: {$eq: filter.category}});
	if (filter.tags && filter.tags.length > 0) clauses.push({$or: filter.tags.map((tag) => ({[tagKey(tag)]: {$eq: true}}))});
	if (filter.identity && kind === 'taboo') clauses.push({$or: [{scope: {$eq: 'region'}}, {[appliesKey(filter.identity)]: {$eq: true}}]});
	return clauses.length === 0 ? undefined : clauses.length === 1 ? clauses[0] : {$and: clauses};
}

function quantize(vector: Float32Array): Int8Array {
	const out = new Int8Array(vector.length);
	let max = 0;
	for (let i = 0; i < vector.length; i++) max = Math.max(max, Math.abs(vector[i]!));
	if (max === 0) return out;
	const scale = 127 / max;
	for (let i = 0; i < vector.length; i++) out[i] = Math.round(vector[i]! * scale);
	return out;
}

/** Folder name for an embedder id: `hash:v1:384` -> `hash_v1_384`, `hf:owner/model:q8:384` -> `hf_owner_model_q8_384`. */
export function slug(embedderId: string): string {
	return embedderId.replace(/[^A-Za-z0-9._@-]+/g, '_');
}

function readState(file: string): SourcesState | undefined {
	try {
		const state = JSON.parse(readFileSync(file, 'utf8')) as SourcesState;
		return state.version === STATE_VERSION && typeof state.digest === 'string' && state.regions && state.counts ? state : undefined;
	} catch {
		return undefined;
	}
}

/** Best effort and atomic: a lost state file only costs one re-parse of the sources. */
function writeState(file: string, state: SourcesState): void {
	try {
		writeFileAtomic(file, JSON.stringify(state));
	} catch {
		// A read-only workspace still works; it just parses the sources every time.
	}
}
