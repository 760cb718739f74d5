import assert from 'node:assert/strict';
import {mkdirSync, readFileSync, readdirSync, statSync, writeFileSync} from 'node:fs';
import path from 'node:path';
import {describe, it} from 'node:test';
import {TabooEntry} from '../src/domain/kb.js';
import {parseCsv} from '../src/kb/importers/csv.js';
import {importKb} from '../src/kb/importers/index.js';
import {normadCategory, statesAvoidance} from '../src/kb/importers/normad.js';
import {chunkText, inferRegions, titleSlug} from '../src/kb/importers/wikipedia.js';
import {KnowledgeBase} from '../src/kb/knowledgeBase.js';
import {loadUniverse} from '../src/universe/load.js';
import {importLocation, tempDir} from './helpers/tmp.js';

const universe = loadUniverse();
const NORMAD = path.resolve(import.meta.dirname, 'fixtures/normad/normad_sample.csv');


/** Every path under a folder with its size and modification time, to prove nothing there was touched. */
const snapshot = (dir: string) => readdirSync(dir, {recursive: true}).map(String).sort().map((name) => {
	const stat = statSync(path.join(dir, name));
	return [name, stat.size, stat.mtimeMs];
});

describe('kb import: CSV reader', () => {
	it('reads quoted fields with commas, doubled quotes and line breaks, remembering start lines', () => {
		const records = parseCsv('\uFEFFa,b,c\r\n1,"x, y","say ""hi"""\n2,"line one\nline two",z\n\n3,,\n');
		assert.deepEqual(records.map((r) => [r.line, r.fields]), [
			[1, ['a', 'b', 'c']],
			[2, ['1', 'x, y', 'say "hi"']],
			[3, ['2', 'line one\nline two', 'z']],
			[6, ['3', '', '']],
		]);
		const broken = parseCsv('a,b\n1,"never closed\n2,3\n');
		assert.equal(broken[1]!.line, 2);
		assert.match(broken[1]!.error!, /opened on line 2 is never closed/);
	});
});

describe('kb import: NormAd-Eti', () => {
	it('imports the rows of our regions as taboo entries, reports per-region counts and every bad row with file:line', () => {
		const loc = importLocation();
		const before = snapshot(loc.shippedDir);
		const summary = importKb({file: NORMAD, format: 'normad', location: loc, universe});
		assert.equal(summary.kind, 'taboo');
		assert.equal(summary.rows, 18);
		assert.equal(summary.imported, 8);
		assert.deepEqual(summary.byRegion, {BN: 0, CN: 1, ID: 1, JP: 1, KR: 1, MY: 1, PH: 0, SG: 1, TH: 1, VN: 1});
		assert.equal(summary.skipped, 10);
		assert.deepEqual(summary.byKind, {invalid: 4, filtered: 5, duplicate: 1});
		assert.deepEqual(summary.byReason, {'same-norm': 1, neutral: 2, 'positive-norm': 1, 'other-country': 2, 'bad-id': 1, 'field-count': 1, 'bad-label': 1, 'malformed-csv': 1});
		const invalid = summary.skips.filter((skip) => skip.kind === 'invalid').map((skip) => `${path.basename(skip.file)}:${skip.line}: ${skip.reason}`);
		assert.deepEqual(invalid, [
			"normad_sample.csv:39: ID 'x14' is not a whole number",
			'normad_sample.csv:41: expected 10 fields, got 9',
			"normad_sample.csv:43: Gold Label 'maybe' is not yes, no or neutral",
			'normad_sample.csv:45: quoted field opened on line 45 is never closed',
		]);
		assert.deepEqual(summary.skips.find((skip) => skip.code === 'other-country')!.line, 35);
		// Written to the user folder, never into the shipped one.
		assert.equal(summary.output, path.join(loc.userDir, 'taboo', 'normad-normad_sample.jsonl'));
		assert.deepEqual(snapshot(loc.shippedDir), before);
		const entries = readFileSync(summary.output!, 'utf8').trim().split('\n').map((line) => TabooEntry.parse(JSON.parse(line)));
		const jp = entries.find((entry) => entry.region === 'JP')!;
		assert.equal(jp.id, 'normad-jp-0');
		assert.equal(jp.action, "It is rude to wear outdoor shoes inside someone's home.");
		assert.deepEqual(jp.provenance, {dataset: 'NormAd-Eti', file: 'normad_sample.csv', line: 2, ref: 'ID 0; japan; visiting; gold label no', license: 'CC BY 4.0'});
		assert.match(entries.find((entry) => entry.region === 'KR')!.action, /^Not following the expected practice: Younger people wait/);
		const sg = entries.find((entry) => entry.region === 'SG')!;
		assert.equal(sg.explanation, 'Public order and consideration for others.', 'a yes row explains with its value');
		assert.equal(entries.find((entry) => entry.region === 'MY')!.severity, 'high');
	});

	it('writes nothing in a dry run', () => {
		const loc = importLocation();
		const summary = importKb({file: NORMAD, format: 'normad', location: loc, dryRun: true});
		assert.equal(summary.imported, 8);
		assert.throws(() => readdirSync(loc.userDir), /ENOENT/);
	});

	it('maps norms to categories and recognises prohibitions', () => {
		assert.ok(statesAvoidance('It is rude to point with one finger.'));
		assert.ok(statesAvoidance('Avoid sweeping on New Year.'));
		assert.ok(!statesAvoidance('It is polite to bring a small gift.'));
		assert.equal(normadCategory('Pour drinks for others at the table.', 'basic_etiquette'), 'culinary');
		assert.equal(normadCategory('Wear dark clothes to a funeral.', 'basic_etiquette'), 'ritual');
		assert.equal(normadCategory('Bring something small.', 'gift_giving'), 'interpersonal');
		assert.equal(normadCategory('Greet people warmly.', 'māori_etiquette'), 'interpersonal');
	});

	it('re-importing replaces the earlier import instead of clashing with its own ids, and the KB picks it up', async () => {
		const loc = importLocation();
		importKb({file: NORMAD, format: 'normad', location: loc, universe});
		const again = importKb({file: NORMAD, format: 'normad', location: loc, universe});
		assert.equal(again.imported, 8);
		assert.ok(again.replaced);
		const kb = await KnowledgeBase.open({kbDir: loc.shippedDir, workspace: path.dirname(loc.userDir), embedder: 'hash', universe});
		assert.equal(kb.stats().taboo.byRegion.JP, 1);
		const hits = await kb.search('outdoor shoes in the home', {kind: 'taboo', topK: 1, filter: {region: 'JP'}});
		assert.equal(hits[0]!.id, 'normad-jp-0');
		assert.equal(hits[0]!.provenance?.dataset, 'NormAd-Eti');
	});

	it('refuses a CSV without the NormAd columns and a kind other than taboo', () => {
		const loc = importLocation();
		const file = path.join(path.dirname(loc.userDir), 'other.csv');
		mkdirSync(path.dirname(file), {recursive: true});
		writeFileSync(file, 'ID,Country,Story\n1,japan,x\n');
		assert.throws(() => importKb({file, format: 'normad', location: loc}), /missing column\(s\) Background, Axis, Subaxis, Value, Rule-of-Thumb, Explanation, Gold Label/);
		assert.throws(() => importKb({file: NORMAD, format: 'normad', kind: 'cultural', location: loc}), /taboo entries only/);
	});
});

