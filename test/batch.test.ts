import assert from 'node:assert/strict';
import {readSession} from '../src/store/sessionStore.js';
import {readdirSync, readFileSync, writeFileSync} from 'node:fs';
import path from 'node:path';
import {after, before, describe, it} from 'node:test';
import {checkBatchName, planItems, selectSeeds} from '../src/batch/plan.js';
import {summarizeBatch} from '../src/batch/summary.js';
import {BatchManifest} from '../src/domain/batch.js';
import {Session} from '../src/domain/session.js';
import {SeedSpace} from '../src/universe/seeds.js';
import {type CliResult, parseJson, runCli} from './helpers/cli.js';
import {episodeHarness, type Harness, sharedUniverse} from './helpers/episodeHarness.js';
import {promptText, scriptedModel} from './helpers/scriptedModel.js';

let h: Harness;
before(async () => {
	h = await episodeHarness();
});
after(() => h.close());

const batch = (args: string[], options: {signal?: AbortSignal} = {}): Promise<CliResult> => runCli(['batch', '--sessions-dir', h.sessionsDir, ...args], {env: h.env, cwd: h.cwd, signal: options.signal});
const manifestOf = (name: string) => BatchManifest.parse(JSON.parse(readFileSync(path.join(h.sessionsDir, 'batches', `${name}.json`), 'utf8')));
const sessionFile = (id: string) => readSession(path.join(h.sessionsDir, `${id}.json`));
type Summary = {byStatus: Record<string, number>; threeH: {n: number; mean: number | null}; tdq: {n: number; mean: number | null}; errors: Record<string, number>; run: {calls: number}};

describe('batch: planning', () => {
	const space = new SeedSpace(sharedUniverse());
	const selection = {filter: {region: 'MY'}, seedFile: null, sample: 5, sampleSeed: '0', trials: 1};

	it('draws a stable sample that a larger sample extends, and a new key redraws', () => {
		const five = selectSeeds(space, selection).map((seed) => seed.id);
		assert.equal(five.length, 5);
		assert.deepEqual(selectSeeds(space, selection).map((seed) => seed.id), five, 'same flags, same seeds');
		assert.deepEqual(selectSeeds(space, {...selection, sample: 8}).slice(0, 5).map((seed) => seed.id), five, 'a larger sample keeps the smaller one');
		assert.notDeepEqual(selectSeeds(space, {...selection, sampleSeed: 'other'}).map((seed) => seed.id), five);
		assert.ok(five.every((id) => id.startsWith('my-')));
		assert.equal(selectSeeds(space, {...selection, sample: null, filter: {personaId: 'my-malay-muslim-a18-f', domain: 'culinary'}}).length, 60, 'no sample: the whole selection (6 subdomains x 10 templates)');
	});

	it('gives each seed and trial its own session id, and checks names', () => {
		const items = planItems('exp1', selectSeeds(space, {...selection, sample: 2}), 3);
		assert.equal(items.length, 6);
		assert.deepEqual(items.map((item) => item.key.split('#')[1]), ['1', '2', '3', '1', '2', '3']);
		assert.equal(new Set(items.map((item) => item.sessionId)).size, 6);
		assert.match(items[0]!.sessionId, /^exp1-1-my-[a-z0-9-]+-t1$/);
		assert.throws(() => checkBatchName('../escape'), /Bad batch name/);
	});

	it('reads a seed file, naming the line of a bad id', async () => {
		const file = path.join(h.cwd, 'seeds.txt');
		writeFileSync(file, '# two seeds\nth-isan-a35-f:culinary.dietary-rules.01\n\nth-isan-a35-f:culinary.dietary-rule.01\n');
		const result = await batch(['--name', 'from-file', '--seed-file', file, '--dry-run']);
		assert.equal(result.code, 2);
		assert.match(result.stderr, /seeds\.txt:4: Unknown template 'culinary\.dietary-rule\.01'\. Did you mean: culinary\.dietary-rules\.01/);
		writeFileSync(file, 'th-isan-a35-f:culinary.dietary-rules.01\nvn-kinh-buddhist-a55-m:ritual.auspicious-timing.01\n');
		const plan = parseJson<{seeds: number; first: string[]}>((await batch(['--name', 'from-file', '--seed-file', file, '--dry-run', '--json'])).stdout);
		assert.deepEqual(plan.first, ['th-isan-a35-f:culinary.dietary-rules.01', 'vn-kinh-buddhist-a55-m:ritual.auspicious-timing.01']);
	});
});

