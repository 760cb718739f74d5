import assert from 'node:assert/strict';
import {mkdirSync, readFileSync, writeFileSync} from 'node:fs';
import path from 'node:path';
import {describe, it} from 'node:test';
import {loadUniverse} from '../src/universe/load.js';
import {SeedSpace, makeSeed, splitOf, tierOf} from '../src/universe/seeds.js';
import {findCultureWord} from '../src/universe/cultureWords.js';
import {slotProblems} from '../src/universe/templates.js';
import {copyKb, tempDir} from './helpers/tmp.js';

const universe = loadUniverse();

/** Paper Table 7: identities per region and the native language of each identity group. */
const TABLE7: Record<string, {count: number; languages: Record<string, number>}> = {
	BN: {count: 3, languages: {malay: 1, mandarin: 2}},
	CN: {count: 6, languages: {mandarin: 6}},
	ID: {count: 9, languages: {indonesian: 9}},
	JP: {count: 5, languages: {japanese: 5}},
	KR: {count: 5, languages: {korean: 5}},
	MY: {count: 7, languages: {malay: 3, mandarin: 2, tamil: 2}},
	PH: {count: 7, languages: {filipino: 7}},
	SG: {count: 6, languages: {mandarin: 3, malay: 1, tamil: 2}},
	TH: {count: 5, languages: {thai: 5}},
	VN: {count: 5, languages: {vietnamese: 5}},
};

describe('persona universe', () => {
	it('has 58 identities, 348 personas, 10 regions and 9 languages as in Table 7', () => {
		assert.equal(universe.identities.length, 58);
		assert.equal(universe.personas.length, 348);
		assert.equal(new Set(universe.personas.map((p) => p.region)).size, 10);
		assert.equal(new Set(universe.personas.map((p) => p.language)).size, 9);
		for (const [region, expected] of Object.entries(TABLE7)) {
			const identities = universe.identities.filter((identity) => identity.region === region);
			assert.equal(identities.length, expected.count, `identities in ${region}`);
			const languages: Record<string, number> = {};
			for (const identity of identities) languages[identity.language] = (languages[identity.language] ?? 0) + 1;
			assert.deepEqual(languages, expected.languages, `languages in ${region}`);
		}
	});

	it('routes minority identities to the right native language', () => {
		const language = (id: string) => universe.identityById.get(id)?.language;
		assert.equal(language('sg-tamil-hindu'), 'tamil');
		assert.equal(language('my-indian-muslim'), 'tamil');
		assert.equal(language('bn-chinese-christian'), 'mandarin');
		assert.equal(language('sg-malay-muslim'), 'malay');
		assert.equal(language('th-malay-muslim'), 'thai');
	});

	it('gives personas stable readable ids and the identity tags used for re-ranking', () => {
		const persona = universe.personaById.get('my-tamil-hindu-a55-f');
		assert.ok(persona);
		assert.equal(persona.age, '55+');
		assert.equal(persona.gender, 'female');
		assert.ok(persona.tags.includes('identity:my-tamil-hindu'));
		assert.ok(persona.tags.includes('religion:hinduism'));
		assert.ok(persona.tags.includes('lang:tamil'));
		assert.equal(new Set(universe.personas.map((p) => p.id)).size, 348);
	});
});

