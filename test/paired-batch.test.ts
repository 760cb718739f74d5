import assert from 'node:assert/strict';
import {readFileSync} from 'node:fs';
import path from 'node:path';
import {after, before, describe, it} from 'node:test';
import {BatchManifest} from '../src/domain/batch.js';
import {readSession} from '../src/store/sessionStore.js';
import {type CliResult, parseJson, runCli} from './helpers/cli.js';
import {episodeHarness, type Harness} from './helpers/episodeHarness.js';
import {scriptedModel} from './helpers/scriptedModel.js';
import {startFakeOpenAI} from './helpers/fakeOpenAI.js';

/*
 * Issue 10's set-up guarantees through the public CLI: a batch's --lang / --mode variants run from one
 * blueprint by construction (not by the response cache), a balanced sample draws equally per stratum,
 * and a resume that would change a session's set-up is refused unless allowed, which is recorded.
 */

let h: Harness;
before(async () => {
	h = await episodeHarness();
});
after(() => h.close());

const cli = (args: string[], env: NodeJS.ProcessEnv = h.env): Promise<CliResult> => runCli([...args, '--sessions-dir', h.sessionsDir], {env, cwd: h.cwd});
const sessionOf = (id: string) => readSession(path.join(h.sessionsDir, `${id}.json`));