describe('batch: running over HTTP', () => {
	it('runs episodes in parallel through the engine and summarizes exactly what the session files say', async () => {
		h.fake.setHandler(scriptedModel({stage: {assistant: () => ({delayMs: 60, then: {content: 'Start with one dish everyone can eat, then ask about fast days.'}})}}));
		const result = await batch(['--name', 'par', '--region', 'TH', '--sample', '4', '--parallel', '2', '--json']);
		assert.equal(result.code, 0, result.stderr);
		const summary = parseJson<Summary>(result.stdout);
		assert.equal(summary.byStatus['completed'], 4);
		assert.equal(h.fake.maxInFlight, 2, 'two episodes at a time, each one call at a time');
		const manifest = manifestOf('par');
		const sessions = manifest.items.map((item) => sessionFile(item.sessionId));
		assert.ok(sessions.every((session) => session.status === 'completed' && session.persona.region === 'TH'));
		const mean = sessions.reduce((sum, session) => sum + session.judge!.threeH!, 0) / sessions.length;
		assert.ok(Math.abs(summary.threeH.mean! - mean) < 1e-9);
		assert.equal(summary.threeH.n, 4);
		assert.equal(summary.run.calls, sessions.reduce((sum, session) => sum + session.calls.length, 0), 'the run\'s calls are the sessions\' calls');
		const listed = parseJson<Array<{id: string}>>((await runCli(['sessions', '--sessions-dir', h.sessionsDir, '--json'], {env: h.env, cwd: h.cwd})).stdout);
		for (const item of manifest.items) assert.ok(listed.some((row) => row.id === item.sessionId), 'batch sessions are ordinary sessions');
		const status = await batch(['status', 'par']);
		assert.match(status.stdout, /Batch par: 4\/4 completed, 0 error, 0 unfinished/);
	});

	it('stops cleanly when interrupted and resumes without re-running finished items', async () => {
		const controller = new AbortController();
		const script = scriptedModel();
		let blueprints = 0;
		h.fake.setHandler((request) => {
			if (request.stage === 'blueprint' && ++blueprints === 2) setTimeout(() => controller.abort(), 5);
			if (request.stage === 'blueprint' && blueprints === 2) return {delayMs: 2000, then: undefined};
			return script(request);
		});
		const first = await batch(['--name', 'stop', '--region', 'JP', '--sample', '3', '--parallel', '1', '--max-turns', '3', '--judge-mode', 'combined'], {signal: controller.signal});
		assert.equal(first.code, 130, first.stderr);
		assert.match(first.stderr, /Continue with: npx cultureconverse batch --name stop/);
		const halfway = manifestOf('stop');
		assert.deepEqual(halfway.items.map((item) => item.status), ['completed', 'running', 'pending']);
		const finishedAt = sessionFile(halfway.items[0]!.sessionId).updatedAt;

		const again = scriptedModel();
		h.fake.setHandler(again);
		const second = await batch(['--name', 'stop']);
		assert.equal(second.code, 0, second.stderr);
		assert.match(second.stdout, /Batch stop: 3\/3 completed/);
		assert.equal(again.counts['blueprint'], 2, 'only the two unfinished items asked for blueprints');
		assert.equal(sessionFile(halfway.items[0]!.sessionId).updatedAt, finishedAt, 'the finished item was not touched');
		assert.deepEqual(manifestOf('stop').items.map((item) => item.attempts), [1, 2, 1]);
		assert.equal(readdirSync(h.sessionsDir).filter((name) => name.startsWith('stop-')).length, 3, 'no duplicate sessions');
		// The rerun named only the batch: the items it ran take the plan's episode settings, not the defaults.
		for (const item of manifestOf('stop').items) {
			const {config} = sessionFile(item.sessionId!);
			assert.deepEqual([config.maxTurns, config.judgeMode], [3, 'combined'], item.sessionId!);
		}
	});

	it('keeps errors out of the scores, exits 3, and retries them on the next run unless told not to', async () => {
		const script = scriptedModel();
		// Matched on the seed id: the word 'Ainu' can also reach another JP seed's prompt through its KB evidence.
		h.fake.setHandler((request) => (request.stage === 'blueprint' && /jp-ainu-a35-f:/.test(promptText(request)) ? {status: 500} : script(request)));
		const seeds = path.join(h.cwd, 'err-seeds.txt');
		writeFileSync(seeds, 'jp-ainu-a35-f:culinary.dietary-rules.01\njp-ryukyuan-a35-f:culinary.dietary-rules.01\n');
		const first = await batch(['--name', 'err', '--seed-file', seeds, '--json']);
		assert.equal(first.code, 3, first.stderr);
		const summary = parseJson<Summary>(first.stdout);
		assert.deepEqual(summary.errors, {GENERATION_ERROR: 1});
		assert.equal(summary.threeH.n, 1, 'the errored episode is not scored, not even as zero');
		assert.equal(summarizeBatch(manifestOf('err')).byStatus.error, 1);

		h.fake.setHandler(scriptedModel());
		const skipped = await batch(['--name', 'err', '--skip-errors', '--json']);
		assert.equal(skipped.code, 3);
		assert.equal(parseJson<Summary>(skipped.stdout).run.calls, 0, '--skip-errors runs nothing here');
		const retried = await batch(['--name', 'err', '--json']);
		assert.equal(retried.code, 0, retried.stderr);
		assert.equal(parseJson<Summary>(retried.stdout).byStatus['completed'], 2);
		const ainu = manifestOf('err').items.find((item) => item.seedId.startsWith('jp-ainu'))!;
		assert.equal(ainu.attempts, 2);
		assert.ok(sessionFile(ainu.sessionId).steps.some((step) => !step.ok), 'the failed step stays in the session log');
	});

	it('goes on past an item whose session file is damaged, and names it', async () => {
		h.fake.setHandler(scriptedModel());
		const seeds = path.join(h.cwd, 'dmg-seeds.txt');
		writeFileSync(seeds, 'sg-malay-muslim-a18-f:culinary.dietary-rules.01\nsg-tamil-hindu-a18-f:culinary.dietary-rules.01\n');
		const plan = parseJson<{first: string[]}>((await batch(['--name', 'dmg', '--seed-file', seeds, '--dry-run', '--json'])).stdout);
		assert.equal(plan.first.length, 2);
		// A session file already there under the first item's id, but broken.
		writeFileSync(path.join(h.sessionsDir, 'dmg-1-sg-malay-muslim-a18-f.json'), '{"format": "cultureconverse.session", "vers');
		const result = await batch(['--name', 'dmg', '--seed-file', seeds]);
		assert.equal(result.code, 3);
		assert.match(result.stderr, /could not run sg-malay-muslim-a18-f:culinary\.dietary-rules\.01: .*dmg-1-sg-malay-muslim-a18-f\.json: not a readable session file/);
		assert.deepEqual(manifestOf('dmg').items.map((item) => [item.status, item.errorFlag]), [['error', 'START_FAILED'], ['completed', null]]);
	});
});

