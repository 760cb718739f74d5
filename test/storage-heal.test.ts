import assert from 'node:assert/strict';
import {type ChildProcess, spawn} from 'node:child_process';
import {existsSync, lstatSync, mkdirSync, readdirSync, readFileSync, rmSync, statSync, symlinkSync, truncateSync, writeFileSync} from 'node:fs';
import {hostname} from 'node:os';
import path from 'node:path';
import {after, before, describe, it} from 'node:test';
import {BatchManifest} from '../src/domain/batch.js';
import {parseJournal} from '../src/store/journal.js';
import {BatchStore} from '../src/store/batchStore.js';
import {readSession} from '../src/store/sessionStore.js';
import {acquireLock} from '../src/store/lock.js';
import {scratchFile} from '../src/util/atomicWrite.js';
import {type CliResult, parseJson, runCli} from './helpers/cli.js';
import {episodeHarness, type Harness} from './helpers/episodeHarness.js';

/*
 * Append-only files that heal (issue 21, items 1, 2 and 9): a batch journal with a cut last line, a
 * cut line that a later run appended after, and a kill -9 at each of a run's journal writes; the same
 * `batch` command resumes every time and ends with every seed exactly once. Also: a journal that is
 * a symbolic link is refused, a zombie's lock is taken over, temp files killed runs left are removed,
 * a manifest read before the lock is read again under it, a paired batch resumes with its own
 * command, a completed session that breaks the schema is run again. Offline mock provider throughout
 * (no model endpoint is involved in what is tested here).
 */

const REPO = path.resolve(import.meta.dirname, '..');
const CLI = ['--import', import.meta.resolve('tsx'), path.join(REPO, 'src', 'cli.tsx')];

let h: Harness;
before(async () => {
	h = await episodeHarness();
});
after(() => h.close());

const MOCK = ['--model', 'mock'];
const cli = (args: string[]): Promise<CliResult> => runCli([...args, '--sessions-dir', h.sessionsDir], {env: h.env, cwd: h.cwd});
const batchesDir = () => path.join(h.sessionsDir, 'batches');
const planFile = (name: string) => path.join(batchesDir(), `${name}.json`);
const journalFile = (name: string) => path.join(batchesDir(), `${name}.journal.jsonl`);
const manifestOf = (name: string) => BatchManifest.parse(JSON.parse(readFileSync(planFile(name), 'utf8')));

/** Every seed of the batch ended exactly once: one completed item and one completed session file per seed. */
function assertExactlyOnce(name: string, seeds: number): void {
	const manifest = new BatchStore(h.sessionsDir).load(name);
	assert.equal(manifest.items.length, seeds);
	assert.deepEqual(manifest.items.map((item) => item.status), Array(seeds).fill('completed'), 'every item completed');
	assert.equal(new Set(manifest.items.map((item) => item.seedId)).size, seeds, 'each seed once');
	for (const item of manifest.items) {
		const session = readSession(path.join(h.sessionsDir, `${item.sessionId}.json`));
		assert.equal(session.status, 'completed');
		assert.equal(session.seed.id, item.seedId);
		// No step lost or doubled: steps numbered 1..n without a gap.
		assert.deepEqual(session.steps.map((step) => step.n), session.steps.map((_, i) => i + 1), `${item.sessionId}: steps 1..n`);
	}
	const stray = readdirSync(h.sessionsDir).filter((file) => file.endsWith('.journal.jsonl') || file.endsWith('.lock') || (file.startsWith('.') && file.endsWith('.tmp')));
	assert.deepEqual(stray, [], 'no journal, lock or temp file left');
	assert.equal(existsSync(journalFile(name)), false);
	assert.equal(existsSync(path.join(batchesDir(), `${name}.lock`)), false);
}

