import assert from 'node:assert/strict';
import {spawnSync} from 'node:child_process';
import {copyFileSync, mkdirSync, mkdtempSync, readFileSync, rmSync, symlinkSync} from 'node:fs';
import {tmpdir} from 'node:os';
import path from 'node:path';
import {after, before, describe, it} from 'node:test';
import {parseJson, runCli} from './helpers/cli.js';

/*
 * What the sessions folder may hold besides sessions (issue 11): a symlink to /dev/zero once aborted
 * `sessions` with std::bad_alloc, a FIFO blocks whoever opens it, and a copy of a session file
 * (`x (copy).json`, as a file manager makes it) was counted twice in reports and exports. Listing is
 * the binary's own (spawned, so a listing that opened the FIFO would be stopped by the timeout
 * instead of hanging the test run), and the copy is named on stderr.
 */

const REPO = path.resolve(import.meta.dirname, '..');
const CLI = ['--import', import.meta.resolve('tsx'), path.join(REPO, 'src', 'cli.tsx')];
let dir: string;
let sessions: string;
let env: NodeJS.ProcessEnv;
let ids: string[];
let copy: string;

before(async () => {
	dir = mkdtempSync(path.join(tmpdir(), 'cc-listing-'));
	sessions = path.join(dir, 'sessions');
	env = {PATH: process.env['PATH'], HOME: process.env['HOME'], CULTURECONVERSE_HOME: path.join(dir, 'home'), CULTURECONVERSE_EMBEDDER: 'hash'};
	const made = await runCli(['batch', '--name', 'two', '--region', 'VN', '--sample', '2', '--json', '--sessions-dir', sessions], {env, cwd: dir});
	assert.equal(made.code, 0, made.stderr);
	ids = (JSON.parse(readFileSync(path.join(sessions, 'batches', 'two.json'), 'utf8')) as {items: Array<{sessionId: string}>}).items.map((item) => item.sessionId);
	copy = path.join(sessions, `${ids[0]} (copy).json`);
	copyFileSync(path.join(sessions, `${ids[0]}.json`), copy);
	symlinkSync('/dev/zero', path.join(sessions, 'zero.json'));
	symlinkSync('/nowhere/at/all.json', path.join(sessions, 'dangling.json'));
	mkdirSync(path.join(sessions, 'folder.json'));
	const fifo = spawnSync('mkfifo', [path.join(sessions, 'pipe.json')]);
	assert.equal(fifo.status, 0, 'mkfifo');
});
after(() => rmSync(dir, {recursive: true, force: true}));

/** The binary, spawned, with a bound on its time: a listing that blocked would be killed and fail. */
function spawned(args: string[]): {code: number | null; stdout: string; stderr: string} {
	const child = spawnSync(process.execPath, [...CLI, ...args, '--sessions-dir', sessions], {cwd: dir, env, encoding: 'utf8', timeout: 60_000});
	return {code: child.status, stdout: child.stdout, stderr: child.stderr};
}

describe('storage: the sessions folder', () => {
	it('ignores devices, pipes, folders and dangling links, and counts a copy once, naming it', () => {
		const listed = spawned(['sessions', '--json']);
		assert.equal(listed.code, 0, listed.stderr);
		assert.deepEqual(parseJson<Array<{id: string}>>(listed.stdout).map((row) => row.id).sort(), [...ids].sort(), 'each session once');
		assert.match(listed.stderr, new RegExp(`${copy.replace(/[()]/g, '\\$&')}: a copy of session ${ids[0]} \\(kept: ${ids[0]}\\.json\\); counted once`));
		assert.doesNotMatch(listed.stderr, /zero|pipe|folder|dangling/, 'what is not a regular file is not a session, not even a problem');

		const report = spawned(['report', '--include-mock', '--json']);
		assert.equal(report.code, 0, report.stderr);
		const json = parseJson<{sessions: number; overall: {n: number}}>(report.stdout);
		assert.equal(json.sessions, 2);
		assert.equal(json.overall.n, 2);
		assert.match(report.stderr, /a copy of session .*; counted once/);
	});

	it('counts the copy once in an SFT export too', async () => {
		const out = path.join(dir, 'sft.jsonl');
		const exported = await runCli(['export', 'sft', '--mode', 'any', '--include-mock', '--out', out, '--json', '--sessions-dir', sessions], {env, cwd: dir});
		assert.equal(exported.code, 0, exported.stderr);
		const summary = parseJson<{considered: number; examples: number}>(exported.stdout);
		assert.equal(summary.considered, 2);
				const examples = readFileSync(out, 'utf8').trim().split('\n').map((line) => JSON.parse(line) as {metadata: {id: string}});
		assert.deepEqual(examples.map((example) => example.metadata.id).sort(), [...ids].sort(), 'one example per session, none from the copy');
		assert.match(exported.stderr, new RegExp(`a copy of session ${ids[0]}`));
	});
});
