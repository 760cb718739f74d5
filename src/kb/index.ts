/**
 * The knowledge-base module's public surface (see src/kb/README.md). The blueprint stage needs only
 * `KnowledgeBase.open` and `retrieveEvidence` (or `createEvidenceSource`, the engine's adapter).
 */
export {KnowledgeBase, defaultSearchMode, resolveKbLocation} from './knowledgeBase.js';
export type {BuildProgress, BuildReport, KbFilter, KbSearchOptions, KbStats, OpenKnowledgeBaseOptions, RegionIndexStatus, SearchMode} from './knowledgeBase.js';
export {DEFAULT_K, RETRIEVAL_RANKINGS, retrieveEvidence, secondaryRegion} from './retrieve.js';
export type {RetrievalRanking, RetrieveEvidenceOptions} from './retrieve.js';
export {culturalQueryText, filledSketch, queryContext, tabooQueryText, topicalQueryText, topicalTabooQueryText} from './queries.js';
export type {QueryContext} from './queries.js';
export type {TopicPrior} from './rerank.js';
export {createEvidenceSource} from './evidenceSource.js';
export {DEFAULT_EMBEDDER, EMBEDDER_ENV, createEmbedder, embedderSpecText, parseEmbedderSpec} from './embedder.js';
export type {Embedder, EmbedderHandle, EmbedderSpec, EmbedRole} from './embedder.js';
export {HashEmbedder} from './hashEmbedder.js';
export {IMPORT_FORMATS, importKb} from './importers/index.js';
export type {ImportFormat, ImportOptions, ImportSummary} from './importers/index.js';
export type {KbKind, KbLocation} from './sources.js';