describe('storage: the journal module reads what a crash or a full disk leaves', () => {
	const opts = {afterTorn: 'skip' as const, what: 'batch journal'};
	const line = (i: number) => JSON.stringify({i, set: {status: 'completed', updatedAt: 't'}, at: 't'});

	it('drops a cut last line, keeps a record appended after a fragment, and refuses garbage', () => {
		const cutTail = parseJournal(`${line(0)}\n${line(1).slice(0, 20)}`, 'j', opts);
		assert.deepEqual(cutTail.lines.map((one) => (one.value as {i: number}).i), [0]);
		assert.deepEqual(cutTail.damage.map((one) => one.kind), ['cut_tail']);
		assert.equal(cutTail.needsHealing, true);
		// The evidence: `{"i":17,"set"{"i":12,"set":{...` then more whole lines.
		const joined = parseJournal(`${line(0)}\n${line(17).slice(0, 13)}${line(12)}\n${line(3)}\n`, 'j', opts);
		assert.deepEqual(joined.lines.map((one) => (one.value as {i: number}).i), [0, 12, 3]);
		assert.deepEqual(joined.damage, [{line: 2, bytes: 13, kind: 'joined'}]);
		// A line cut short on its own line (kept apart by a newline), then whole ones.
		const cutLine = parseJournal(`${line(0)}\n${line(1).slice(0, 30)}\n${line(2)}\n`, 'j', opts);
		assert.deepEqual(cutLine.lines.map((one) => (one.value as {i: number}).i), [0, 2]);
		assert.equal(parseJournal(`${line(0)}\n${line(1)}\n`, 'j', opts).needsHealing, false);
		// Not what any interrupted write leaves: an edit, named with its line.
		assert.throws(() => parseJournal(`${line(0)}\nhello there\n${line(1)}\n`, 'j.jsonl', opts), /j\.jsonl:2: not a readable batch journal line/);
	});

	it('for a session journal, uses nothing after a torn line (each patch builds on the one before)', () => {
		const start = JSON.stringify({t: 'start', session: {steps: []}});
		const patch = (n: number) => JSON.stringify({t: 'patch', append: {steps: [{n}]}});
		const read = parseJournal(`${start}\n${patch(1)}\n${patch(2).slice(0, 12)}${patch(3)}\n${patch(4)}\n`, 's', {afterTorn: 'stop', what: 'session journal'});
		assert.deepEqual(read.lines.map((one) => one.line), [1, 2]);
		assert.equal(read.unused, 2, 'the joined patch and the one after it are not applied');
	});
});

describe('storage: a damaged batch journal heals and the batch resumes', () => {
	it('a cut line another run appended after, plus a cut last line: the same command resumes and ends with every seed once', async () => {
		const first = await cli(['batch', '--name', 'torn', '--region', 'JP', '--sample', '4', ...MOCK]);
		assert.equal(first.code, 0, first.stderr);
		// The state a full disk and a killed rerun left (issue 21 item 1): items 2 and 3 started, item 3's
		// change cut and item 2's end appended after the fragment, then a last line cut off.
		const manifest = manifestOf('torn');
		const reset = {...manifest, items: manifest.items.map((item, i) => (i >= 2 ? {...item, status: 'pending' as const, threeH: null, tdq: null, clean: null, termination: null} : item))};
		writeFileSync(planFile('torn'), JSON.stringify(reset));
		const event = (i: number, status: string) => JSON.stringify({i, set: {status, updatedAt: '2026-01-01T00:00:00.000Z'}, at: '2026-01-01T00:00:00.000Z'});
		writeFileSync(journalFile('torn'), `${event(2, 'running')}\n${event(3, 'running').slice(0, 14)}${event(2, 'running')}\n${event(3, 'running')}\n${event(2, 'complet').slice(0, 25)}`);

		// Readers fold it without writing (and say what they dropped); they no longer exit 2.
		const status = await cli(['batch', 'status', 'torn', '--json']);
		assert.equal(status.code, 0, status.stderr);
		assert.equal(parseJson<{byStatus: {running: number}}>(status.stdout).byStatus.running, 2);
		const report = await cli(['report', '--batch', 'torn', '--include-mock', '--json']);
		assert.equal(report.code, 0, report.stderr);

		const rerun = await cli(['batch', '--name', 'torn', ...MOCK]);
		assert.equal(rerun.code, 0, rerun.stderr);
		assert.match(rerun.stderr, /healed .*torn\.journal\.jsonl: dropped the first 14 bytes of line 2 \(a cut write that the next one was appended to; the record after it is kept\), line 4 \(25 bytes, cut off by an interrupted write\)/);
		assert.match(rerun.stderr, /Batch torn: 4 item\(s\), 2 to run/);
		assertExactlyOnce('torn', 4);
	});

	it('a kill -9 at each of a run\'s journal writes, with the last line torn each time: the same command ends with every seed once', async () => {
		const name = 'killed';
		const args = ['batch', '--name', name, '--region', 'KR', '--sample', '3', ...MOCK, '--sessions-dir', h.sessionsDir];
		const env = {...h.env, OPENAI_BASE_URL: undefined, OPENAI_API_KEY: undefined};
		// Each run is killed once the journal has one more line than the last run left, so every write
		// position of a run meets a kill; the line the kill came after is then cut in half.
		let kills = 0;
		for (let target = 1; target <= 3; target++) {
			const child: ChildProcess = spawn(process.execPath, [...CLI, ...args], {cwd: h.cwd, env, stdio: ['ignore', 'ignore', 'ignore']});
			const exited = new Promise<number | null>((resolve) => child.once('exit', (code) => resolve(code)));
			const lines = () => (existsSync(journalFile(name)) ? readFileSync(journalFile(name), 'utf8').split('\n').filter(Boolean).length : 0);
			let done = false;
			void exited.then(() => (done = true));
			while (!done && lines() < target) await new Promise((resolve) => setImmediate(resolve));
			if (done) break; // it ran to the end before reaching this write
			child.kill('SIGKILL');
			await exited;
			kills++;
			const text = readFileSync(journalFile(name), 'utf8');
			const last = text.trimEnd().lastIndexOf('\n') + 1;
			truncateSync(journalFile(name), Buffer.byteLength(text.slice(0, last)) + Math.floor(Buffer.byteLength(text.slice(last)) / 2));
		}
		assert.ok(kills >= 2, `killed at ${kills} writes`);
		const last = await cli(['batch', '--name', name, ...MOCK]);
		assert.equal(last.code, 0, last.stderr);
		assert.match(last.stdout, /Batch killed: 3\/3 completed/);
		assertExactlyOnce(name, 3);
	});
});

