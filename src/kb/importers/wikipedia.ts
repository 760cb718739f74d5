import path from 'node:path';
import {z} from 'zod';
import type {DomainId, RegionCode} from '../../domain/universe.js';
import {zodProblems} from '../../util/errors.js';
import {shortHash} from '../../util/hash.js';
import type {Conversion, Converted, Skip} from './types.js';

export const WikipediaArticle = z.object({
	title: z.string().min(1),
	text: z.string(),
	url: z.string().optional(),
	categories: z.array(z.string()).optional(),
});

/** Place and people words per region, matched as whole words in an article's title and categories. */
const REGION_WORDS: Readonly<Record<RegionCode, readonly string[]>> = {
	BN: ['brunei', 'bruneian', 'bandar seri begawan'],
	CN: ['china', 'chinese', "people's republic of china", 'beijing', 'shanghai', 'guangdong', 'hui', 'uyghur', 'tibet', 'tibetan', 'inner mongolia'],
	ID: ['indonesia', 'indonesian', 'java', 'javanese', 'bali', 'balinese', 'sundanese', 'sumatra', 'batak', 'minangkabau', 'jakarta'],
	JP: ['japan', 'japanese', 'okinawa', 'okinawan', 'ryukyu', 'ryukyuan', 'ainu', 'tokyo', 'kyoto', 'hokkaido'],
	KR: ['korea', 'korean', 'south korea', 'seoul', 'jeju', 'busan'],
	MY: ['malaysia', 'malaysian', 'sabah', 'sarawak', 'kuala lumpur', 'penang'],
	PH: ['philippines', 'philippine', 'filipino', 'manila', 'visayas', 'visayan', 'mindanao', 'tagalog', 'ilocano', 'luzon', 'moro'],
	SG: ['singapore', 'singaporean'],
	TH: ['thailand', 'thai', 'bangkok', 'isan', 'lanna', 'chiang mai'],
	VN: ['vietnam', 'vietnamese', 'viet nam', 'hanoi', 'saigon', 'ho chi minh city'],
};

/** Topic words per domain, counted over title and categories; the domain with most hits wins. */
const DOMAIN_WORDS: ReadonlyArray<[DomainId, readonly string[]]> = [
	['culinary', ['cuisine', 'food', 'foods', 'dish', 'dishes', 'drink', 'drinks', 'beverage', 'beverages', 'cooking', 'snack', 'snacks', 'dessert', 'desserts', 'noodle', 'noodles', 'restaurant', 'restaurants']],
	['ritual', ['festival', 'festivals', 'holiday', 'holidays', 'religion', 'religious', 'ceremony', 'ceremonies', 'funeral', 'funerals', 'wedding', 'weddings', 'temple', 'temples', 'mosque', 'mosques', 'church', 'churches', 'shrine', 'shrines', 'ritual', 'rituals', 'calendar', 'buddhism', 'islam', 'hinduism', 'christianity', 'shinto', 'taoism', 'worship', 'fasting', 'ramadan', 'mythology', 'folk religion']],
	['economic', ['economy', 'economic', 'currency', 'currencies', 'bank', 'banks', 'banking', 'business', 'trade', 'market', 'markets', 'employment', 'labour', 'labor', 'taxation', 'money', 'companies']],
	['domestic', ['family', 'families', 'household', 'housing', 'house', 'houses', 'architecture', 'home', 'kinship', 'education', 'schools', 'village', 'villages', 'neighbourhood', 'elderly']],
	['lifestyle', ['clothing', 'clothes', 'dress', 'fashion', 'sport', 'sports', 'transport', 'travel', 'music', 'dance', 'arts', 'art', 'crafts', 'games', 'tourism', 'film', 'media', 'textiles']],
	['health', ['health', 'medicine', 'medical', 'disease', 'diseases', 'hospital', 'hospitals', 'wellness', 'pregnancy', 'childbirth', 'herbal']],
	['interpersonal', ['etiquette', 'language', 'languages', 'names', 'honorifics', 'society', 'social', 'customs', 'greetings', 'marriage', 'friendship', 'manners', 'culture']],
];