describe('scenario universe and templates', () => {
	it('has 7 domains of 6 subdomains with scaffold descriptions', () => {
		assert.equal(universe.domains.length, 7);
		for (const domain of universe.domains) assert.equal(domain.subdomains.length, 6);
		assert.equal(universe.subdomainById.size, 42);
	});

	it('has at least 2 distinct templates for every subdomain (84+)', () => {
		assert.ok(universe.templates.length >= 84, `${universe.templates.length} templates`);
		for (const id of universe.subdomainById.keys()) {
			const templates = universe.templates.filter((template) => template.subdomain === id);
			assert.ok(templates.length >= 2, `${id} has ${templates.length}`);
			assert.equal(new Set(templates.map((template) => template.sketch)).size, templates.length, `${id} repeats a sketch`);
		}
	});

	it('detects undeclared, unused and malformed slots', () => {
		const base = {title: 'A move', sketch: 'Someone moves to {{TOWN}} before {{DATE}}.', ask: 'What should they do?'};
		assert.deepEqual(slotProblems({...base, slots: [{name: 'TOWN', meaning: 'a town', kind: 'venue'}, {name: 'DATE', meaning: 'a date', kind: 'date'}]}), []);
		assert.match(slotProblems({...base, slots: [{name: 'TOWN', meaning: 'a town', kind: 'venue'}]}).join(), /\{\{DATE\}\} is used but not declared/);
		assert.match(slotProblems({...base, slots: [{name: 'TOWN', meaning: 'x', kind: 'venue'}, {name: 'DATE', meaning: 'x', kind: 'date'}, {name: 'EXTRA', meaning: 'x', kind: 'free'}]}).join(), /EXTRA is declared but never used/);
		assert.match(slotProblems({...base, sketch: 'In {{town}}.', slots: []}).join(), /not an UPPER_SNAKE_CASE/);
	});

	it('flags culture-specific words but not look-alike English words', () => {
		assert.equal(findCultureWord('They host a dinner for Ramadan.'), 'Ramadan');
		assert.equal(findCultureWord('She visits the temple with {{RELATIVE}}.'), 'temple');
		assert.equal(findCultureWord('He lent money and won the bet for the sake of peace.'), undefined);
		assert.equal(findCultureWord('They cook {{DISH}} during {{FESTIVAL}}.'), undefined);
	});
});

describe('seeds', () => {
	const space = new SeedSpace(universe);

	it('counts personas x templates without materialising them', () => {
		assert.equal(space.count(), 348 * universe.templates.length);
		assert.equal(space.size, space.count());
	});

	it('allocates tiers 50/25/25 within one point over all seeds', () => {
		const counts = {standard: 0, contextual: 0, normative: 0};
		let total = 0;
		for (const seed of space.iterate()) {
			counts[seed.tier]++;
			total++;
		}
		assert.ok(Math.abs((100 * counts.standard) / total - 50) < 1, `standard ${counts.standard}/${total}`);
		assert.ok(Math.abs((100 * counts.contextual) / total - 25) < 1, `contextual ${counts.contextual}/${total}`);
		assert.ok(Math.abs((100 * counts.normative) / total - 25) < 1, `normative ${counts.normative}/${total}`);
	});

	it('derives tier and split from the seed id alone (golden values)', () => {
		// Changing the hash would silently move every seed between tiers and splits: pin it.
		assert.deepEqual([tierOf('my-malay-muslim-a18-f:culinary.dietary-rules.01'), splitOf('my-malay-muslim-a18-f:culinary.dietary-rules.01')], GOLDEN.first);
		assert.deepEqual([tierOf('jp-ainu-a55-m:health.mental-health.02'), splitOf('jp-ainu-a55-m:health.mental-health.02')], GOLDEN.second);
		const seed = makeSeed({id: 'kr-jeju-a35-f'}, {id: 'ritual.death-mourning.01'});
		assert.deepEqual(space.get(seed.id), seed);
	});

	it('puts every region, identity and domain in the test split', () => {
		const regions = new Set<string>();
		const identities = new Set<string>();
		const domains = new Set<string>();
		let test = 0;
		for (const seed of space.iterate({split: 'test'})) {
			const persona = universe.personaById.get(seed.personaId)!;
			regions.add(persona.region);
			identities.add(persona.identityId);
			domains.add(universe.templateById.get(seed.templateId)!.domain);
			test++;
		}
		assert.equal(regions.size, 10);
		assert.equal(identities.size, 58);
		assert.equal(domains.size, 7);
		const share = test / space.count();
		assert.ok(share > 0.04 && share < 0.06, `test share ${share}`);
	});

	it('keeps every existing seed unchanged when templates are added', () => {
		const home = tempDir();
		mkdirSync(path.join(home, 'templates'));
		writeFileSync(path.join(home, 'templates', 'extra.json'), JSON.stringify({version: 1, templates: [
			{id: 'culinary.dietary-rules.90', subdomain: 'culinary.dietary-rules', title: 'Office lunch order', sketch: 'A team lead orders lunch for {{TEAM_SIZE}} colleagues, some of whom follow {{FOOD_RULE}}.', ask: 'How should the order be split?', slots: [{name: 'TEAM_SIZE', meaning: 'number of people', kind: 'count'}, {name: 'FOOD_RULE', meaning: 'a dietary rule', kind: 'free'}], dimensions: ['dietary-rules']},
		]}));
		const bigger = new SeedSpace(loadUniverse({userTemplatesDir: path.join(home, 'templates')}));
		assert.equal(bigger.count(), space.count() + 348);
		const before = space.list({region: 'SG'}, {limit: 500});
		for (const seed of before) assert.deepEqual(bigger.get(seed.id), seed);
	});

	it('filters lazily and pages with offset and limit', () => {
		const page = space.list({region: 'TH', domain: 'health', tier: 'normative'}, {offset: 5, limit: 7});
		assert.equal(page.length, 7);
		for (const seed of page) {
			assert.equal(seed.tier, 'normative');
			assert.ok(seed.personaId.startsWith('th-'));
			assert.ok(seed.templateId.startsWith('health.'));
		}
		const all = space.list({region: 'TH', domain: 'health', tier: 'normative'});
		assert.deepEqual(page, all.slice(5, 12));
	});
});