describe('storage: links, zombies, temp files and stale reads', () => {
	it('a batch journal that is a symbolic link is refused, and the file it leads to is untouched', async () => {
		const made = await cli(['batch', '--name', 'linked', '--region', 'VN', '--sample', '2', ...MOCK]);
		assert.equal(made.code, 0, made.stderr);
		const manifest = manifestOf('linked');
		writeFileSync(planFile('linked'), JSON.stringify({...manifest, items: manifest.items.map((item) => ({...item, status: 'pending'}))}));
		const outside = path.join(h.cwd, 'outside.txt');
		writeFileSync(outside, 'not yours\n');
		symlinkSync(outside, journalFile('linked'));
		const refused = await cli(['batch', '--name', 'linked', ...MOCK]);
		assert.equal(refused.code, 2, refused.stderr);
		assert.match(refused.stderr, /linked\.journal\.jsonl is a symbolic link; a batch journal is never read or written through a link/);
		assert.doesNotMatch(refused.stderr, /internal error/);
		assert.equal(readFileSync(outside, 'utf8'), 'not yours\n');
		assert.equal(existsSync(path.join(batchesDir(), 'linked.lock')), false, 'the lock is released');
		rmSync(journalFile('linked'));
	});

	it('takes over the lock of a zombie (its pid still answers signal 0) and of a dead process, and removes the temp files they left', async () => {
		// The child exits a moment after the shell has exec'd `sleep`, which never reaps it: a zombie. (A child
		// that exits at once can be reaped by the shell itself before the exec, on a loaded machine.)
		const parent = spawn('sh', ['-c', 'sleep 0.3 & echo $!; exec sleep 30'], {stdio: ['ignore', 'pipe', 'ignore']});
		const zombie = Number((await new Promise<string>((resolve) => parent.stdout!.once('data', (chunk: Buffer) => resolve(chunk.toString())))).trim());
		after(() => parent.kill('SIGKILL'));
		const stateOf = () => readFileSync(`/proc/${zombie}/stat`, 'utf8').split(') ')[1]?.[0];
		while (stateOf() !== 'Z') await new Promise((resolve) => setImmediate(resolve));
		assert.doesNotThrow(() => process.kill(zombie, 0), 'a zombie still answers signal 0');

		mkdirSync(batchesDir(), {recursive: true});
		const lock = path.join(batchesDir(), 'zombie.lock');
		writeFileSync(lock, JSON.stringify({pid: zombie, host: hostname(), since: '2026-01-01T00:00:00Z', what: 'batch zombie'}));
		// What kill -9 between a write and its rename leaves, in this build's names and the earlier ones'.
		const dead = zombie; // a pid that will never write again
		const temps = [
			scratchFile(path.join(h.sessionsDir, 'y.json'), 'write').replace(`-${process.pid}-`, `-${dead}-`),
			path.join(h.sessionsDir, `.x.json.${dead}.ab12cd.tmp`),
			path.join(batchesDir(), `.zombie.lock.new.${dead}.abcd1234`),
		];
		for (const file of temps) writeFileSync(file, '{"half');
		const taken = await cli(['batch', '--name', 'zombie', '--region', 'CN', '--sample', '1', ...MOCK]);
		assert.equal(taken.code, 0, taken.stderr);
		assert.match(taken.stderr, new RegExp(`took over batch zombie from process ${zombie}`));
		assert.match(taken.stderr, /removed 1 temp file\(s\) that an interrupted run left in .*batches/);
		assert.match(taken.stderr, /removed 2 temp file\(s\) that an interrupted run left in .*sessions\n/);
		for (const file of temps) assert.equal(existsSync(file), false, `${path.basename(file)} removed`);
		// A live holder is still refused (this very process is not: it holds the lock itself).
		const live = acquireLock(path.join(batchesDir(), 'mine.lock'), 'batch mine');
		live.release();
	});

	it('a run that read the manifest before another run finished its items reads it again under the lock', async () => {
		const made = await cli(['batch', '--name', 'stale', '--region', 'ID', '--sample', '2', ...MOCK]);
		assert.equal(made.code, 0, made.stderr);
		const store = new BatchStore(h.sessionsDir);
		const finished = store.load('stale');
		// What a second run read before the first one finished: every item still pending.
		const stale = {...finished, items: finished.items.map((item) => ({...item, status: 'pending' as const}))};
		const writer = store.open(stale);
		try {
			assert.deepEqual(writer.manifest.items.map((item) => item.status), ['completed', 'completed'], 'the writer holds what the file says now');
		} finally {
			writer.close();
		}
		const again = await cli(['batch', '--name', 'stale', ...MOCK]);
		assert.equal(again.code, 0, again.stderr);
		assert.match(again.stderr, /Batch stale: 2 item\(s\), 0 to run/);
		assert.match(again.stdout, /this run: 0 call\(s\).*no episode completed/);
	});
});