/** Tags from category words, so imported passages take part in persona re-ranking. */
const TAG_WORDS: ReadonlyArray<[string, readonly string[]]> = [
	['religion:islam', ['islam', 'islamic', 'muslim', 'muslims']],
	['religion:buddhism', ['buddhism', 'buddhist']],
	['religion:hinduism', ['hinduism', 'hindu']],
	['religion:christianity', ['christianity', 'christian', 'catholic', 'catholicism', 'protestant', 'protestantism']],
	['religion:catholicism', ['catholic', 'catholicism']],
	['religion:shinto', ['shinto']],
	['religion:taoism', ['taoism', 'taoist']],
	['ethnicity:tamil', ['tamil', 'tamils']],
	['ethnicity:malay', ['malay', 'malays']],
	['ethnicity:chinese', ['chinese']],
	['ethnicity:ainu', ['ainu']],
	['ethnicity:ryukyuan', ['ryukyuan', 'okinawan']],
	['indigenous', ['indigenous', 'orang asli', 'dayak', 'ainu']],
];

function wordsRe(words: readonly string[]): RegExp {
	return new RegExp(`(^|[^\\p{L}])(${words.map((word) => word.replace(/[.*+?^${}()|[\]\\]/g, '\\$&')).join('|')})(?=$|[^\\p{L}])`, 'giu');
}
const REGION_RES = Object.entries(REGION_WORDS).map(([region, words]) => [region as RegionCode, wordsRe(words)] as const);
const DOMAIN_RES = DOMAIN_WORDS.map(([domain, words]) => [domain, wordsRe(words)] as const);
const TAG_RES = TAG_WORDS.map(([tag, words]) => [tag, wordsRe(words)] as const);

/**
 * People words that also name diasporas: "Malaysian Chinese" or "Zainichi Korean" are about Malaysia
 * and Japan. A region found only through one of these is dropped when another region is named.
 */
const WEAK_WORDS: Partial<Record<RegionCode, RegExp>> = {CN: wordsRe(['chinese']), KR: wordsRe(['korean'])};

export function inferRegions(text: string): RegionCode[] {
	const found = REGION_RES.filter(([, re]) => ((re.lastIndex = 0), re.test(text))).map(([region]) => region);
	if (found.length < 2) return found;
	const onlyWeak = (region: RegionCode) => {
		const weak = WEAK_WORDS[region];
		if (!weak) return false;
		const stripped = text.replace(weak, '$1');
		const strong = REGION_RES.find(([candidate]) => candidate === region)![1];
		strong.lastIndex = 0;
		return !strong.test(stripped);
	};
	const strong = found.filter((region) => !onlyWeak(region));
	return strong.length > 0 ? strong : found;
}

export function inferDomain(text: string): DomainId | undefined {
	let best: DomainId | undefined;
	let bestHits = 0;
	for (const [domain, re] of DOMAIN_RES) {
		const hits = text.match(re)?.length ?? 0;
		if (hits > bestHits) [best, bestHits] = [domain, hits];
	}
	return best;
}

export function inferTags(text: string): string[] {
	return TAG_RES.filter(([, re]) => (re.lastIndex = 0, re.test(text))).map(([tag]) => tag);
}

/** Target passage length in characters: about a paragraph, what a blueprint prompt can quote. */
export const CHUNK_TARGET = 800;
const CHUNK_MAX = 1200;
const CHUNK_MIN = 20;

/**
 * Splits article text into passages at paragraph boundaries, packing short paragraphs together up
 * to CHUNK_TARGET and cutting long ones at sentence ends (Latin, CJK and Thai-space punctuation).
 * A tail too short to stand alone joins the previous passage.
 */
export function chunkText(text: string, target = CHUNK_TARGET): string[] {
	const paragraphs = text.split(/\n\s*\n|\n/).map((p) => p.replace(/\s+/g, ' ').trim()).filter(Boolean);
	const pieces: string[] = [];
	for (const paragraph of paragraphs) {
		if (paragraph.length <= CHUNK_MAX) {
			pieces.push(paragraph);
			continue;
		}
		const sentences = paragraph.match(/[^.!?。！？]+(?:[.!?。！？]+|$)\s*/gu) ?? [paragraph];
		let current = '';
		for (const s of sentences) {
			if (current && current.length + s.length > target) {
				pieces.push(current.trim());
				current = '';
			}
			// A single sentence longer than the maximum is cut hard rather than dropped.
			for (let rest = s; rest.length > 0; rest = rest.slice(CHUNK_MAX)) current += rest.slice(0, CHUNK_MAX);
		}
		if (current.trim()) pieces.push(current.trim());
	}
	const chunks: string[] = [];
	let current = '';
	for (const piece of pieces) {
		if (current && current.length + piece.length + 1 > target) {
			chunks.push(current);
			current = '';
		}
		current = current ? `${current} ${piece}` : piece;
	}
	if (current) {
		if (current.length < CHUNK_MIN * 5 && chunks.length > 0) chunks[chunks.length - 1] += ` ${current}`;
		else chunks.push(current);
	}
	return chunks.filter((chunk) => chunk.length >= CHUNK_MIN);
}

