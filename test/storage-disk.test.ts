import assert from 'node:assert/strict';
import {spawnSync} from 'node:child_process';
import {existsSync, mkdirSync, readdirSync, rmSync, writeFileSync} from 'node:fs';
import path from 'node:path';
import {after, before, describe, it} from 'node:test';
import {BatchStore} from '../src/store/batchStore.js';
import {readSession} from '../src/store/sessionStore.js';
import {type CliResult, parseJson, runCli} from './helpers/cli.js';
import {episodeHarness, type Harness} from './helpers/episodeHarness.js';

/*
 * A full and a read-only sessions folder (issue 21, items 2 and 3), on a real small tmpfs mounted for
 * the test: exit 2 naming the folder and the errno, no internal error, no leftover temp or lock file,
 * and once the disk has room again the same `batch` command resumes and ends with every seed exactly
 * once, no step lost to a short write. Root ignores file permissions, so "read-only" is a tmpfs
 * remounted read-only. Where mounting is not allowed (not root, no CAP_SYS_ADMIN) the tests are
 * skipped with a message saying so. Offline mock provider: the disk is what is tested.
 */

let h: Harness;
let mountPoint = '';
let mountProblem: string | null = null;

function mount(args: string[]): string | null {
	const result = spawnSync('mount', args, {encoding: 'utf8'});
	return result.status === 0 ? null : (result.stderr || result.error?.message || `mount exited ${result.status}`).trim();
}

before(async () => {
	h = await episodeHarness();
	mountPoint = path.join(h.cwd, 'disk');
	mkdirSync(mountPoint);
	mountProblem = process.getuid?.() !== 0 ? 'not running as root' : mount(['-t', 'tmpfs', '-o', 'size=1m,mode=0755', 'tmpfs', mountPoint]);
});
after(async () => {
	if (!mountProblem) mount(['-o', 'remount,rw', mountPoint]) ?? spawnSync('umount', [mountPoint]);
	if (!mountProblem) spawnSync('umount', [mountPoint]);
	await h.close();
});

/** Empties the tmpfs and gives it `size` again, so one test's full disk is not the next one's. */
function resetDisk(size: string): void {
	for (const name of readdirSync(mountPoint)) rmSync(path.join(mountPoint, name), {recursive: true, force: true});
	assert.equal(mount(['-o', `remount,size=${size}`, mountPoint]), null);
}

const skip = () => (mountProblem ? `cannot mount a tmpfs here (${mountProblem}): the disk-full and read-only tests need root` : false);
const MOCK = ['--model', 'mock'];
const cli = (dir: string, args: string[]): Promise<CliResult> => runCli([...args, '--sessions-dir', dir], {env: h.env, cwd: h.cwd});

/** Hidden temp files, locks and journals anywhere in the folder (none may be left once a run ended). */
function leftovers(dir: string): string[] {
	const out: string[] = [];
	for (const sub of [dir, path.join(dir, 'batches')]) {
		if (!existsSync(sub)) continue;
		for (const name of readdirSync(sub)) if (name.endsWith('.tmp') || name.endsWith('.lock') || /\.lock\.(new|stale)/.test(name) || (name.startsWith('.') && name !== '.index.json' && name !== '.outbox')) out.push(path.join(sub, name));
	}
	return out;
}

function assertStorageStop(result: CliResult, code: string, dir: string): void {
	assert.equal(result.code, 2, result.stderr);
	assert.doesNotMatch(result.stderr, /internal error/);
	assert.match(result.stderr, new RegExp(`${code} \\(`), 'the errno is named');
	assert.ok(result.stderr.includes(dir), 'the folder is named');
	assert.match(result.stderr, /then run the same command again/);
}

