import assert from 'node:assert/strict';
import {existsSync, mkdtempSync, readFileSync, readdirSync, rmSync, writeFileSync} from 'node:fs';
import {tmpdir} from 'node:os';
import path from 'node:path';
import {after, before, describe, it} from 'node:test';
import {MAX_HUMAN_REPLY} from '../src/episode/engine.js';
import {readSession} from '../src/store/sessionStore.js';
import {type CliResult, parseJson, runCli} from './helpers/cli.js';

/*
 * Input that once escaped the sessions folder or filled memory and the terminal (issue 11): a batch
 * manifest or journal naming a session "../x", a session file whose id is "../x", a 50 MB line in a
 * seed file, a human reply far over its cap. Each is refused with a message that names the file and
 * field (or the limit), in under a kilobyte, and nothing is written outside the folder. Offline mock.
 */

let root: string;
let dir: string;
let sessions: string;
let env: NodeJS.ProcessEnv;
before(() => {
	// The sessions folder sits one level down, so "../x" would land in `dir`, where the test looks for it.
	root = mkdtempSync(path.join(tmpdir(), 'cc-input-'));
	dir = path.join(root, 'work');
	sessions = path.join(dir, 'sessions');
	env = {PATH: process.env['PATH'], HOME: process.env['HOME'], CULTURECONVERSE_HOME: path.join(root, 'home'), CULTURECONVERSE_EMBEDDER: 'hash'};
});
after(() => rmSync(root, {recursive: true, force: true}));

const cli = (args: string[], stdin?: string): Promise<CliResult> => runCli([...args, '--sessions-dir', sessions], {env, cwd: root, ...(stdin === undefined ? {} : {stdin})});
/** Files a write through "../x" would have made, beside the sessions folder or above it. */
const escaped = () => [dir, root].flatMap((folder) => (existsSync(folder) ? readdirSync(folder) : []).filter((name) => /^x(\.|$)|^evil/.test(name)));

describe('storage: ids that are not safe file names', () => {
	const manifestFile = () => path.join(sessions, 'batches', 'ids.json');

	it('a manifest item whose sessionId is ../x is refused, naming the file and field, and nothing is written', async () => {
		const made = await cli(['batch', '--name', 'ids', '--region', 'SG', '--sample', '2', '--json']);
		assert.equal(made.code, 0, made.stderr);
		const good = readFileSync(manifestFile(), 'utf8');
		const manifest = JSON.parse(good) as {items: Array<{sessionId: string; status: string; attempts: number}>};
		manifest.items[1] = {...manifest.items[1]!, sessionId: '../x', status: 'pending', attempts: 0};
		writeFileSync(manifestFile(), JSON.stringify(manifest));
		for (const args of [['batch', '--name', 'ids'], ['batch', 'status', 'ids'], ['report', '--batch', 'ids', '--include-mock']]) {
			const refused = await cli(args);
			assert.equal(refused.code, 2, `${args.join(' ')}: ${refused.stderr}`);
			assert.match(refused.stderr, new RegExp(`${manifestFile().replace(/[.]/g, '\\.')}: .*items\\[1\\]\\.sessionId: must be a safe session id`));
			assert.ok(refused.stderr.length < 1024);
		}
		assert.deepEqual(escaped(), [], 'nothing outside the sessions folder');
		writeFileSync(manifestFile(), good);
	});

	it('a batch journal line setting ../x is refused even as the last line (not taken for a line cut by a crash)', async () => {
		const journal = path.join(sessions, 'batches', 'ids.journal.jsonl');
		writeFileSync(journal, `${JSON.stringify({i: 0, set: {status: 'pending'}, at: '2026-01-01T00:00:00.000Z'})}\n${JSON.stringify({i: 1, set: {sessionId: '../x', status: 'pending'}, at: '2026-01-01T00:00:01.000Z'})}\n`);
		const refused = await cli(['batch', '--name', 'ids']);
		assert.equal(refused.code, 2, refused.stderr);
		assert.match(refused.stderr, /ids\.journal\.jsonl:2: not a batch journal line of this version: set\.sessionId: must be a safe session id/);
		assert.deepEqual(escaped(), []);
		// A line really cut by a crash is still dropped, and the run goes on.
		writeFileSync(journal, `${JSON.stringify({i: 0, set: {status: 'pending'}, at: '2026-01-01T00:00:00.000Z'})}\n{"i":1,"set":{"sess`);
		const resumed = await cli(['batch', '--name', 'ids']);
		assert.equal(resumed.code, 0, resumed.stderr);
		assert.match(resumed.stderr, /Batch ids: 2 item\(s\), 1 to run/);
	});

	it('a session file whose id is ../evil is refused by the schema, and resuming it writes nothing', async () => {
		const [first] = (JSON.parse(readFileSync(manifestFile(), 'utf8')) as {items: Array<{sessionId: string}>}).items;
		const raw = JSON.parse(readFileSync(path.join(sessions, `${first!.sessionId}.json`), 'utf8')) as {id: string};
		const evil = path.join(sessions, 'evil.json');
		writeFileSync(evil, JSON.stringify({...raw, id: '../evil'}));
		const resumed = await cli(['run', '--resume', evil]);
		assert.equal(resumed.code, 2, resumed.stderr);
		assert.match(resumed.stderr, /evil\.json: session does not match the schema: id: /);
		const listed = await cli(['sessions', '--json']);
		assert.equal(listed.code, 0);
		assert.ok(parseJson<Array<{id: string}>>(listed.stdout).every((row) => row.id !== '../evil'));
		assert.match(listed.stderr, /skipped .*evil\.json: session does not match the schema/);
		assert.deepEqual(escaped(), []);
		rmSync(evil);
	});
});

