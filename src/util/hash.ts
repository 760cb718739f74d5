import {createHash} from 'node:crypto';

const encoder = new TextEncoder();

/**
 * FNV-1a, 32 bit. Used wherever the paper asks for a stable, seed-derived choice (tier, split, styles):
 * it depends only on the string, never on process, platform or library version.
 */
export function fnv1a(text: string): number {
	let hash = 0x811c9dc5;
	for (const byte of encoder.encode(text)) {
		hash ^= byte;
		hash = Math.imul(hash, 0x01000193);
	}
	return hash >>> 0;
}

/**
 * A well-mixed stable 32-bit number from a string: FNV-1a followed by murmur3's finaliser. FNV-1a
 * alone changes mostly its low bits when only the last character changes ("seed#response#1",
 * "...#2"), so `fnv1a(x) % n` for small n is strongly correlated across such keys (199 distinct 5-turn
 * style sequences over 43,848 seeds); the finaliser spreads every input bit over every output bit.
 * For choices keyed by a counter or turn; tiers and splits keep plain fnv1a so existing seeds stay put.
 */
export function mixedHash(text: string): number {
	let h = fnv1a(text);
	h ^= h >>> 16;
	h = Math.imul(h, 0x85ebca6b);
	h ^= h >>> 13;
	h = Math.imul(h, 0xc2b2ae35);
	h ^= h >>> 16;
	return h >>> 0;
}

/** A stable number in [0, 1) derived from a string. */
export function unitHash(text: string): number {
	return fnv1a(text) / 0x1_0000_0000;
}

export function sha256(text: string): string {
	return createHash('sha256').update(text).digest('hex');
}

/** Short content hash for display and provenance (12 hex characters of sha256). */
export function shortHash(text: string): string {
	return sha256(text).slice(0, 12);
}
