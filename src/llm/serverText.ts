import {safeText} from '../util/terminalText.js';
import {secretRanges, maskSecrets} from './secrets.js';

/*
 * The one door server text comes in by. Whatever a server sends (a reply, its reasoning, a refusal,
 * an error body's message or code, a streamed token) is data from outside: before anything stores,
 * prints, caches or sends it on, it loses every form of a key this run holds (secrets.ts) and every
 * terminal control sequence (C0 but tab and newline, C1 including U+009B/U+009D/U+009C, ESC, OSC,
 * CSI: util/terminalText.ts). Cleaned here, once, so sessions, the response cache, HTML pages, queue
 * deliveries, --jsonl events and stderr all hold the same clean text.
 */

/** Server text as the program keeps it: keys masked, control sequences removed. */
export function fromServer(text: string, keys: readonly string[]): string {
	return safeText(maskSecrets(text, keys));
}

/** The same for an optional field. */
export function fromServerOrNull(text: string | null | undefined, keys: readonly string[]): string | null {
	return text === null || text === undefined ? null : fromServer(text, keys);
}

/**
 * The end of a text that may be the start of a key shaped like a provider's (`sk-...`, `gsk_...`,
 * `Bearer ...`): held back while it grows, since those are masked by their shape, whole.
 */
const KEY_HEAD = /(?:^|[^A-Za-z0-9_-])((?:s|sk|sk-[A-Za-z0-9_-]*|g|gs|gsk|gsk_[A-Za-z0-9]*|h|hf|hf_[A-Za-z0-9]*|x|xa|xai|xai-[A-Za-z0-9]*|A|AI|AIz|AIza[0-9A-Za-z_-]*|B|Be|Bea|Bear|Beare|Bearer|Bearer\s+[A-Za-z0-9._~+/=-]*))$/;

/**
 * Streamed tokens through `fromServer` before a listener sees them. A key can arrive split over
 * several tokens, so the end of the text is held back while it could be the start of one (a tail
 * that is a piece of a known key, or the beginning of a key-shaped word); everything before goes out
 * at once, so a reply still streams word by word, and a cut never falls inside a masked range.
 * `flush` sends what is held once the reply is complete.
 */
export function maskedTokenStream(onToken: (delta: string) => void, keys: readonly string[]): {push: (delta: string) => void; flush: () => void} {
	const known = keys.filter((key) => key.length >= 8);
	const hold = Math.max(64, ...known.map((key) => key.length * 3));
	let pending = '';
	const emit = (text: string) => {
		if (text !== '') onToken(fromServer(text, keys));
	};
	/** How much of the end of `text` might be the beginning of a key. */
	const heldTail = (text: string): number => {
		let tail = KEY_HEAD.exec(text.slice(-hold))?.[1]?.length ?? 0;
		for (let n = Math.min(text.length, hold); n > tail; n--) {
			if (known.some((key) => key.includes(text.slice(-n)))) {
				tail = n;
				break;
			}
		}
		return Math.min(tail, hold);
	};
	return {
		push(delta) {
			pending += delta;
			let cut = pending.length - heldTail(pending);
			for (const [start, end] of secretRanges(pending, keys)) if (start < cut && end > cut) cut = start;
			// Masked pieces go out masked; a cut never splits a range, so each is masked whole.
			emit(pending.slice(0, cut));
			pending = pending.slice(cut);
		},
		flush() {
			emit(pending);
			pending = '';
		},
	};
}

/** A provider's reply with every text in it through `fromServer` (the hook where replies enter: callRun). */
export function cleanReply<R extends {readonly text: string; readonly choices?: readonly string[]; readonly reasoning?: string | null; readonly refusal?: string}>(raw: R, keys: readonly string[]): R {
	return {
		...raw,
		text: fromServer(raw.text, keys),
		...(raw.choices ? {choices: raw.choices.map((choice) => fromServer(choice, keys))} : {}),
		...(raw.reasoning !== undefined ? {reasoning: fromServerOrNull(raw.reasoning, keys)} : {}),
		...(raw.refusal !== undefined ? {refusal: fromServer(raw.refusal, keys)} : {}),
	};
}
