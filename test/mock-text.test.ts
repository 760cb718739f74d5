import assert from 'node:assert/strict';
import {describe, it} from 'node:test';
import {firstPerson} from '../src/mock/text.js';
import {runCli} from './helpers/cli.js';
import {tempDir} from './helpers/tmp.js';

describe('offline mock: first-person rewriting of template sketches', () => {
	const cases: Array<[string, string]> = [
		['The person follows a rule and suspects several items will not be suitable.', 'I follow a rule and suspect several items will not be suitable.'],
		['The person worries about it and wishes to leave.', 'I worry about it and wish to leave.'],
		['The person teaches and manages the shop and hopes that it works.', 'I teach and manage the shop and hope that it works.'],
		['They are tired and needs a break.', 'I am tired and need a break.'],
		['The person is new. They has a dog and misses it. They always discuss it.', 'I am new. I have a dog and miss it. I always discuss it.'],
		// Lists ending in plural nouns, and other subjects, keep their -s.
		['They like dates, food and gifts.', 'I like dates, food and gifts.'],
		["A person's landlord agrees and notes that rent is due.", 'My landlord agrees and notes that rent is due.'],
		// After a joiner the person's verb agrees even when it is not a known one, and past an adverb.
		['The rule is clear, yet the person suspects the dish has pork.', 'The rule is clear, yet I suspect the dish has pork.'],
		['The lease starts soon, and the person also wonders about a custom.', 'The lease starts soon, and I also wonder about a custom.'],
	];
	for (const [input, expected] of cases) it(`"${input}"`, () => assert.equal(firstPerson(input), expected));
});

describe('offline mock: slot values from the persona', () => {
	it('fills a food rule from the persona\'s religion and a senior colleague\'s title with a form of address of the persona\'s community', async () => {
		const home = tempDir();
		const blueprint = async (persona: string) => {
			const result = await runCli(['blueprint', `${persona}:culinary.dietary-rules.01`, '--json'], {env: {CULTURECONVERSE_HOME: home, CULTURECONVERSE_EMBEDDER: 'hash'}, cwd: home});
			assert.equal(result.code, 0, result.stderr);
			const out = JSON.parse(result.stdout) as {blueprint: {public: {initialMessage: string}; private: {slots: Array<{name: string; value: string}>}}};
			return {message: out.blueprint.public.initialMessage, slots: Object.fromEntries(out.blueprint.private.slots.map((slot) => [slot.name, slot.value]))};
		};
		const tamil = await blueprint('my-tamil-hindu-a55-f');
		assert.equal(tamil.slots['DIETARY_RULE'], 'a no-beef rule');
		// A title slot takes a name with its honorific from the region's lexicon, one the persona's community uses.
		assert.match(tamil.slots['SENIOR_COLLEAGUE_TITLE']!, /^(?:Mr|Madam) [A-Z]\w+$/);
		assert.match(tamil.message, /I follow a no-beef rule and suspect /);
		const malay = await blueprint('my-malay-muslim-a18-m');
		assert.equal(malay.slots['DIETARY_RULE'], 'halal food rules');
		assert.match(malay.slots['SENIOR_COLLEAGUE_TITLE']!, /^(?:Encik|Puan|Datuk) [A-Z]\w+$/);
	});
});
