import assert from 'node:assert/strict';
import {readFileSync} from 'node:fs';
import path from 'node:path';
import {describe, it} from 'node:test';
import {CulturalEntry} from '../src/domain/kb.js';
import {importKb} from '../src/kb/importers/index.js';
import {KnowledgeBase} from '../src/kb/knowledgeBase.js';
import {loadUniverse} from '../src/universe/load.js';
import {runCli} from './helpers/cli.js';
import {importLocation, tempDir} from './helpers/tmp.js';

const universe = loadUniverse();
const BLEND = path.resolve(import.meta.dirname, 'fixtures/blend');


const readEntries = (file: string) => readFileSync(file, 'utf8').trim().split('\n').map((line) => CulturalEntry.parse(JSON.parse(line)));

describe('kb import --format blend (BLEnD annotations)', () => {
	it('turns each question with a shared answer into a cultural passage, topic -> domain, and names every skipped question', () => {
		const where = importLocation('cc-kb-blend-');
		const summary = importKb({file: path.join(BLEND, 'annotations', 'South_Korea_data.json'), format: 'blend', location: where, universe});
		assert.equal(summary.kind, 'cultural');
		assert.equal(summary.rows, 5);
		assert.equal(summary.imported, 2);
		assert.deepEqual(summary.byRegion['KR'], 2);
		assert.deepEqual(summary.byReason, {'no-consensus': 1, 'no-answer': 1, schema: 1});
		assert.deepEqual(summary.skips.map((skip) => [skip.line, skip.code]), [[32, 'no-consensus'], [61, 'no-answer'], [71, 'schema']]);
		assert.match(summary.skips[2]!.reason, /^Fx-en-04: .*count/);
		assert.match(summary.notes.join('\n'), /Topics from .*South_Korea_questions\.csv \(5 questions\)/);
		assert.match(summary.notes.join('\n'), /CC BY-SA 4\.0/);

		const [rainy, chuseok] = readEntries(summary.output!);
		assert.equal(rainy!.domain, 'culinary');
		assert.equal(rainy!.title, 'What food do people in South Korea often eat on a rainy day?');
		assert.match(rainy!.text, /answered most often: savory pancake \/ jeon \(4 of 5\); knife-cut noodles \(1 of 5\)\./);
		assert.match(rainy!.text, /top answer is "전"/);
		assert.match(rainy!.text, /1 annotator\(s\) did not know/);
		assert.deepEqual(rainy!.provenance, {dataset: 'BLEnD', file: 'South_Korea_data.json', line: 2, ref: 'Fx-en-01', license: 'CC BY-SA 4.0'});
		assert.equal(chuseok!.domain, 'ritual', 'a holiday question under Holidays/Celebration/Leisure is ritual');
		assert.deepEqual(chuseok!.regions, ['KR']);
	});

	it('maps West Java to Indonesia with Sundanese tags, guessing domains when no questions CSV is there', () => {
		const summary = importKb({file: path.join(BLEND, 'loose', 'West_Java_data.json'), format: 'blend', location: importLocation('cc-kb-blend-'), universe});
		assert.equal(summary.imported, 1);
		const [entry] = readEntries(summary.output!);
		assert.deepEqual(entry!.regions, ['ID']);
		assert.deepEqual(entry!.tags, ['ethnicity:sundanese', 'locality:west-java']);
		assert.equal(entry!.domain, 'culinary');
		assert.match(summary.notes.join('\n'), /guessed from question words/);
	});

	it('imported passages are retrieved for the region, and outside regions are refused by name', async () => {
		const root = tempDir('cc-kb-blend-cli-');
		const env = {CULTURECONVERSE_HOME: root, CULTURECONVERSE_EMBEDDER: 'hash'};
		const imported = await runCli(['kb', 'import', path.join(BLEND, 'annotations', 'South_Korea_data.json'), '--format', 'blend'], {env, cwd: root});
		assert.equal(imported.code, 0, imported.stderr);
		assert.match(imported.stdout, /Imported 2 cultural passages from 5 rows/);
		assert.match(imported.stdout, /South_Korea_data\.json:71: Fx-en-04: /);
		const kb = await KnowledgeBase.open({workspace: root, embedder: 'hash'});
		const hits = await kb.search('rainy day pancake', {kind: 'cultural', topK: 3, filter: {region: 'KR'}});
		assert.equal(hits[0]?.id, 'blend-kr-south-korea-fx-en-01');

		const outside = await runCli(['kb', 'import', path.join(BLEND, 'loose', 'North_Korea_data.json'), '--format', 'blend'], {env, cwd: root});
		assert.equal(outside.code, 2);
		assert.match(outside.stderr, /'North_Korea' is not one of ours.*China_data\.json, South_Korea_data\.json, Indonesia_data\.json, West_Java_data\.json; or pass --region/);
		const taboo = await runCli(['kb', 'import', path.join(BLEND, 'loose', 'West_Java_data.json'), '--format', 'blend', '--kind', 'taboo'], {env, cwd: root});
		assert.match(taboo.stderr, /--format blend imports cultural passages only/);
	});
});
