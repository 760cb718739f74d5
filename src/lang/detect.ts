import type {LanguageId} from '../domain/universe.js';

/*
 * A small script-and-function-word language check for the simulator's replies (paper Appendix H:
 * "language-constraint violations trigger immediate retries"). It is deliberately lenient with
 * code-switching (Taglish, Manglish, loanwords), which real users do, and strict with replies in
 * a different script or plainly in English when the native language was asked for.
 */

export type LanguageCheck = {ok: boolean; detected: string; reason: string};

type ScriptCounts = {latin: number; han: number; kana: number; hangul: number; thai: number; tamil: number; letters: number; vietMarks: number};

function countScripts(text: string): ScriptCounts {
	const counts: ScriptCounts = {latin: 0, han: 0, kana: 0, hangul: 0, thai: 0, tamil: 0, letters: 0, vietMarks: 0};
	for (const char of text.normalize('NFC')) {
		const code = char.codePointAt(0)!;
		if ((code >= 0x41 && code <= 0x5a) || (code >= 0x61 && code <= 0x7a) || (code >= 0xc0 && code <= 0x24f) || (code >= 0x1e00 && code <= 0x1eff)) {
			counts.latin++;
			counts.letters++;
			if (VIET_LETTERS.has(char.toLowerCase())) counts.vietMarks++;
		} else if ((code >= 0x4e00 && code <= 0x9fff) || (code >= 0x3400 && code <= 0x4dbf) || (code >= 0xf900 && code <= 0xfaff)) {
			counts.han++;
			counts.letters++;
		} else if (code >= 0x3040 && code <= 0x30ff) {
			counts.kana++;
			counts.letters++;
		} else if ((code >= 0xac00 && code <= 0xd7a3) || (code >= 0x1100 && code <= 0x11ff) || (code >= 0x3130 && code <= 0x318f)) {
			counts.hangul++;
			counts.letters++;
		} else if (code >= 0x0e00 && code <= 0x0e7f) {
			counts.thai++;
			counts.letters++;
		} else if (code >= 0x0b80 && code <= 0x0bff) {
			counts.tamil++;
			counts.letters++;
		}
	}
	return counts;
}

/** Letters that occur in Vietnamese but rarely in Malay, Indonesian, Filipino or English text. */
const VIET_LETTERS = new Set([...'ăâđêôơưàảãáạằẳẵắặầẩẫấậèẻẽéẹềểễếệìỉĩíịòỏõóọồổỗốộờởỡớợùủũúụừửữứựỳỷỹýỵ']);

const FUNCTION_WORDS: Record<'english' | 'malay' | 'indonesian' | 'filipino' | 'vietnamese', ReadonlySet<string>> = {
	english: new Set('the and to of is are i you my me we our it that this for with have has be can what how do should would will not but or so if in on at about a an they their there'.split(' ')),
	malay: new Set('yang dan saya untuk tidak tak ini itu dengan ada di ke akan boleh kami kita nak macam mana apa sebab kalau juga sudah dah lagi pun dia mereka perlu buat tapi atau bagi kepada daripada dalam hendak ialah adalah'.split(' ')),
	indonesian: new Set('yang dan saya untuk tidak ini itu dengan ada di ke akan bisa kami kita mau gimana bagaimana apa karena kalau juga sudah lagi pun dia mereka perlu buat tapi atau bagi kepada dari dalam ingin adalah aku gak nggak sih dong'.split(' ')),
	filipino: new Set('ang ng mga sa na ako ko po hindi ba naman lang kasi yung ito para at si ni kami tayo namin niya siya nila kung may wala pero dahil pa rin din talaga ano paano saan kailan gusto dapat'.split(' ')),
	vietnamese: new Set('và của là có không tôi bạn cho với được này những một các để trong khi thì mà em anh chị ạ nhé gì sao như nào cũng đã sẽ rồi người nhà'.split(' ')),
};