describe('kb import: Wikipedia JSONL', () => {
	const paragraph = (topic: string, n: number) => Array.from({length: n}, (_, i) => `${topic} sentence ${i + 1} describes local customs, places and the people who keep them alive today.`).join(' ');
	const articles = [
		{title: 'Songkran', url: 'https://en.wikipedia.org/wiki/Songkran', categories: ['Festivals in Thailand', 'New Year celebrations'], text: `${paragraph('Songkran', 6)}\n\n${paragraph('Water', 6)}\n\n${paragraph('Temple', 6)}`},
		{title: 'Nasi kandar', categories: ['Malaysian cuisine', 'Penang cuisine'], text: 'Nasi kandar is steamed rice served with curries, sold in Penang from shops run by Tamil Muslim families.'},
		{title: 'Malaysian Chinese', categories: ['Chinese diaspora in Malaysia', 'Malaysian culture'], text: 'Malaysian Chinese are citizens of Chinese descent, with Hokkien, Cantonese and Hakka among their languages.'},
		{title: 'Paris Métro', categories: ['Transport in Paris'], text: 'The Paris Métro is a rapid transit system serving the French capital and its suburbs.'},
		'{"title": "broken"',
		{title: 'No text here'},
		{title: 'ลอยกระทง', categories: ['Festivals in Thailand'], text: 'ลอยกระทงเป็นประเพณีของไทยที่จัดขึ้นในคืนวันเพ็ญเดือนสิบสอง ผู้คนลอยกระทงในแม่น้ำเพื่อขอขมาพระแม่คงคา'},
	];
	const writeArticles = (dir: string) => {
		const file = path.join(dir, 'articles.jsonl');
		writeFileSync(file, `${articles.map((a) => (typeof a === 'string' ? a : JSON.stringify(a))).join('\n')}\n`);
		return file;
	};

	it('chunks articles into passages tagged with regions, domain and provenance', () => {
		const loc = importLocation();
		mkdirSync(path.dirname(loc.userDir), {recursive: true});
		const summary = importKb({file: writeArticles(path.dirname(loc.userDir)), format: 'wikipedia', location: loc, universe});
		assert.equal(summary.kind, 'cultural');
		assert.equal(summary.rows, 7);
		const entries = readFileSync(summary.output!, 'utf8').trim().split('\n').map((line) => JSON.parse(line) as {id: string; regions: string[]; domain: string; title: string; text: string; source: string; provenance: {line: number; ref: string}});
		const songkran = entries.filter((entry) => entry.id.startsWith('wiki-songkran-'));
		assert.ok(songkran.length >= 2, 'a long article becomes several passages');
		assert.ok(songkran.every((entry) => entry.regions.join() === 'TH' && entry.domain === 'ritual' && entry.text.length <= 1300));
		assert.equal(songkran[0]!.title, `Songkran (1/${songkran.length})`);
		assert.equal(songkran[0]!.provenance.ref, 'https://en.wikipedia.org/wiki/Songkran');
		assert.equal(entries.find((entry) => entry.id === 'wiki-nasi-kandar-1')!.domain, 'culinary');
		assert.deepEqual(entries.find((entry) => entry.id.startsWith('wiki-malaysian-chinese'))!.regions, ['MY'], 'a diaspora is not tagged with China');
		const thai = entries.find((entry) => entry.title === 'ลอยกระทง')!;
		assert.match(thai.id, /^wiki-t[0-9a-f]{10}-1$/);
		assert.deepEqual(thai.regions, ['TH']);
		assert.deepEqual(summary.byReason, {'no-region': 1, json: 1, schema: 1});
		assert.deepEqual(summary.skips.map((skip) => skip.line), [4, 5, 6]);
		assert.match(summary.skips[0]!.reason, /Paris Métro.*none of the 10 regions \(pass --region\)/);
		assert.equal(summary.byRegion.TH, songkran.length + 1);
	});

	it('takes regions and domain from the options when given', () => {
		const loc = importLocation();
		mkdirSync(path.dirname(loc.userDir), {recursive: true});
		const summary = importKb({file: writeArticles(path.dirname(loc.userDir)), format: 'wikipedia', location: loc, regions: ['SG'], domain: 'lifestyle', name: 'forced'});
		assert.equal(summary.output, path.join(loc.userDir, 'cultural', 'forced.jsonl'));
		assert.equal(summary.byRegion.SG, summary.imported);
		assert.equal(summary.byReason['no-region'], undefined);
	});

	it('splits text at paragraphs and sentences and infers regions from names', () => {
		const chunks = chunkText(`${'A short opening line about Jeju.'}\n\n${'Long sentence about haenyeo divers. '.repeat(60)}`);
		assert.ok(chunks.length >= 2 && chunks.every((chunk) => chunk.length <= 1200 && chunk.length >= 20));
		assert.deepEqual(chunkText('tiny'), []);
		assert.deepEqual(inferRegions('Zainichi Korean culture in Japan'), ['JP']);
		assert.deepEqual(inferRegions('Korean cuisine'), ['KR']);
		assert.deepEqual(inferRegions('Festivals in Singapore and Malaysia'), ['MY', 'SG']);
		assert.equal(titleSlug('Hari Raya Aidilfitri'), 'hari-raya-aidilfitri');
		assert.equal(titleSlug('Tết Nguyên Đán'), 'tet-nguyen-dan');
	});
});

