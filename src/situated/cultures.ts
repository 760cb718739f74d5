import {createRequire} from 'node:module';
import {type NormSplit, type Norm} from '../domain/situated.js';
import {REGION_CODES, type RegionCode} from '../domain/universe.js';
import {sha256} from '../util/hash.js';

/*
 * Cultures are free labels, as a data set names them ("USA", "south_korea", "Germany"), with an ISO
 * 3166-1 country code when one can be found: the code groups labels that name the same country in
 * reports (the paper normalises labels for its statistics only, never in the data), and a code that
 * is one of the ten persona regions links the norm to that region's identities.
 */

type Countries = {
	getAlpha2Code(name: string, lang: string): string | undefined;
	getName(code: string, lang: string, options?: {select: 'official' | 'alias'}): string | undefined;
	isValid(code: string): boolean;
	registerLocale(locale: unknown): void;
};

// i18n-iso-countries is CommonJS; its main entry registers all 80 locales, English is the one needed.
let countries: Countries | null = null;
function lib(): Countries {
	if (!countries) {
		const require = createRequire(import.meta.url);
		countries = require('i18n-iso-countries/index.js') as Countries;
		countries.registerLocale(require('i18n-iso-countries/langs/en.json'));
	}
	return countries;
}

/** Names the library spells differently from common use in these data sets (checked: FORK, NormAd, CulturalBench). */
const ALIASES: Readonly<Record<string, string>> = {brunei: 'BN', korea: 'KR', 'viet nam': 'VN', 'hong kong sar': 'HK', uk: 'GB', 'great britain': 'GB', england: 'GB', scotland: 'GB', wales: 'GB'};

/**
 * The ISO code of a culture label, or null: "USA" → US, "south_korea" → KR, "DE" → DE, "Zulu" → null.
 * Underscores count as spaces (NormAd's keys), and a two-letter label is read as a code.
 */
export function countryCode(label: string): string | null {
	const name = label.trim().replace(/_/g, ' ').replace(/\s+/g, ' ');
	if (/^[A-Za-z]{2}$/.test(name)) return lib().isValid(name.toUpperCase()) ? name.toUpperCase() : null;
	const alias = ALIASES[name.toLowerCase()];
	if (alias) return alias;
	return lib().getAlpha2Code(name, 'en') ?? null;
}

/** The English name of a country code ("DE" → "Germany"), or the code itself when unknown. */
export function countryName(code: string): string {
	return lib().getName(code, 'en') ?? code;
}

/** The persona region a country code is, if it is one of the ten. */
export function regionOfCountry(code: string | null): RegionCode | null {
	return code && (REGION_CODES as readonly string[]).includes(code) ? (code as RegionCode) : null;
}

/** NormAd's snake_case keys as readable labels: "south_korea" → "South Korea". Other labels pass through trimmed. */
export function cultureLabel(raw: string): string {
	const text = raw.trim();
	// Only an all-lower-case key is rewritten; "USA" or "Tamil Hindus in Malaysia" are someone's spelling.
	if (text === '' || text !== text.toLowerCase()) return text;
	return text
		.split(/[_\s]+/)
		.filter(Boolean)
		.map((word, index) => (index > 0 && ['of', 'and', 'the'].includes(word) ? word : word[0]!.toUpperCase() + word.slice(1)))
		.join(' ');
}

/**
 * A well-mixed number in [0, 1) from a string (48 bits of sha256). Ids that differ only in their last
 * characters (row hashes, sample numbers) must still land anywhere in [0, 1); FNV-1a's high bits do
 * not move enough for that.
 */
export const stableUnit = (text: string) => Number.parseInt(sha256(text).slice(0, 12), 16) / 2 ** 48;

/**
 * The split of a norm: a stable hash of its id, 80 / 10 / 10 (the paper's 1,289 / 161 / 169 norms).
 * Every item built from a norm shares its split, so a scenario of a test norm never trains a model.
 */
export function normSplit(normId: string): NormSplit {
	const u = stableUnit(`split|${normId}`);
	return u < 0.8 ? 'train' : u < 0.9 ? 'validation' : 'test';
}

/** The key norms and evaluations are grouped by in reports and `--limit` spreads: the country, else the label. */
export const cultureKey = (norm: Pick<Norm, 'country' | 'culture'>) => norm.country ?? norm.culture.toLowerCase();

/**
 * Whether a norm matches a `--culture` value: its ISO code, or its label, case-insensitively
 * ("de", "Germany" and "germany" all select a norm of culture "Germany" with country DE).
 */
export function matchesCulture(norm: Pick<Norm, 'country' | 'culture'>, wanted: string): boolean {
	const value = wanted.trim().toLowerCase();
	if (norm.culture.toLowerCase() === value) return true;
	if (!norm.country) return false;
	return norm.country.toLowerCase() === value || countryCode(wanted)?.toLowerCase() === norm.country.toLowerCase();
}