describe('batch: trials and the response cache', () => {
	it('runs every trial for real even with the cache on, and a rerun of the same trials comes from the cache', async () => {
		const {mkdirSync} = await import('node:fs');
		const cwd = path.join(h.cwd, 'cached');
		mkdirSync(cwd, {recursive: true});
		writeFileSync(path.join(cwd, 'cultureconverse.config.json'), JSON.stringify({model: 'fake-model', retry: {maxAttempts: 3, baseDelayMs: 2, maxDelayMs: 10}, cache: true}));
		const env = {...h.env, CULTURECONVERSE_HOME: path.join(cwd, 'home')};
		const script = scriptedModel();
		h.fake.setHandler(script);
		const seeds = path.join(cwd, 'one-seed.txt');
		writeFileSync(seeds, 'bn-malay-muslim-a35-f:culinary.dietary-rules.01\n');
		const sessionsDir = path.join(cwd, 'sessions');
		// One at a time: run together, two trials would both miss the cache whatever the key.
		const first = await runCli(['batch', '--name', 'trials', '--seed-file', seeds, '--trials', '2', '--parallel', '1', '--sessions-dir', sessionsDir, '--json'], {env, cwd});
		assert.equal(first.code, 0, first.stderr);
		assert.equal(script.counts['blueprint'], 2, 'trial 2 asked the model itself instead of replaying trial 1 from the cache');
		const ids = BatchManifest.parse(JSON.parse(readFileSync(path.join(sessionsDir, 'batches', 'trials.json'), 'utf8'))).items.map((item) => item.sessionId);
		assert.deepEqual(ids.map((id) => /-t(\d)$/.exec(id)?.[1]), ['1', '2']);
		assert.equal(readSession(path.join(sessionsDir, `${ids[1]}.json`)).config.trial, 2);
		const again = await runCli(['batch', '--name', 'trials-again', '--seed-file', seeds, '--trials', '2', '--sessions-dir', sessionsDir, '--json'], {env, cwd});
		assert.equal(again.code, 0, again.stderr);
		assert.equal(script.counts['blueprint'], 2, 'the same two trials again: every call from the cache');
	});
});

