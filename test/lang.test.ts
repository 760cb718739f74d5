import assert from 'node:assert/strict';
import {describe, it} from 'node:test';
import {checkLanguage, detectLanguage} from '../src/lang/detect.js';
import {PHRASEBOOK_LANGUAGES, phrases} from '../src/mock/phrasebook.js';

describe('language check', () => {
	it('detects the nine native languages from their scripts and function words', () => {
		const samples: Record<string, string> = {
			mandarin: '我想请问一下，春节回家应该给长辈带什么礼物比较好？',
			japanese: 'お盆に実家へ帰るとき、何を持って行けばいいでしょうか。',
			korean: '추석에 시댁에 갈 때 어떤 선물을 준비하면 좋을까요?',
			thai: 'ช่วงสงกรานต์จะกลับบ้านต่างจังหวัด ควรเตรียมของฝากอะไรดี',
			tamil: 'தீபாவளிக்கு உறவினர் வீட்டுக்குச் செல்லும்போது என்ன கொண்டு போகலாம்?',
			vietnamese: 'Tết này tôi về quê, nên mua quà gì cho ông bà và các bác?',
			filipino: 'Pupunta po kami sa probinsya ng lola ko at hindi ko alam kung ano ang dapat dalhin.',
			malay: 'Saya nak balik kampung untuk raya dan tak pasti apa yang patut dibawa untuk nenek.',
		};
		for (const [language, text] of Object.entries(samples)) assert.equal(checkLanguage(text, language as never).ok, true, `${language}: ${detectLanguage(text)}`);
		assert.equal(checkLanguage('Saya mau pulang kampung dan bingung harus bawa apa untuk nenek.', 'indonesian').ok, true);
	});

	it('rejects English, and the wrong script, where a native language was asked for', () => {
		const english = 'I am going home for the holidays and I do not know what I should bring for my grandmother.';
		for (const language of ['mandarin', 'japanese', 'korean', 'thai', 'tamil', 'vietnamese', 'malay', 'indonesian', 'filipino'] as const) {
			assert.equal(checkLanguage(english, language).ok, false, language);
		}
		assert.equal(checkLanguage('我想请问一下，春节回家应该带什么？', 'japanese').ok, false, 'Chinese is not Japanese');
		assert.equal(checkLanguage('お盆に実家へ帰るとき、何を持って行けばいいでしょうか。', 'mandarin').ok, false, 'Japanese is not Chinese');
	});

	it('accepts English with local words and code-switching, and rejects other languages in English mode', () => {
		assert.equal(checkLanguage('Should I bring kuih or ang pao when visiting my lola during the festival?', 'english').ok, true);
		assert.equal(checkLanguage('Thanks!', 'english').ok, true);
		assert.equal(checkLanguage('추석에 시댁에 갈 때 어떤 선물을 준비하면 좋을까요?', 'english').ok, false);
		assert.equal(checkLanguage('Saya nak balik kampung untuk raya dan tak pasti apa yang patut dibawa untuk nenek kami.', 'english').ok, false);
		assert.equal(checkLanguage('Pupunta po kami sa probinsya, pero hindi ko alam kung ano ang dadalhin para sa lola ko.', 'filipino').ok, true);
	});

	it('every phrasebook sentence passes the check for its language', () => {
		for (const language of PHRASEBOOK_LANGUAGES) {
			const p = phrases(language);
			for (const [key, value] of Object.entries(p)) {
				const texts = Array.isArray(value) ? value : [value];
				for (const text of texts) assert.equal(checkLanguage(text as string, language).ok, true, `${language}.${key}: ${text}`);
			}
		}
	});
});
