import type {EmbedOptions, Embedder} from './embedder.js';
import {STOPWORDS, UNSPACED, segment, type Segment} from './text.js';

/** Bump when the features change: the version is part of the embedder id, so old indexes rebuild. */
const HASH_VERSION = 1;

/** @default 384, the width of multilingual-e5-small, so both embedders produce indexes of one size. */
export const DEFAULT_HASH_DIMENSION = 384;

// Feature namespaces keep a word and an n-gram with the same characters in different buckets.
const NS_WORD = 0x1b873593;
const NS_FOLDED = 0x2c1b3c6d;
const NS_BIGRAM_WORDS = 0x297a2d39;
const NS_NGRAM = 0x85ebca6b;
const NS_UNI = 0x68e31da4;

function mix(h: number, x: number): number {
	return Math.imul(h ^ x, 0x01000193);
}

/** murmur3 finaliser: spreads the FNV state over all 32 bits before taking bucket and sign. */
function fmix(h: number): number {
	h ^= h >>> 16;
	h = Math.imul(h, 0x85ebca6b);
	h ^= h >>> 13;
	h = Math.imul(h, 0xc2b2ae35);
	return (h ^ (h >>> 16)) >>> 0;
}

const clusterHashes = new Map<string, number>();
function clusterHash(cluster: string): number {
	let h = clusterHashes.get(cluster);
	if (h === undefined) {
		h = 0x811c9dc5;
		for (let i = 0; i < cluster.length; i++) h = mix(h, cluster.charCodeAt(i));
		clusterHashes.set(cluster, h);
	}
	return h;
}

function sequenceHash(namespace: number, parts: readonly number[], from: number, to: number): number {
	let h = namespace;
	for (let i = from; i < to; i++) h = mix(h, parts[i]!);
	return mix(h, to - from);
}

/**
 * Offline, deterministic feature hashing over words and character n-grams (the "hashing trick"),
 * signed so that colliding features cancel instead of piling up. It needs no model and no network,
 * and works in every script the KB uses:
 * - spaced scripts (Latin incl. Vietnamese/Malay/Filipino, Hangul, Tamil): whole words, diacritic-free
 *   words, and character 3-grams of each padded word (Latin, Tamil) or syllable 1-2-grams (Hangul,
 *   where particles are glued to the noun);
 * - unspaced scripts (Han + Kana, Thai): cluster 1-, 2- and 3-grams of each run.
 * Lexical by nature: it finds passages that share words with the query, not paraphrases.
 */
export class HashEmbedder implements Embedder {
	readonly id: string;
	constructor(readonly dimension: number = DEFAULT_HASH_DIMENSION) {
		if (!Number.isInteger(dimension) || dimension < 8 || dimension > 8192) throw new Error(`hash embedder dimension must be a whole number from 8 to 8192, got ${dimension}`);
		this.id = `hash:v${HASH_VERSION}:${dimension}`;
	}

	async embed(texts: readonly string[], _options: EmbedOptions): Promise<Float32Array[]> {
		return texts.map((text) => this.embedOne(text));
	}

	/** Synchronous form, for the benchmark and for callers that embed in a tight loop. */
	embedOne(text: string): Float32Array {
		const vector = new Float32Array(this.dimension);
		const add = (h: number, weight: number) => {
			const f = fmix(h);
			vector[f % this.dimension]! += f & 0x80000000 ? -weight : weight;
		};
		let previousWord: number | undefined;
		for (const seg of segment(text)) {
			if (UNSPACED.has(seg.script)) {
				previousWord = undefined;
				addRunNgrams(seg, add);
				continue;
			}
			const word = wordFeatures(seg, add);
			if (word !== undefined && previousWord !== undefined) add(mix(mix(NS_BIGRAM_WORDS, previousWord), word), 0.5);
			previousWord = word;
		}
		let norm = 0;
		for (let i = 0; i < vector.length; i++) norm += vector[i]! * vector[i]!;
		if (norm > 0) {
			const inv = 1 / Math.sqrt(norm);
			for (let i = 0; i < vector.length; i++) vector[i]! *= inv;
		}
		return vector;
	}
}

/** Adds the features of one word; returns the word's hash (for word bigrams) or undefined for a stopword. */
function wordFeatures(seg: Segment, add: (h: number, weight: number) => void): number | undefined {
	const exact = seg.clusters.map(clusterHash);
	if (seg.script === 'latin') {
		const text = seg.clusters.join('');
		if (STOPWORDS.has(text) || (text.length < 2 && !/\d/.test(text))) return undefined;
	}
	const wordHash = sequenceHash(NS_WORD, exact, 0, exact.length);
	add(wordHash, 1);
	const folded = seg.folded === seg.clusters ? exact : seg.folded.map(clusterHash);
	if (folded !== exact && folded.some((h, i) => h !== exact[i])) add(sequenceHash(NS_FOLDED, folded, 0, folded.length), 0.7);
	if (seg.script === 'hangul') {
		for (let i = 0; i < folded.length; i++) {
			add(mix(NS_UNI, folded[i]!), 0.3);
			if (i + 1 < folded.length) add(sequenceHash(NS_NGRAM, folded, i, i + 2), 0.6);
		}
		return wordHash;
	}
	// Padded 3-grams: '^' and '$' mark the word edges, so prefixes and suffixes count as such.
	const padded = [0x5e, ...folded, 0x24];
	for (let i = 0; i + 3 <= padded.length; i++) add(sequenceHash(NS_NGRAM, padded, i, i + 3), 0.4);
	return wordHash;
}

/** Han/Kana and Thai runs: no word boundaries, so characters and their 2- and 3-grams stand in for words. */
function addRunNgrams(seg: Segment, add: (h: number, weight: number) => void): void {
	const h = seg.clusters.map(clusterHash);
	for (let i = 0; i < h.length; i++) {
		add(mix(NS_UNI, h[i]!), 0.4);
		if (i + 2 <= h.length) add(sequenceHash(NS_NGRAM, h, i, i + 2), 1);
		if (i + 3 <= h.length) add(sequenceHash(NS_NGRAM, h, i, i + 3), 0.5);
	}
}