describe('storage: a full disk', {skip: skip()}, () => {
	it('stops the batch with exit 2 (folder and errno named), leaves no temp or lock file, and the same command later ends with every seed once', async () => {
		resetDisk('1m');
		const dir = path.join(mountPoint, 'full');
		const args = ['batch', '--name', 'full', '--region', 'TH', '--sample', '12', '--parallel', '2', '--stop-after', '2', ...MOCK];
		const first = await cli(dir, args);
		assertStorageStop(first, 'ENOSPC', dir);
		assert.match(first.stderr, /Stopped: the sessions folder could not be written/);
		const resume = /Then continue with: (npx cultureconverse batch --name full .*)\n/.exec(first.stderr)?.[1] ?? '';
		for (const flag of ['--model mock', '--parallel 2', '--stop-after 2', `--sessions-dir ${dir}`]) assert.ok(resume.includes(flag), `the resume command carries ${flag}: ${resume}`);
		// Nothing more was started once the disk was full: most of the 12 never ran.
		const before = new BatchStore(dir).load('full');
		assert.ok(before.items.some((item) => item.status === 'pending'), 'items after the stop were never started');
		assert.equal(before.items.filter((item) => item.errorFlag === 'START_FAILED').length, 0, 'a full disk is not a failure of the items');
		assert.deepEqual(leftovers(dir), [], 'no temp, lock or scratch file left');

		// Room again: the same command resumes from what was saved.
		assert.equal(mount(['-o', 'remount,size=64m', mountPoint]), null);
		const second = await cli(dir, args);
		assert.equal(second.code, 0, second.stderr);
		assert.match(second.stdout, /Batch full: 12\/12 completed/);
		const manifest = new BatchStore(dir).load('full');
		assert.equal(new Set(manifest.items.map((item) => item.seedId)).size, 12);
		for (const item of manifest.items) {
			const session = readSession(path.join(dir, `${item.sessionId}.json`));
			assert.equal(session.status, 'completed');
			assert.deepEqual(session.steps.map((step) => step.n), session.steps.map((_, i) => i + 1), `${item.sessionId}: no step lost or doubled`);
		}
		const report = parseJson<{lost: unknown[]; overall: {n: number}}>((await cli(dir, ['report', '--batch', 'full', '--include-mock', '--json'])).stdout);
		assert.deepEqual(report.lost, []);
		assert.equal(report.overall.n, 12);
		assert.deepEqual(leftovers(dir), []);
	});

	it('`run` on a full disk exits 2 naming the folder, with no internal error', async () => {
		resetDisk('1m');
		const dir = path.join(mountPoint, 'run-full');
		mkdirSync(dir, {recursive: true});
		// Fill what is left of the 1 MB.
		const filler = path.join(mountPoint, 'filler');
		try {
			writeFileSync(filler, Buffer.alloc(4 * 1024 * 1024));
		} catch {
			// ENOSPC: full, as wanted
		}
		const result = await cli(dir, ['run', '--seed', 'th-isan-a35-f:culinary.dietary-rules.01', ...MOCK]);
		assertStorageStop(result, 'ENOSPC', dir);
		assert.deepEqual(leftovers(dir), []);
		rmSync(filler, {force: true});
	});
});

describe('storage: a read-only folder', {skip: skip()}, () => {
	it('`batch` and `run` exit 2 with EROFS and the folder named (never the lock release\'s error); reading still works', async () => {
		resetDisk('8m');
		const dir = path.join(mountPoint, 'ro');
		const made = await cli(dir, ['batch', '--name', 'ro', '--region', 'KR', '--sample', '1', ...MOCK]);
		assert.equal(made.code, 0, made.stderr);
		assert.equal(mount(['-o', 'remount,ro', mountPoint]), null);
		try {
			const rerun = await cli(dir, ['batch', '--name', 'ro', ...MOCK]);
			assertStorageStop(rerun, 'EROFS', path.join(dir, 'batches'));
			assert.doesNotMatch(rerun.stderr, /unlink/);
			const run = await cli(dir, ['run', '--seed', 'kr-secular-a18-f:culinary.dietary-rules.01', ...MOCK]);
			assertStorageStop(run, 'EROFS', dir);
			const status = await cli(dir, ['batch', 'status', 'ro', '--json']);
			assert.equal(status.code, 0, status.stderr);
			assert.equal(parseJson<{byStatus: {completed: number}}>(status.stdout).byStatus.completed, 1);
			const listed = await cli(dir, ['sessions', '--json']);
			assert.equal(listed.code, 0, listed.stderr);
		} finally {
			assert.equal(mount(['-o', 'remount,rw', mountPoint]), null);
		}
	});
});