describe('bad data files', () => {
	it('names the file and field of a malformed identities file', () => {
		const kb = copyKb();
		const file = path.join(kb, 'universe', 'identities.json');
		const data = JSON.parse(readFileSync(file, 'utf8'));
		data.identities[3].language = 'klingon';
		writeFileSync(file, JSON.stringify(data));
		assert.throws(() => loadUniverse({kbDir: kb}), /universe\/identities\.json: identities\[3\]\.language/);
	});

	it('rejects a template file with an undeclared slot, naming file and template', () => {
		const kb = copyKb();
		const file = path.join(kb, 'templates', 'culinary.json');
		const data = JSON.parse(readFileSync(file, 'utf8'));
		data.templates[0].sketch += ' Then {{MYSTERY}} happens.';
		writeFileSync(file, JSON.stringify(data));
		assert.throws(() => loadUniverse({kbDir: kb}), (error: Error) => /templates\/culinary\.json/.test(error.message) && /\{\{MYSTERY\}\} is used but not declared/.test(error.message) && error.message.includes(data.templates[0].id));
	});

	it('rejects duplicate template ids across files', () => {
		const kb = copyKb();
		const source = JSON.parse(readFileSync(path.join(kb, 'templates', 'culinary.json'), 'utf8'));
		writeFileSync(path.join(kb, 'templates', 'zz-copy.json'), JSON.stringify({version: 1, templates: [source.templates[0]]}));
		assert.throws(() => loadUniverse({kbDir: kb}), /zz-copy\.json: .*duplicate id/s);
	});

	it('rejects duplicate identity ids and invalid JSON', () => {
		const kb = copyKb();
		const file = path.join(kb, 'universe', 'identities.json');
		const data = JSON.parse(readFileSync(file, 'utf8'));
		data.identities[1].id = data.identities[0].id;
		writeFileSync(file, JSON.stringify(data));
		assert.throws(() => loadUniverse({kbDir: kb}), /identities\[1\]\.id: duplicate id 'bn-malay-muslim'/);
		writeFileSync(file, '{"version": 1, "ages": [');
		assert.throws(() => loadUniverse({kbDir: kb}), /identities\.json: not valid JSON/);
	});
});

const GOLDEN = {
	first: ['contextual', 'train'],
	second: ['standard', 'train'],
};
