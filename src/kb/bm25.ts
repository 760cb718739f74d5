import {lexicalTokens} from './text.js';

export type Bm25Options = {
	/** Term-frequency saturation. @default 1.2 */
	k1?: number;
	/** Length normalisation. @default 0.75 */
	b?: number;
};

export type Bm25Hit = {index: number; score: number};

/**
 * A small in-memory Okapi BM25 over the script-aware tokens of `lexicalTokens` (words in spaced
 * scripts, bigrams in Han/Kana/Thai). Written here rather than using Vectra's wink-based BM25, which
 * tokenises English only, rebuilds its index on every query and needs a LocalDocumentIndex.
 */
export class Bm25Index {
	private readonly postings = new Map<string, {docs: number[]; tfs: number[]}>();
	private readonly lengths: Float64Array;
	private readonly averageLength: number;
	private readonly k1: number;
	private readonly b: number;

	constructor(texts: readonly string[], options: Bm25Options = {}) {
		this.k1 = options.k1 ?? 1.2;
		this.b = options.b ?? 0.75;
		this.lengths = new Float64Array(texts.length);
		let total = 0;
		texts.forEach((text, doc) => {
			const counts = new Map<string, number>();
			const tokens = lexicalTokens(text);
			for (const token of tokens) counts.set(token, (counts.get(token) ?? 0) + 1);
			for (const [token, tf] of counts) {
				let posting = this.postings.get(token);
				if (!posting) this.postings.set(token, (posting = {docs: [], tfs: []}));
				posting.docs.push(doc);
				posting.tfs.push(tf);
			}
			this.lengths[doc] = tokens.length;
			total += tokens.length;
		});
		this.averageLength = texts.length > 0 ? total / texts.length : 0;
	}

	get size(): number {
		return this.lengths.length;
	}

	/** Best `topK` documents for the query; `allow` restricts to documents passing a metadata filter. */
	search(query: string, topK: number, allow?: (index: number) => boolean): Bm25Hit[] {
		const n = this.lengths.length;
		// A dense accumulator beats a Map once posting lists reach thousands of documents.
		const scores = new Float64Array(n);
		const touched: number[] = [];
		for (const token of new Set(lexicalTokens(query))) {
			const posting = this.postings.get(token);
			if (!posting) continue;
			// The "+1" form of idf never goes negative, so very common words still count a little.
			const idf = Math.log(1 + (n - posting.docs.length + 0.5) / (posting.docs.length + 0.5));
			for (let i = 0; i < posting.docs.length; i++) {
				const doc = posting.docs[i]!;
				const tf = posting.tfs[i]!;
				const norm = tf + this.k1 * (1 - this.b + (this.b * this.lengths[doc]!) / (this.averageLength || 1));
				if (scores[doc] === 0) touched.push(doc);
				scores[doc]! += (idf * tf * (this.k1 + 1)) / norm;
			}
		}
		const hits: Bm25Hit[] = [];
		for (const doc of touched) if (!allow || allow(doc)) hits.push({index: doc, score: scores[doc]!});
		return hits.sort((a, b) => b.score - a.score || a.index - b.index).slice(0, topK);
	}
}
