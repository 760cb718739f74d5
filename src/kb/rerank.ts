/**
 * Pure scoring functions for retrieval: persona-tag boosts, rank fusion and near-duplicate removal.
 * Kept free of I/O so each rule is tested on its own.
 */

/**
 * How much one shared tag lifts a candidate, as a fraction of its score in one ranked list. An entry
 * written about the persona's own identity is the strongest signal; religion, ethnicity, locality and
 * indigeneity narrow the group; the language tag is shared by most entries of a region, so it barely
 * discriminates. Tuned on test/fixtures/kb-eval (see src/kb/README.md): these values put the asking
 * identity's passage first in 15 of 21 persona queries (5 without) and raised K_W recall@6 on the
 * template+persona queries from 0.65 to 0.78; doubling them again lost recall.
 */
export const TAG_WEIGHTS = {identity: 0.6, religion: 0.2, ethnicity: 0.2, locality: 0.16, indigenous: 0.2, lang: 0.04} as const;

/** Cap on the summed boost: at most doubles a candidate's score within its list. */
export const MAX_BOOST = 1;

/** Summed weight of the persona tags an entry shares. */
export function personaBoost(personaTags: readonly string[], entryTags: readonly string[]): number {
	if (personaTags.length === 0 || entryTags.length === 0) return 0;
	const entry = new Set(entryTags);
	let boost = 0;
	for (const tag of personaTags) {
		if (!entry.has(tag)) continue;
		const family = (tag.includes(':') ? tag.slice(0, tag.indexOf(':')) : tag) as keyof typeof TAG_WEIGHTS;
		boost += TAG_WEIGHTS[family] ?? 0;
	}
	return Math.min(boost, MAX_BOOST);
}

export type Scored<T> = {item: T; similarity: number; score: number};

/**
 * Re-ranks one list of candidates by score x (1 + persona boost), stable for ties. The boost is a
 * factor, not an addend, and it is applied to each ranker's own scores (cosine, BM25) before rank
 * fusion, so it decides between passages of similar relevance without lifting one that merely shares
 * the persona's identity over one that answers the query. (An additive boost, or one applied to the
 * flat RRF scores, put "Thaipusam at Batu Caves" first for a Tamil Hindu asking about wedding food.)
 */
export function rerankByPersona<T>(candidates: ReadonlyArray<{item: T; similarity: number}>, tagsOf: (item: T) => readonly string[], personaTags: readonly string[] | undefined): Array<Scored<T>> {
	return candidates
		.map((candidate, order) => ({...candidate, score: candidate.similarity * (1 + (personaTags ? personaBoost(personaTags, tagsOf(candidate.item)) : 0)), order}))
		.sort((a, b) => b.score - a.score || b.similarity - a.similarity || a.order - b.order)
		.map(({order: _, ...rest}) => rest);
}

/** Cosine of two vectors of any numeric array type (int8 index vectors included). */
export function cosine(a: ArrayLike<number>, b: ArrayLike<number>): number {
	let dot = 0;
	let na = 0;
	let nb = 0;
	for (let i = 0; i < a.length; i++) {
		dot += a[i]! * b[i]!;
		na += a[i]! * a[i]!;
		nb += b[i]! * b[i]!;
	}
	return na === 0 || nb === 0 ? 0 : dot / Math.sqrt(na * nb);
}

/**
 * Greedy near-duplicate removal in rank order: a candidate is dropped when its cosine with one
 * already kept reaches `threshold`. Imported Wikipedia chunks and entries copied across regions
 * otherwise fill K_W with one fact several times.
 */
export function removeNearDuplicates<T>(ranked: readonly T[], vectorOf: (item: T) => ArrayLike<number>, threshold: number, limit = Number.POSITIVE_INFINITY): T[] {
	const kept: T[] = [];
	for (const item of ranked) {
		if (kept.length >= limit) break;
		const vector = vectorOf(item);
		if (kept.every((other) => cosine(vector, vectorOf(other)) < threshold)) kept.push(item);
	}
	return kept;
}

/**
 * Reciprocal rank fusion (Cormack et al. 2009): sum of 1 / (k + rank) over the lists an id appears
 * in. It needs no score calibration between BM25 and cosine, which live on different scales.
 */