describe('batch: bad input', () => {
	it('refuses what a batch cannot do or would silently change', async () => {
		h.fake.setHandler(scriptedModel());
		const cases: Array<[string[], RegExp]> = [
			[['--name', 'x', '--human', '--region', 'BN'], /Unknown option '--human'/],
			[['--name', 'x', '--region', 'BN', '--parallel', '0'], /--parallel must be a whole number from 1 to 1024/],
			[['--name', 'x', '--region', 'XX'], /Unknown region 'XX'/],
			[['--name', 'x', '--region', 'BN', '--sample', '0'], /--sample must be a whole number/],
			[['--name', 'x', '--region', 'BN', '--seed-file', 'seeds.txt'], /--seed-file lists the seeds itself/],
			[['--name', 'par', '--region', 'VN'], /Batch 'par' was planned with another selection \(region TH, sample 4 \(key 0\)\)/],
			[['--name', 'par', '--lang', 'native'], /Batch 'par' runs english \/ eval/],
			[['--name', 'par', '--judge-model', 'other-judge'], /Batch 'par' was planned with other models \(judge: openai:fake-model -> openai:other-judge\)/],
			[['status', 'parr'], /Unknown batch 'parr'\. Did you mean: par/],
			[['stats'], /Unknown batch subcommand 'stats'\. Did you mean: status/],
		];
		for (const [args, pattern] of cases) {
			const result = await batch(args);
			assert.equal(result.code, 2, `${args.join(' ')}: ${result.stderr}`);
			assert.match(result.stderr, pattern, args.join(' '));
		}
		writeFileSync(path.join(h.sessionsDir, 'batches', 'broken.json'), '{"format": "cultureconverse.batch"');
		const broken = await batch(['status', 'broken']);
		assert.equal(broken.code, 2);
		assert.match(broken.stderr, /broken\.json: not a readable batch manifest .*The sessions it ran are intact/);
		const listed = await batch(['list']);
		assert.equal(listed.code, 0);
		assert.match(listed.stdout, /par\s+4\/4/);
		assert.match(listed.stderr, /skipped .*broken\.json/);
	});
});

describe('batch: the live progress line', () => {
	it('keeps one status line at the bottom of a terminal, with other messages above it', async () => {
		const {liveLine} = await import('../src/present/liveLine.js');
		let out = '';
		const stderr = {write: (chunk: string) => ((out += chunk), true)} as unknown as NodeJS.WritableStream;
		const line = liveLine(stderr, true);
		line.set('batch x: 1/3 done');
		line.stream.write('cultureconverse: building an index\n');
		line.set('batch x: 2/3 done');
		line.end();
		assert.equal(out, 'batch x: 1/3 done\r\u001B[Kcultureconverse: building an index\nbatch x: 1/3 done\r\u001B[Kbatch x: 2/3 done\n');
		let plain = '';
		const off = liveLine({write: (chunk: string) => ((plain += chunk), true)} as unknown as NodeJS.WritableStream, false);
		off.set('ignored');
		off.stream.write('message\n');
		off.end();
		assert.equal(plain, 'message\n', 'off a terminal: no status line, messages pass through');
	});
});

describe('batch: against a dead server (issue 24 item 5)', () => {
	it('network failures stop it after --stop-after items; the printed command, run as printed once the server is back, finishes it; the counter counts the rerun right', async () => {
		const {switchableProxy} = await import('./helpers/switchableProxy.js');
		// The harness's loopback server behind a port that drops every connection: a server that is down.
		const proxy = await switchableProxy(h.fake.baseURL, {down: true});
		after(() => proxy.close());
		h.fake.setHandler(scriptedModel());
		const first = await batch(['--name', 'dead', '--region', 'TH', '--sample', '5', '--parallel', '1', '--stop-after', '2', '--model', 'fake-model', '--generator-model', 'fake-model', '--base-url', proxy.baseURL, '--no-preflight', '--max-turns', '1']);
		assert.equal(first.code, 2, first.stderr);
		assert.match(first.stderr, /Stopped: 2 items in a row failed the same way \(network, generator role\); nothing more was started/);
		assert.match(first.stderr, /could not be reached after every retry: check that it is running/);
		const manifest = manifestOf('dead');
		assert.deepEqual(manifest.items.map((item) => item.status), ['error', 'error', 'pending', 'pending', 'pending'], 'two items failed, nothing more was started');
		const printed = /Then continue with: npx cultureconverse (batch .*)\n/.exec(first.stderr)?.[1];
		assert.ok(printed, first.stderr);
		for (const flag of ['--model fake-model', `--base-url ${proxy.baseURL}`, '--no-preflight', '--stop-after 2', '--parallel 1', `--sessions-dir ${h.sessionsDir}`]) assert.ok(printed.includes(flag), `the command carries ${flag}: ${printed}`);

		proxy.setDown(false);
		const again = await runCli(printed.split(' '), {env: h.env, cwd: h.cwd});
		assert.equal(again.code, 0, again.stderr);
		assert.match(again.stdout, /Batch dead: 5\/5 completed/);
		// Each item of the rerun counted once, in order: the two retried errors no longer hold the counter back.
		assert.deepEqual([...again.stderr.matchAll(/^\[(\d+)\/5\]/gm)].map((match) => Number(match[1])), [1, 2, 3, 4, 5]);
	});
});