describe('batch: paired variants', () => {
	it('runs each seed english and native, eval and gold, from one blueprint and one shard plan', async () => {
		const script = scriptedModel();
		h.fake.setHandler(script);
		const result = await cli(['batch', '--name', 'pair', '--region', 'MY', '--sample', '2', '--lang', 'english,native', '--mode', 'eval,gold', '--json']);
		assert.equal(result.code, 0, result.stderr);
		// Made once per seed: two seeds, two blueprints, although eight episodes ran.
		assert.equal(script.counts['blueprint'], 2);
		assert.equal(script.counts['shards'], 2);
		const manifest = BatchManifest.parse(JSON.parse(readFileSync(path.join(h.sessionsDir, 'batches', 'pair.json'), 'utf8')));
		assert.equal(manifest.items.length, 8);
		const summary = parseJson<{byVariant: Array<{variant: string; completed: number}>}>(result.stdout);
		assert.deepEqual(summary.byVariant.map((row) => [row.variant, row.completed]), [['english/eval', 2], ['english/gold', 2], ['native/eval', 2], ['native/gold', 2]]);
		for (const seedId of new Set(manifest.items.map((item) => item.seedId))) {
			const items = manifest.items.filter((item) => item.seedId === seedId);
			const sessions = items.map((item) => sessionOf(item.sessionId));
			const [first, ...rest] = sessions;
			assert.deepEqual(sessions.map((s) => [s.config.language, s.config.mode]), [['english', 'eval'], ['english', 'gold'], ['native', 'eval'], ['native', 'gold']]);
			for (const other of rest) {
				assert.equal(other.config.sharedFrom, first!.id);
				assert.deepEqual(other.blueprint, first!.blueprint);
				assert.deepEqual(other.shards, first!.shards);
				assert.ok(!other.calls.some((call) => call.stage.startsWith('blueprint') || call.stage === 'shards'), 'a variant makes no blueprint or shard call of its own');
			}
			// Native variants open with the blueprint's native opener, English ones with the English opener.
			assert.equal(sessions[2]!.turns[0]!.content, first!.blueprint!.language.nativeMode.initialMessage);
			assert.equal(sessions[0]!.turns[0]!.content, first!.blueprint!.public.initialMessage);
		}
		const listed = parseJson<Array<{id: string; blueprintId: string | null}>>((await cli(['sessions', '--json'])).stdout);
		const ids = (prefix: string) => new Set(listed.filter((row) => row.id.startsWith(prefix)).map((row) => row.blueprintId));
		for (const item of manifest.items.filter((item) => !item.sharedFrom)) assert.equal(ids(item.sessionId.replace(/-en-eval$/, '')).size, 1, 'the four variants of a seed show one blueprint id');

		// The main report keeps the languages apart by default: no row averages english and native.
		const main = await cli(['report', '--batch', 'pair', '--include-mock']);
		assert.equal(main.code, 0, main.stderr);
		assert.match(main.stdout, /MODEL +MODE +LANGUAGE/);
		assert.match(main.stdout, /eval +native +2\*/);

		const paired = await cli(['report', 'paired', '--batch', 'pair', '--by', 'language', '--include-mock', '--json']);
		assert.equal(paired.code, 0, paired.stderr);
		const rows = parseJson<{columns: string[]; rows: Array<{slice: Record<string, string>; pairs: number; sharedBlueprints: number}>}>(paired.stdout);
		// A language delta is taken within each mode, never over gold and eval pooled.
		assert.ok(rows.columns.includes('mode'));
		assert.deepEqual(rows.rows.map((row) => [row.slice['mode'], row.pairs, row.sharedBlueprints]), [['eval', 2, 2], ['gold', 2, 2]]);
	});

	it('refuses a rerun with other variants and a --lang list naming one twice', async () => {
		const changed = await cli(['batch', '--name', 'pair', '--lang', 'english']);
		assert.equal(changed.code, 2);
		assert.match(changed.stderr, /Batch 'pair' runs english\+native \/ eval\+gold \(paired/);
		const twice = await cli(['batch', '--name', 'twice', '--region', 'MY', '--sample', '1', '--lang', 'native,native']);
		assert.equal(twice.code, 2);
		assert.match(twice.stderr, /--lang lists 'native,native' with a repeat/);
		const unknown = await cli(['batch', '--name', 'bad', '--region', 'MY', '--sample', '1', '--mode', 'eval,golden']);
		assert.equal(unknown.code, 2);
		assert.match(unknown.stderr, /--mode must be eval or gold .*got 'golden'/);
	});
});

describe('batch: balanced samples', () => {
	type Plan = {seeds: number; byRegion: Record<string, number>; byTier: Record<string, number>};
	const plan = async (extra: string[]) => {
		const result = await cli(['batch', '--name', `plan-${extra.join('-') || 'plain'}`, '--split', 'test', '--sample', '200', ...extra, '--dry-run', '--json']);
		assert.equal(result.code, 0, result.stderr);
		return parseJson<Plan>(result.stdout);
	};

	it('draws equally per region, and a plain draw does not', async () => {
		const plain = await plan([]);
		assert.notDeepEqual(new Set(Object.values(plain.byRegion)), new Set([20]), 'a plain hash draw is uneven across regions');
		const balanced = await plan(['--balance', 'region']);
		assert.equal(balanced.seeds, 200);
		assert.equal(Object.keys(balanced.byRegion).length, 10);
		for (const [region, n] of Object.entries(balanced.byRegion)) assert.equal(n, 20, region);
	});

	it('draws equally per tier within one, and refuses --balance without --sample or with an unknown stratum', async () => {
		const balanced = await plan(['--balance', 'tier']);
		const counts = Object.values(balanced.byTier);
		assert.ok(Math.max(...counts) - Math.min(...counts) <= 1, JSON.stringify(balanced.byTier));
		const noSample = await cli(['batch', '--name', 'nosample', '--region', 'MY', '--balance', 'identity', '--dry-run']);
		assert.equal(noSample.code, 2);
		assert.match(noSample.stderr, /--balance shapes a sample: give --sample N too/);
		const unknown = await cli(['batch', '--name', 'unknown', '--sample', '5', '--balance', 'regoin', '--dry-run']);
		assert.equal(unknown.code, 2);
		assert.match(unknown.stderr, /Unknown --balance stratum 'regoin'\. Did you mean: region/);
	});
});

describe('run --resume: a changed set-up', () => {
	it('refuses an errored session retried with another judge or endpoint, and records an allowed change per step', async () => {
		h.fake.setHandler(scriptedModel({stage: {'judge:honesty': () => ({status: 500})}}));
		const first = await cli(['run', '--seed', 'my-malay-muslim-a18-f:culinary.dietary-rules.01', '--json']);
		assert.equal(first.code, 3, first.stderr);
		const id = parseJson<{sessionId: string}>(first.stdout).sessionId;
		assert.equal(sessionOf(id).status, 'error');
		h.fake.setHandler(scriptedModel());

		const otherJudge = await cli(['run', '--resume', id, '--retry', '--judge-model', 'other-judge']);
		assert.equal(otherJudge.code, 2);
		assert.match(otherJudge.stderr, /other model settings \(judge: openai:fake-model -> openai:other-judge\).*--allow-model-change/s);

		// The same model names on another server is another set-up too.
		const second = await startFakeOpenAI({models: ['fake-model'], handler: scriptedModel()});
		try {
			const moved = await cli(['run', '--resume', id, '--retry'], {...h.env, OPENAI_BASE_URL: second.baseURL});
			assert.equal(moved.code, 2);
			assert.match(moved.stderr, /simulator: endpoint "http:\/\/127\.0\.0\.1:\d+\/v1" -> endpoint "http:\/\/127\.0\.0\.1:\d+\/v1"/);
		} finally {
			await second.close();
		}
		assert.equal(sessionOf(id).status, 'error', 'a refused resume leaves the session as it was');

		const stepsBefore = sessionOf(id).steps.length;
		const allowed = await cli(['run', '--resume', id, '--retry', '--judge-model', 'other-judge', '--allow-model-change']);
		assert.equal(allowed.code, 0, allowed.stderr);
		const session = sessionOf(id);
		assert.equal(session.status, 'completed');
		assert.equal(session.config.models.judge, 'other-judge', 'the file names the model that now ran');
		assert.equal(session.config.roles.judge.model, 'other-judge');
		assert.deepEqual(session.config.modelChanges, [{step: stepsBefore + 1, role: 'judge', from: 'openai:fake-model', to: 'openai:other-judge'}]);
		const listed = parseJson<Array<{id: string; setup: {modelChanged: boolean}}>>((await cli(['sessions', '--json'])).stdout);
		assert.equal(listed.find((row) => row.id === id)!.setup.modelChanged, true, 'reports see the change and keep the session apart');
	});
});