export function reciprocalRankFusion(lists: ReadonlyArray<readonly string[]>, k = 60): Map<string, number> {
	const fused = new Map<string, number>();
	for (const list of lists) list.forEach((id, index) => fused.set(id, (fused.get(id) ?? 0) + 1 / (k + index + 1)));
	return fused;
}

/** What a seed's evidence should be about: its template's domain and subdomain. */
export type TopicPrior = {domain: string; subdomain?: string};

/**
 * Topical priors of the topic-first ranking, as factors on a candidate's relevance. A passage tagged
 * with the template's subdomain keeps its full relevance, one elsewhere in the domain half of it, and
 * an off-domain passage a fifth: it must be far more relevant than the on-topic ones to get into K_W.
 * Tuned on test/fixtures/kb-retrieval with the hash embedder (src/kb/README.md): the first setting
 * tried, 1 / 0.8 / 0.45, measured nDCG@6 0.470 against 0.513 and let single passages of the small
 * Brunei KB into a quarter of a persona's K_W sets. An entry of the domain that names no subdomains
 * (an import: Wikipedia chunks, NormAd rows) is neither on nor off the subdomain, so it sits between.
 */
export const TOPIC_WEIGHTS = {subdomain: 1, domain: 0.5, offDomain: 0.2, untagged: 0.75};

/** How many topical candidates per K_W slot the persona stage may choose from (3 measured no better). */
export const TOPIC_HEAD_PER_SLOT = 2;

export function topicFactor(entry: {domain: string; subdomains: readonly string[]}, topic: TopicPrior): number {
	if (entry.domain !== topic.domain) return TOPIC_WEIGHTS.offDomain;
	if (!topic.subdomain) return TOPIC_WEIGHTS.domain;
	if (entry.subdomains.length === 0) return TOPIC_WEIGHTS.untagged;
	return entry.subdomains.includes(topic.subdomain) ? TOPIC_WEIGHTS.subdomain : TOPIC_WEIGHTS.domain;
}

export type TopicalCandidate<T> = {
	item: T;
	/** Cosine to the query. */
	similarity: number;
	/** The lexical (BM25) score, when the search is hybrid; 0 when the passage shares no query term. */
	lexical?: number;
	domain: string;
	subdomains: readonly string[];
	tags: readonly string[];
};

/**
 * Topic-first ranking (issue 13): relevance to the query, times the topical prior, decides which
 * candidates are on topic; the persona's tags then re-rank only within that topical head (at most
 * `head` candidates), so a passage about the asking identity moves up among passages about the
 * situation but can no longer pull itself into K_W from another domain. Relevance is each ranker's
 * score divided by its best in the pool (cosine; BM25), averaged when both are given.
 */
export function rankTopicFirst<T>(candidates: ReadonlyArray<TopicalCandidate<T>>, options: {topic: TopicPrior; personaTags?: readonly string[]; head: number; hybrid: boolean}): Array<Scored<T>> {
	const bestCosine = Math.max(1e-9, ...candidates.map((c) => c.similarity));
	const bestLexical = Math.max(1e-9, ...candidates.map((c) => c.lexical ?? 0));
	const topical = candidates
		.map((candidate, order) => {
			const dense = Math.max(0, candidate.similarity) / bestCosine;
			const relevance = options.hybrid ? (dense + (candidate.lexical ?? 0) / bestLexical) / 2 : dense;
			return {candidate, order, score: relevance * topicFactor(candidate, options.topic)};
		})
		.sort((a, b) => b.score - a.score || b.candidate.similarity - a.candidate.similarity || a.order - b.order);
	const head = topical
		.slice(0, options.head)
		.map((entry) => ({...entry, topical: entry.score, score: entry.score * (1 + (options.personaTags ? personaBoost(options.personaTags, entry.candidate.tags) : 0))}))
		.sort((a, b) => b.score - a.score || b.topical - a.topical || a.order - b.order);
	// The rest follows in topical order, so near-duplicate removal can still fill K_W past the head.
	return [...head, ...topical.slice(options.head)].map(({candidate, score}) => ({item: candidate.item, similarity: candidate.similarity, score}));
}
