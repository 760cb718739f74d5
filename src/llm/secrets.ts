/**
 * Keeping API keys out of everything written: session files, manifests, caches, HTML pages, queue
 * deliveries, --json output and stderr. Servers echo keys back (OpenAI's 401 says "Incorrect API key
 * provided: sk-..."; proxies return the whole Authorization header, or put the key in an error's
 * `code`; a model asked to repeat its prompt can repeat a key it was shown), and not always whole:
 * without its provider prefix, base64-encoded (a Basic or Bearer header echoed), URL-encoded (a
 * query string echoed), shortened (`sk-abc...wxyz`) or split across two JSON fields. So every text
 * that came from a server passes through `maskSecrets` (via `fromServer`, llm/serverText.ts) where
 * it enters, errors and successful replies alike.
 */

/** Shapes of common provider keys and bearer tokens. Long enough that ordinary words never match. */
const KEY_PATTERNS: readonly RegExp[] = [
	/\bsk-[A-Za-z0-9_-]{6,}/g, // OpenAI (sk-, sk-proj-), OpenRouter (sk-or-v1-), DeepSeek, many proxies
	/\bBearer\s+[A-Za-z0-9._~+/=-]{8,}/gi,
	/\bhf_[A-Za-z0-9]{16,}/g, // Hugging Face
	/\bgsk_[A-Za-z0-9]{16,}/g, // Groq
	/\bxai-[A-Za-z0-9]{16,}/g,
	/\bAIza[0-9A-Za-z_-]{20,}/g, // Google
];

const REDACTED = '[redacted]';

/** Provider prefixes a key is echoed without (longest first). */
const PREFIXES = ['sk-proj-', 'sk-svcacct-', 'sk-admin-', 'sk-or-v1-', 'sk-ant-api03-', 'sk-ant-', 'sk-', 'gsk_', 'hf_', 'xai-', 'pplx-', 'nvapi-', 'AIza'];

/**
 * A run of the key at least this long, found anywhere, is masked: a key split across fields, or echoed
 * without its prefix, shows such runs; a random run of this length never turns up in ordinary text.
 */
const FRAGMENT = 10;

/** Everything needed to find one key in its forms, computed once per key. */
type KeyForms = {
	readonly key: string;
	/** The key without its provider prefix. */
	readonly body: string;
	/** Every FRAGMENT-long run of the body, and their rolling hashes (see rollingHits). */
	readonly grams: ReadonlySet<string>;
	readonly gramHashes: ReadonlySet<number>;
	/** Base64 (standard and URL-safe) of the key at each of the 3 byte alignments, trimmed to what the alignment cannot change. */
	readonly base64: readonly string[];
	/** Percent-encoded forms (encodeURIComponent, and every byte escaped, in both cases of hex). */
	readonly percent: readonly string[];
};

const formsCache = new Map<string, KeyForms>();