describe('storage: large input', () => {
	it('a 50 MB line in --seed-file gives an error under 1 KB, naming the line', async () => {
		const file = path.join(root, 'seeds.txt');
		const huge = `th-isan-a35-f:${'y'.repeat(50 * 1024 * 1024)}`;
		writeFileSync(file, `th-isan-a35-f:culinary.dietary-rules.01\n${huge}\n`);
		const refused = await cli(['batch', '--name', 'huge', '--seed-file', file, '--dry-run']);
		assert.equal(refused.code, 2);
		assert.ok(refused.stderr.length < 1024, `${refused.stderr.length} bytes of error`);
		assert.match(refused.stderr, /seeds\.txt:2: Unknown template 'y+… \(52,428,800 characters\)'/);
		rmSync(file);
	});

	it('a human reply over the cap is refused with the limit named; the session waits intact and takes a shorter reply', async () => {
		const long = `${'x'.repeat(MAX_HUMAN_REPLY + 1)}\n.\n`;
		const refused = await cli(['run', '--human', '--seed', 'th-isan-a35-f:culinary.dietary-rules.01'], long);
		assert.equal(refused.code, 2, refused.stderr);
		assert.match(refused.stderr, /the reply is 100,001 characters long; a reply may have at most 100,000/);
		const id = /continue with: npx cultureconverse run --resume (\S+)/.exec(refused.stderr)?.[1];
		assert.ok(id, refused.stderr);
		const waiting = readSession(path.join(sessions, `${id}.json`));
		assert.equal(waiting.status, 'awaiting_assistant');
		assert.ok(waiting.turns.every((turn) => turn.role === 'user'), 'the long reply is nowhere in the session');
		assert.ok(readFileSync(path.join(sessions, `${id}.json`), 'utf8').length < MAX_HUMAN_REPLY, 'nor in its file');

		const resumed = await cli(['run', '--resume', id], 'Ask the caterer for the ingredient list first.\n.\n');
		assert.equal(resumed.code, 0, resumed.stderr);
		const after = readSession(path.join(sessions, `${id}.json`));
		assert.equal(after.turns.find((turn) => turn.role === 'assistant')?.content, 'Ask the caterer for the ingredient list first.');
		assert.deepEqual(after.turns.slice(0, waiting.turns.length), waiting.turns, 'what was saved before is unchanged');
	});
});

/*
 * Inputs that crashed or hung (issue 21 item 8), each through the real CLI: a closed pipe, a listing
 * of the whole seed space, seed files that are not files, a huge dry run, a sessions folder that
 * takes no files, a flag without its value, a running session printed as JSON.
 */