describe('kb import: JSONL', () => {
	it('validates entries, keeps where they came from, and rejects ids already in the KB', () => {
		const loc = importLocation();
		const dir = path.dirname(loc.userDir);
		mkdirSync(dir, {recursive: true});
		const good = {id: 'user-sg-001', region: 'SG', identities: ['sg-malay-muslim'], category: 'culinary', action: 'Bringing food of unknown origin to a Malay Muslim colleague\'s home', explanation: 'Hosts keep a halal kitchen and cannot serve it.', severity: 'high', source: 'curated'};
		const file = path.join(dir, 'mine.jsonl');
		writeFileSync(file, [
			JSON.stringify(good),
			JSON.stringify({...good, id: 'tab-my-001', region: 'MY', identities: []}),
			JSON.stringify({...good, id: 'user-sg-002', identities: ['my-tamil-hindu']}),
			JSON.stringify({...good, id: 'user-sg-003', severity: 'extreme'}),
			'not json',
		].join('\n'));
		const summary = importKb({file, format: 'jsonl', kind: 'taboo', location: loc, universe});
		assert.equal(summary.imported, 1);
		assert.deepEqual(summary.skips.map((skip) => [skip.line, skip.code]), [[2, 'duplicate-id'], [3, 'reference'], [4, 'schema'], [5, 'json']]);
		assert.match(summary.skips[0]!.reason, /id 'tab-my-001' already exists at kb\/taboo\/MY.jsonl:1/);
		assert.match(summary.skips[1]!.reason, /'my-tamil-hindu' belongs to MY, not SG/);
		const written = JSON.parse(readFileSync(summary.output!, 'utf8').trim()) as {provenance: unknown};
		assert.deepEqual(written.provenance, {dataset: 'jsonl', file: 'mine.jsonl', line: 1});
		assert.throws(() => importKb({file, format: 'jsonl', location: loc}), /needs --kind cultural or --kind taboo/);
	});
});
