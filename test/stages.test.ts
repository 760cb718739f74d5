import assert from 'node:assert/strict';
import {readFileSync} from 'node:fs';
import path from 'node:path';
import {after, before, describe, it} from 'node:test';
import {loadUniverse} from '../src/universe/load.js';
import {parseJson, runCli} from './helpers/cli.js';
import {episodeHarness, type Harness} from './helpers/episodeHarness.js';
import {scriptedModel} from './helpers/scriptedModel.js';
import {tempDir} from './helpers/tmp.js';

let h: Harness;
before(async () => {
	h = await episodeHarness();
});
after(() => h.close());

const SEED = 'sg-tamil-hindu-a35-f:culinary.festive-foods.01';

describe('stage commands offline (mock provider)', () => {
	it('blueprint prints the three partitions and says it used the mock', async () => {
		const home = tempDir();
		const result = await runCli(['blueprint', SEED, '--tier', 'normative'], {env: {CULTURECONVERSE_HOME: home}, cwd: home});
		assert.equal(result.code, 0, result.stderr);
		assert.match(result.stderr, /Offline mock provider/);
		for (const label of ['[PUBLIC]', '[PRIVATE]', '[ORACLE]']) assert.ok(result.stdout.includes(label), label);
		assert.match(result.stdout, /Tripwires:\n\s+- T1/);
	});

	it('shards --json gives 3-5 shards and the blueprint they came from', async () => {
		const home = tempDir();
		const result = await runCli(['shards', SEED, '--json'], {env: {CULTURECONVERSE_HOME: home}, cwd: home});
		assert.equal(result.code, 0, result.stderr);
		const out = parseJson<{shards: unknown[]; blueprint: {meta: {mock: boolean; shardAttempts: unknown[]}}}>(result.stdout);
		assert.ok(out.shards.length >= 3 && out.shards.length <= 5);
		assert.equal(out.blueprint.meta.mock, true);
		assert.equal(out.blueprint.meta.shardAttempts.length, 1);
	});

	it('exports the blueprint, shards, session and config JSON Schemas', async () => {
		for (const name of ['blueprint', 'shards', 'session', 'config', 'evidence']) {
			const result = await runCli(['schema', name]);
			assert.equal(result.code, 0, `${name}: ${result.stderr}`);
			assert.equal(parseJson<{type: string}>(result.stdout).type, 'object');
		}
		const session = parseJson<{required: string[]}>((await runCli(['schema', 'session'])).stdout);
		for (const field of ['id', 'status', 'seed', 'config', 'evidence', 'blueprint', 'shards', 'turns', 'judge', 'error', 'termination', 'calls']) assert.ok(session.required.includes(field), field);
	});
});

describe('stage commands against an OpenAI-compatible endpoint', () => {
	it('blueprint runs over HTTP with a json_schema request and does not mention the mock', async () => {
		h.fake.reset();
		h.fake.setHandler(scriptedModel());
		const result = await runCli(['blueprint', SEED, '--json'], {env: h.env, cwd: h.cwd});
		assert.equal(result.code, 0, result.stderr);
		assert.doesNotMatch(result.stderr, /mock/i);
		const request = h.fake.chatRequests().find((candidate) => candidate.stage === 'blueprint');
		assert.equal(request?.body.response_format?.type, 'json_schema');
		assert.equal(request?.body.response_format?.json_schema?.strict, true);
		assert.equal(request?.body.response_format?.json_schema?.name, 'blueprint');
		const out = parseJson<{blueprint: {meta: {mock: boolean; model: string}}}>(result.stdout);
		assert.deepEqual([out.blueprint.meta.mock, out.blueprint.meta.model], [false, 'fake-model']);
	});

	it('templates generate keeps valid drafts and rejects culture-specific or duplicate ones', async () => {
		h.fake.reset();
		const existing = loadUniverse().templates.find((template) => template.subdomain === 'domestic.eldercare')!;
		const valid = {title: 'Sharing night shifts with a sibling', sketch: 'Two siblings take turns staying overnight with {{ELDER_RELATIVE}} after {{HEALTH_EVENT}}, but one of them works {{WORK_PATTERN}}.', ask: 'They ask for a fair rota and a way to propose it.', slots: [{name: 'ELDER_RELATIVE', meaning: 'the elder being cared for', kind: 'relation', countable: null, plural: null, person: true}, {name: 'HEALTH_EVENT', meaning: 'what happened', kind: 'free', countable: null, plural: null, person: null}, {name: 'WORK_PATTERN', meaning: 'the sibling\'s working hours', kind: 'free', countable: null, plural: null, person: null}], dimensions: ['kinship-obligation']};
		const cultural = {...valid, title: 'Ramadan visits', sketch: 'During Ramadan someone visits {{ELDER_RELATIVE}} every evening.', slots: [{name: 'ELDER_RELATIVE', meaning: 'an elder', kind: 'relation', countable: null, plural: null, person: true}]};
		// The draft schema wants every slot constraint present (null: does not apply), as structured outputs do.
		const duplicate = {title: existing.title, sketch: existing.sketch, ask: existing.ask, slots: existing.slots.map((slot) => ({countable: null, plural: null, person: null, ...slot})), dimensions: existing.dimensions};
		h.fake.setHandler((request) => (request.stage === 'templates' ? {json: {templates: [valid, duplicate]}} : undefined));
		h.fake.enqueue({json: {templates: [cultural]}});
		const home = path.join(h.cwd, 'gen-home');
		const result = await runCli(['templates', 'generate', '--subdomain', 'eldercare', '--count', '3', '--json'], {env: {...h.env, CULTURECONVERSE_HOME: home}, cwd: h.cwd});
		assert.equal(result.code, 0, result.stderr);
		const out = parseJson<{accepted: Array<{id: string}>; rejected: Array<{reason: string}>; file: string}>(result.stdout);
		// The first reply had a culture word and was re-asked with the problem as feedback.
		const asks = h.fake.chatRequests().filter((request) => request.stage === 'templates');
		assert.equal(asks.length, 2);
		assert.match(JSON.stringify(asks[1]!.body.messages), /culture-specific word 'Ramadan'/);
		assert.deepEqual(out.accepted.map((template) => template.id), ['domestic.eldercare.11']);
		assert.match(out.rejected[0]!.reason, /too close to domestic\.eldercare/);
		const reloaded = loadUniverse({userTemplatesDir: path.join(home, 'templates')});
		assert.equal(reloaded.templateById.get('domestic.eldercare.11')?.title, valid.title);
		assert.ok(readFileSync(out.file, 'utf8').includes('Sharing night shifts'));
	});
});
