/**
 * Keeping API keys out of everything written: session files, manifests, --json output, stderr.
 * Servers echo keys back in error messages (OpenAI's 401 says "Incorrect API key provided:
 * sk-..."; some proxies return the whole Authorization header), so every text that came from a
 * server passes through `maskSecrets` before it is stored or printed.
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

/**
 * `text` with every known key value (the actual keys this run holds) and anything shaped like a key
 * replaced by "[redacted]". Known values are matched whole and by their longer fragments, since
 * servers often print a key shortened ("sk-abc...wxyz").
 */
export function maskSecrets(text: string, knownKeys: readonly string[] = []): string {
	let out = text;
	for (const key of knownKeys) {
		if (key.length < 8) continue;
		out = out.split(key).join(REDACTED);
		// A shortened echo: the key's first and last characters around an ellipsis or stars.
		const head = escapeRegExp(key.slice(0, 6));
		const tail = escapeRegExp(key.slice(-4));
		out = out.replace(new RegExp(`${head}[A-Za-z0-9_*.-]*(?:\\.\\.\\.|…|\\*+)[A-Za-z0-9_*-]*${tail}`, 'g'), REDACTED);
	}
	for (const pattern of KEY_PATTERNS) out = out.replace(pattern, REDACTED);
	return out;
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

/** Masks every string inside a JSON-like value (for error bodies and records). */
export function maskDeep<T>(value: T, knownKeys: readonly string[] = []): T {
	if (typeof value === 'string') return maskSecrets(value, knownKeys) as T;
	if (Array.isArray(value)) return value.map((item) => maskDeep(item, knownKeys)) as T;
	if (value && typeof value === 'object') return Object.fromEntries(Object.entries(value).map(([key, item]) => [key, maskDeep(item, knownKeys)])) as T;
	return value;
}

function escapeRegExp(text: string): string {
	return text.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');
}