export function titleSlug(title: string): string {
	const ascii = title.normalize('NFKD').replace(/[\u0300-\u036f]/g, '').replace(/[đĐ]/g, 'd').toLowerCase().replace(/[^a-z0-9]+/g, '-').replace(/^-+|-+$/g, '').slice(0, 60).replace(/-+$/, '');
	// Titles in Thai, Han or Hangul have no ASCII letters: a hash keeps their ids valid and stable.
	return ascii.length >= 3 ? ascii : `t${shortHash(title).slice(0, 10)}`;
}

export type WikipediaOptions = {regions?: readonly RegionCode[]; domain?: DomainId};

/**
 * Converts a JSONL file of `{title, text, url, categories}` articles into cultural passages. Regions
 * come from `--region` or the title and categories (then the opening of the text); the domain from
 * `--domain` or the title and categories. An article with neither is reported, never guessed.
 */
export function convertWikipedia(text: string, file: string, options: WikipediaOptions = {}): Conversion {
	const converted: Converted[] = [];
	const skips: Skip[] = [];
	const skip = (line: number, kind: Skip['kind'], code: string, reason: string) => skips.push({file, line, kind, code, reason});
	const lines = text.split('\n');
	let rows = 0;
	const seenTitles = new Map<string, number>();
	lines.forEach((raw, index) => {
		const line = index + 1;
		if (raw.trim() === '') return;
		rows++;
		let value: unknown;
		try {
			value = JSON.parse(raw);
		} catch (error) {
			skip(line, 'invalid', 'json', `not valid JSON (${(error as Error).message})`);
			return;
		}
		const parsed = WikipediaArticle.safeParse(value);
		if (!parsed.success) {
			skip(line, 'invalid', 'schema', zodProblems(parsed.error).join('; '));
			return;
		}
		const article = parsed.data;
		const slug = titleSlug(article.title);
		const previous = seenTitles.get(slug);
		if (previous !== undefined) {
			skip(line, 'duplicate', 'duplicate-title', `article '${article.title}' already appears on line ${previous}`);
			return;
		}
		seenTitles.set(slug, line);
		const labels = [article.title, ...(article.categories ?? [])].join('\n');
		const regions = options.regions && options.regions.length > 0 ? [...options.regions] : inferRegions(labels).length > 0 ? inferRegions(labels) : inferRegions(article.text.slice(0, 300));
		if (regions.length === 0) {
			skip(line, 'filtered', 'no-region', `article '${article.title}': title and categories name none of the 10 regions (pass --region)`);
			return;
		}
		const domain = options.domain ?? inferDomain(labels);
		if (!domain) {
			skip(line, 'filtered', 'no-domain', `article '${article.title}': no domain recognised in title or categories (pass --domain)`);
			return;
		}
		const chunks = chunkText(article.text);
		if (chunks.length === 0) {
			skip(line, 'invalid', 'no-text', `article '${article.title}' has no text of at least ${CHUNK_MIN} characters`);
			return;
		}
		const tags = inferTags(labels);
		chunks.forEach((chunk, n) => {
			converted.push({
				line,
				entry: {
					id: `wiki-${slug}-${n + 1}`,
					regions,
					tags,
					domain,
					title: chunks.length > 1 ? `${article.title} (${n + 1}/${chunks.length})` : article.title.padEnd(3, '.'),
					text: chunk,
					source: `Wikipedia: ${article.title}`,
					provenance: {dataset: 'wikipedia-jsonl', file: path.basename(file), line, ref: article.url ?? article.title, license: 'CC BY-SA 4.0'},
				},
			});
		});
	});
	return {rows, converted, skips, notes: []};
}