describe('storage: resuming what the manual says resumes', () => {
	it('a paired batch resumes with its own command (settings compared as values, not JSON text)', async () => {
		const args = ['batch', '--name', 'pairs', '--region', 'MY', '--sample', '1', '--lang', 'english,native', '--mode', 'eval', ...MOCK];
		const first = await cli(args);
		assert.equal(first.code, 0, first.stderr);
		const again = await cli(args);
		assert.equal(again.code, 0, again.stderr);
		assert.match(again.stderr, /Batch pairs: 2 item\(s\), 0 to run/);
	});

	it('a completed session that is whole JSON but breaks the schema is set aside and run again', async () => {
		const made = await cli(['batch', '--name', 'broken', '--region', 'PH', '--sample', '2', ...MOCK]);
		assert.equal(made.code, 0, made.stderr);
		const id = manifestOf('broken').items[0]!.sessionId;
		const file = path.join(h.sessionsDir, `${id}.json`);
		const raw = JSON.parse(readFileSync(file, 'utf8')) as {status: string};
		writeFileSync(file, JSON.stringify({...raw, status: 'finished-ish'}));
		const report = parseJson<{lost: Array<{id: string; reason: string}>}>((await cli(['report', '--batch', 'broken', '--include-mock', '--json'])).stdout);
		assert.deepEqual(report.lost.map((lost) => [lost.id, lost.reason]), [[id, 'unreadable']]);
		const rerun = await cli(['batch', '--name', 'broken', ...MOCK]);
		assert.equal(rerun.code, 0, rerun.stderr);
		assert.match(rerun.stderr, new RegExp(`session ${id} could not be read \\(.*does not match the schema.*\\); set aside`));
		assert.match(rerun.stderr, /Batch broken: 2 item\(s\), 1 to run \(1 lost or unreadable, run again\)/);
		assert.equal(readSession(file).status, 'completed');
		assert.ok(readdirSync(h.sessionsDir).some((name) => name.startsWith(`${id}.json.unreadable-`)), 'the broken file is kept aside');
		assert.ok(statSync(file).size > 0 && !lstatSync(file).isSymbolicLink());
	});

	it('every schema the manual (README.md and docs/*.md) names is printed by `schema`', async () => {
		const readme = ['README.md', ...readdirSync(path.join(REPO, 'docs')).filter((name) => name.endsWith('.md')).map((name) => path.join('docs', name))].map((file) => readFileSync(path.join(REPO, file), 'utf8')).join('\n');
		const named = new Set([...readme.matchAll(/cultureconverse\s+schema\s+([a-z][a-z-]+)/g)].map((match) => match[1]!));
		const row = /`schema \[<name>\]` \| [^|\n]*/.exec(readme)?.[0] ?? '';
		for (const match of row.matchAll(/`([a-z][a-z-]+)`/g)) named.add(match[1]!);
		named.delete('and');
		assert.ok(named.size >= 12, `names found: ${[...named].join(', ')}`);
		for (const name of named) {
			const result = await runCli(['schema', name]);
			assert.equal(result.code, 0, `schema ${name}: ${result.stderr}`);
			assert.equal(parseJson<{$id: string}>(result.stdout).$id, `cultureconverse:${name}`);
		}
	});
});