function wordShare(text: string, words: ReadonlySet<string>): number {
	const tokens = text.toLowerCase().normalize('NFC').match(/[\p{L}']+/gu) ?? [];
	if (tokens.length === 0) return 0;
	let hits = 0;
	for (const token of tokens) if (words.has(token)) hits++;
	return hits / tokens.length;
}

function dominantLatinLanguage(text: string): {id: keyof typeof FUNCTION_WORDS; share: number} {
	let best: {id: keyof typeof FUNCTION_WORDS; share: number} = {id: 'english', share: -1};
	for (const id of Object.keys(FUNCTION_WORDS) as Array<keyof typeof FUNCTION_WORDS>) {
		const share = wordShare(text, FUNCTION_WORDS[id]);
		if (share > best.share) best = {id, share};
	}
	return best;
}

/** What a text looks like: a script name for non-Latin scripts, a language guess for Latin. */
export function detectLanguage(text: string): string {
	const c = countScripts(text);
	if (c.letters === 0) return 'none';
	const shares = {han: c.han / c.letters, kana: c.kana / c.letters, hangul: c.hangul / c.letters, thai: c.thai / c.letters, tamil: c.tamil / c.letters, latin: c.latin / c.letters};
	if (shares.kana >= 0.05 && shares.kana + shares.han >= 0.5) return 'japanese';
	if (shares.han >= 0.5) return 'mandarin';
	if (shares.hangul >= 0.5) return 'korean';
	if (shares.thai >= 0.5) return 'thai';
	if (shares.tamil >= 0.5) return 'tamil';
	if (shares.latin >= 0.5) {
		if (c.vietMarks / c.latin >= 0.05) return 'vietnamese';
		return dominantLatinLanguage(text).id;
	}
	return 'mixed';
}

/**
 * Whether `text` is in the expected language. `english` mode tolerates local words; native mode
 * tolerates English loanwords and code-switching but not a reply that is mostly English or in the
 * wrong script.
 */
export function checkLanguage(text: string, expected: LanguageId | 'english'): LanguageCheck {
	const detected = detectLanguage(text);
	const c = countScripts(text);
	if (c.letters === 0) return {ok: false, detected, reason: 'no letters in the reply'};
	const latinShare = c.latin / c.letters;
	switch (expected) {
		case 'english': {
			if (latinShare < 0.7) return {ok: false, detected, reason: `expected English but the reply is mostly in another script (${detected})`};
			const english = wordShare(text, FUNCTION_WORDS.english);
			const best = dominantLatinLanguage(text);
			// Short replies ("Thanks!") have few function words; only reject clear evidence of another language.
			if (best.id !== 'english' && best.share >= 0.2 && english < best.share / 2) return {ok: false, detected: best.id, reason: `expected English but the reply reads as ${best.id}`};
			return {ok: true, detected, reason: 'ok'};
		}
		case 'mandarin':
			return scriptCheck(detected === 'mandarin', detected, 'Chinese characters');
		case 'japanese':
			return scriptCheck(detected === 'japanese', detected, 'Japanese (kana and kanji)');
		case 'korean':
			return scriptCheck(detected === 'korean', detected, 'Hangul');
		case 'thai':
			return scriptCheck(detected === 'thai', detected, 'Thai script');
		case 'tamil':
			return scriptCheck(detected === 'tamil', detected, 'Tamil script');
		case 'vietnamese':
			return scriptCheck(detected === 'vietnamese', detected, 'Vietnamese with its diacritics');
		case 'malay':
		case 'indonesian':
		case 'filipino': {
			if (latinShare < 0.7) return {ok: false, detected, reason: `expected ${expected} but the reply is mostly in another script (${detected})`};
			// Malay and Indonesian share most function words; either counts for both.
			const own = expected === 'filipino' ? wordShare(text, FUNCTION_WORDS.filipino) : Math.max(wordShare(text, FUNCTION_WORDS.malay), wordShare(text, FUNCTION_WORDS.indonesian));
			const english = wordShare(text, FUNCTION_WORDS.english);
			if (own >= 0.08 && own >= english * 0.5) return {ok: true, detected: expected, reason: 'ok'};
			return {ok: false, detected, reason: `expected ${expected} but the reply reads as ${detected}`};
		}
		default: {
			const never: never = expected;
			return never;
		}
	}
}

function scriptCheck(ok: boolean, detected: string, what: string): LanguageCheck {
	return ok ? {ok, detected, reason: 'ok'} : {ok, detected, reason: `expected a reply in ${what} but it reads as ${detected}`};
}