function formsOf(key: string): KeyForms {
	let forms = formsCache.get(key);
	if (forms) return forms;
	const prefix = PREFIXES.find((candidate) => key.startsWith(candidate) && key.length - candidate.length >= 8) ?? '';
	const body = key.slice(prefix.length);
	const size = Math.min(FRAGMENT, body.length);
	const grams = new Set<string>();
	for (let i = 0; i + size <= body.length; i++) grams.add(body.slice(i, i + size));
	const gramHashes = new Set([...grams].map((gram) => hashOf(gram, 0, gram.length)));
	const base64: string[] = [];
	const bytes = Buffer.from(key);
	for (let shift = 0; shift < 3; shift++) {
		const encoded = Buffer.concat([Buffer.alloc(shift), bytes]).toString('base64');
		// The characters that also hold bits of the neighbouring bytes differ with the text around the key.
		const start = Math.ceil((shift * 8) / 6);
		const end = Math.floor(((shift + bytes.length) * 8) / 6);
		const core = encoded.slice(start, end);
		if (core.length >= 12) base64.push(core, core.replace(/\+/g, '-').replace(/\//g, '_'));
	}
	const everyByte = [...bytes].map((byte) => `%${byte.toString(16).padStart(2, '0')}`).join('');
	const percent = [...new Set([encodeURIComponent(key), everyByte, everyByte.toUpperCase()])].filter((form) => form !== key);
	forms = {key, body, grams, gramHashes, base64, percent};
	if (formsCache.size > 64) formsCache.clear();
	formsCache.set(key, forms);
	return forms;
}

/** The [start, end) ranges of `text` that hold a known key in any of its forms, merged and sorted. */
export function secretRanges(text: string, knownKeys: readonly string[]): Array<[number, number]> {
	const ranges: Array<[number, number]> = [];
	const all = (needle: string, extend?: RegExp) => {
		if (needle.length === 0) return;
		for (let at = text.indexOf(needle); at !== -1; at = text.indexOf(needle, at + 1)) {
			let start = at;
			let end = at + needle.length;
			// An encoded form is masked with the whole token it sits in (the few characters the alignment changes).
			if (extend) {
				while (start > 0 && extend.test(text[start - 1]!)) start--;
				while (end < text.length && extend.test(text[end]!)) end++;
			}
			ranges.push([start, end]);
		}
	};
	for (const key of knownKeys) {
		if (key.length < 8) continue;
		const forms = formsOf(key);
		all(key);
		for (const core of forms.base64) all(core, /[A-Za-z0-9+/=_-]/);
		for (const encoded of forms.percent) {
			all(encoded);
			if (encoded !== encoded.toLowerCase()) all(encoded.toLowerCase());
		}
		// Runs of the key's body: echoed without its prefix, or split across fields.
		const size = Math.min(FRAGMENT, forms.body.length);
		if (size > 0 && text.length >= size) for (const at of rollingHits(text, size, forms.gramHashes)) if (forms.grams.has(text.slice(at, at + size))) ranges.push([at, at + size]);
		// A shortened echo: the key's first and last characters around an ellipsis or stars.
		const shortened = new RegExp(`${escapeRegExp(key.slice(0, 6))}[A-Za-z0-9_*.-]*(?:\\.\\.\\.|…|\\*+)[A-Za-z0-9_*-]*${escapeRegExp(key.slice(-4))}`, 'g');
		for (const match of text.matchAll(shortened)) ranges.push([match.index, match.index + match[0].length]);
	}
	for (const pattern of KEY_PATTERNS) {
		pattern.lastIndex = 0;
		for (const match of text.matchAll(pattern)) ranges.push([match.index, match.index + match[0].length]);
	}
	return merge(ranges);
}

const BASE = 0x01000193;

function hashOf(text: string, start: number, end: number): number {
	let hash = 0;
	for (let i = start; i < end; i++) hash = (Math.imul(hash, BASE) + text.charCodeAt(i)) >>> 0;
	return hash;
}

/**
 * Start positions of every `size`-long window of `text` whose rolling hash is in `hashes` (candidates,
 * checked by the caller). A window at every position, without making a string for each: masking
 * runs on every reply, and a 256 KB one took 90 ms with a slice per position, a few ms like this.
 */
function rollingHits(text: string, size: number, hashes: ReadonlySet<number>): number[] {
	const hits: number[] = [];
	let top = 1; // BASE^(size-1), the weight of the character leaving the window
	for (let i = 1; i < size; i++) top = Math.imul(top, BASE) >>> 0;
	let hash = hashOf(text, 0, size);
	if (hashes.has(hash)) hits.push(0);
	for (let i = size; i < text.length; i++) {
		hash = (hash - Math.imul(text.charCodeAt(i - size), top)) >>> 0;
		hash = (Math.imul(hash, BASE) + text.charCodeAt(i)) >>> 0;
		if (hashes.has(hash)) hits.push(i - size + 1);
	}
	return hits;
}

function merge(ranges: Array<[number, number]>): Array<[number, number]> {
	if (ranges.length <= 1) return ranges;
	ranges.sort((a, b) => a[0] - b[0] || a[1] - b[1]);
	const out: Array<[number, number]> = [ranges[0]!];
	for (const [start, end] of ranges.slice(1)) {
		const last = out[out.length - 1]!;
		if (start <= last[1]) last[1] = Math.max(last[1], end);
		else out.push([start, end]);
	}
	return out;
}

/**
 * `text` with every known key value (the actual keys this run holds), in every form above, and
 * anything shaped like a key replaced by "[redacted]".
 */
export function maskSecrets(text: string, knownKeys: readonly string[] = []): string {
	const ranges = secretRanges(text, knownKeys);
	if (ranges.length === 0) return text;
	let out = '';
	let at = 0;
	for (const [start, end] of ranges) {
		out += text.slice(at, start) + REDACTED;
		at = end;
	}
	return out + text.slice(at);
}

/** True when a value looks like a pasted key (for refusing config values). */
export function looksLikeSecret(value: string): boolean {
	return KEY_PATTERNS.some((pattern) => {
		pattern.lastIndex = 0;
		const found = pattern.test(value);
		pattern.lastIndex = 0;
		return found;
	});
}

/**
 * Masks every string inside a JSON-like value (for error bodies and records). Keys split across
 * fields are found too: besides each string alone, the strings of one object are looked at joined,
 * and a field whose run of the key only shows joined is masked whole.
 */
export function maskDeep<T>(value: T, knownKeys: readonly string[] = []): T {
	if (typeof value === 'string') return maskSecrets(value, knownKeys) as T;
	if (Array.isArray(value)) return value.map((item) => maskDeep(item, knownKeys)) as T;
	if (value && typeof value === 'object') {
		const entries = Object.entries(value);
		const strings = entries.filter((entry): entry is [string, string] => typeof entry[1] === 'string');
		const joined = strings.map(([, text]) => text).join('');
		const split = strings.length > 1 && knownKeys.some((key) => key.length >= 8 && joined.includes(key) && !strings.some(([, text]) => text.includes(key)));
		return Object.fromEntries(entries.map(([key, item]) => [key, split && typeof item === 'string' && knownKeys.some((known) => overlaps(item, known)) ? REDACTED : maskDeep(item, knownKeys)])) as T;
	}
	return value;
}

/** True when `text` ends with a start of `key` or starts with an end of it (four characters or more): a piece of a split key. */
function overlaps(text: string, key: string): boolean {
	if (text.length < 4) return false;
	if (key.includes(text)) return true;
	for (let n = Math.min(text.length, key.length); n >= 4; n--) if (key.startsWith(text.slice(-n)) || key.endsWith(text.slice(0, n))) return true;
	return false;
}

function escapeRegExp(text: string): string {
	return text.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');
}