describe('storage: inputs that crashed or hung', () => {
	const REPO = path.resolve(import.meta.dirname, '..');
	const CLI = ['--import', import.meta.resolve('tsx'), path.join(REPO, 'src', 'cli.tsx')];

	it('a reader that closes the pipe early (`seeds --json | head`) ends the command quietly with exit 0', async () => {
		const {spawn} = await import('node:child_process');
		const child = spawn(process.execPath, [...CLI, 'seeds', '--limit', '0', '--json'], {cwd: root, env, stdio: ['ignore', 'pipe', 'pipe']});
		let stderr = '';
		child.stderr.on('data', (chunk: Buffer) => (stderr += chunk.toString()));
		// Like `head -1`: read one chunk, then close the read end.
		await new Promise<void>((resolve) => child.stdout.once('data', () => resolve()));
		child.stdout.destroy();
		const code = await new Promise<number | null>((resolve) => child.once('exit', (exit) => resolve(exit)));
		assert.equal(code, 0, stderr);
		assert.equal(stderr, '', 'no stack trace, no message');
	});

	it('`seeds --limit 0` streams every one of the 146,160 seeds', async () => {
		const listed = await runCli(['seeds', '--limit', '0'], {env, cwd: root});
		assert.equal(listed.code, 0, listed.stderr);
		const lines = listed.stdout.trimEnd().split('\n');
		assert.equal(lines.length, 146_160 + 2, 'a header, every seed, the closing count');
		assert.match(lines.at(-1)!, /^146160 shown \(offset 0\)/);
	});

	it('a seed file that is a folder, /dev/zero or a FIFO without a writer is a clear error (exit 2), never a hang or an abort', async () => {
		const {spawnSync} = await import('node:child_process');
		const fifo = path.join(root, 'seeds.fifo');
		assert.equal(spawnSync('mkfifo', [fifo]).status, 0);
		for (const [file, kind] of [[root, 'a folder'], ['/dev/zero', 'a device'], [fifo, 'a named pipe \\(FIFO\\)']] as const) {
			const result = await cli(['batch', '--name', 'sf', '--seed-file', file, '--dry-run']);
			assert.equal(result.code, 2, result.stderr);
			assert.match(result.stderr, new RegExp(`is ${kind}, not a seed file`));
			assert.doesNotMatch(result.stderr, /internal error/);
		}
	});

	it('`--sample 1000000 --trials 100 --dry-run` plans millions of episodes without making them; running it is refused, naming the limit', async () => {
		// One region keeps the test short; the whole space (14.6 million episodes) is the same path (bench: 200 MB RSS).
		const dry = await cli(['batch', '--name', 'huge', '--region', 'MY', '--sample', '1000000', '--trials', '100', '--dry-run', '--json']);
		assert.equal(dry.code, 0, dry.stderr);
		const plan = parseJson<{seeds: number; items: number}>(dry.stdout);
		assert.equal(plan.items, plan.seeds * 100);
		assert.ok(plan.items > 1_000_000, `${plan.items} episodes`);
		const run = await cli(['batch', '--name', 'huge', '--region', 'MY', '--sample', '1000000', '--trials', '100']);
		assert.equal(run.code, 2);
		assert.match(run.stderr, new RegExp(`would have ${plan.items.toLocaleString('en')} episodes .*a batch may have at most 1,000,000`));
		assert.equal(existsSync(path.join(sessions, 'batches', 'huge.json')), false);
	});

	it('`--sessions-dir /proc` is refused with the folder named (it once spun at full CPU, deaf to SIGTERM)', async () => {
		for (const args of [['batch', '--name', 'p', '--region', 'SG', '--sample', '1'], ['run', '--seed', 'sg-chinese-christian-a18-f:culinary.dietary-rules.01']]) {
			const result = await runCli([...args, '--sessions-dir', '/proc'], {env, cwd: root});
			assert.equal(result.code, 2, result.stderr);
			assert.match(result.stderr, /cannot create .*\/proc\/.*: (EROFS|ENOENT) .*give a (writable folder|folder of your own)/);
		}
	});

	it('a flag that takes a value but was given none is an error, not silently ignored', async () => {
		for (const args of [['batch', '--name', 'v', '--parallel'], ['batch', '--parallel', '--name', 'v'], ['seeds', '--limit']]) {
			const result = await runCli(args, {env, cwd: root});
			assert.equal(result.code, 2, args.join(' '));
			assert.match(result.stderr, new RegExp(`${args.find((arg) => arg === '--parallel' || arg === '--limit')} needs a value \\(a number\\)`));
		}
	});

	it('`replay <running-id> --print --json` prints the running session (only its journal exists)', async () => {
		const controller = new AbortController();
		const running = runCli(['run', '--seed', 'sg-malay-muslim-a35-m:culinary.dietary-rules.01', '--sessions-dir', sessions], {env: {...env, CULTURECONVERSE_MOCK_PACE_MS: '5'}, cwd: root, signal: controller.signal});
		// Stopped while it runs: the session keeps its journal and no snapshot.
		while (!(existsSync(sessions) && readdirSync(sessions).some((name) => name.startsWith('2') && name.endsWith('.journal.jsonl')))) await new Promise((resolve) => setImmediate(resolve));
		controller.abort();
		assert.equal((await running).code, 130);
		const journal = readdirSync(sessions).find((name) => name.startsWith('2') && name.endsWith('.journal.jsonl'))!;
		const id = journal.slice(0, -'.journal.jsonl'.length);
		assert.equal(existsSync(path.join(sessions, `${id}.json`)), false);
		const printed = await cli(['replay', id, '--print', '--json']);
		assert.equal(printed.code, 0, printed.stderr);
		const disk = parseJson<{id: string; format: string; version: number}>(printed.stdout);
		assert.deepEqual([disk.id, disk.format, disk.version], [id, 'cultureconverse.session', 2]);
		assert.equal(readSession(path.join(sessions, journal)).id, id);
	});
});
