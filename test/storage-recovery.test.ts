import assert from 'node:assert/strict';
import {existsSync, readFileSync, readdirSync, rmSync, writeFileSync} from 'node:fs';
import path from 'node:path';
import {after, before, describe, it} from 'node:test';
import {readSession} from '../src/store/sessionStore.js';
import {type CliResult, parseJson, runCli} from './helpers/cli.js';
import {episodeHarness, type Harness} from './helpers/episodeHarness.js';
import {scriptedModel} from './helpers/scriptedModel.js';

/*
 * Sessions cut off mid-write (issue 11): a running session whose journal lost half its last line
 * resumes, and a finished batch session whose snapshot was cut is counted by `report --batch` and
 * run again by `batch`, instead of vanishing ("0 to run"). Through the CLI, against the loopback
 * OpenAI server of the episode harness (test/helpers/fakeOpenAI.ts) and on the offline mock.
 */

let h: Harness;
before(async () => {
	h = await episodeHarness();
});
after(() => h.close());

const cli = (args: string[], options: {signal?: AbortSignal} = {}): Promise<CliResult> => runCli([...args, '--sessions-dir', h.sessionsDir], {env: h.env, cwd: h.cwd, signal: options.signal});
/** Every role on the offline mock provider (the harness's config names the loopback server's model). */
const MOCK = ['--model', 'mock'];

/**
 * The journal as a crash in the middle of saving a step leaves it: the line that recorded the last
 * finished step is cut in half (with its line break), and nothing after it was written (the lines
 * after it, from the interruption, are dropped).
 */
function crashWhileSavingLastStep(file: string): void {
	const lines = readFileSync(file, 'utf8').split('\n').filter(Boolean);
	const last = lines.map((line) => (JSON.parse(line) as {append?: {steps?: unknown[]}}).append?.steps !== undefined).lastIndexOf(true);
	const kept = lines.slice(0, last + 1);
	const cut = kept.pop()!;
	writeFileSync(file, `${kept.join('\n')}\n${cut.slice(0, Math.floor(cut.length / 2))}`);
}

describe('storage: a running session whose journal was cut', () => {
	it('resumes: the cut step runs again and nothing before it is lost', async () => {
		// Interrupted while its second simulator call is in flight: the episode keeps its journal.
		const controller = new AbortController();
		const script = scriptedModel();
		let simulator = 0;
		h.fake.setHandler((request) => {
			if (request.stage === 'simulator' && ++simulator === 2) {
				setTimeout(() => controller.abort(), 5);
				return {delayMs: 2000};
			}
			return script(request);
		});
		const first = await cli(['run', '--seed', 'th-isan-a35-f:culinary.dietary-rules.01'], {signal: controller.signal});
		assert.equal(first.code, 130, first.stderr);
		const name = readdirSync(h.sessionsDir).find((file) => file.endsWith('.journal.jsonl'));
		assert.ok(name, 'a running session is a journal');
		const journal = path.join(h.sessionsDir, name);
		const id = name.slice(0, -'.journal.jsonl'.length);
		assert.equal(existsSync(path.join(h.sessionsDir, `${id}.json`)), false, 'no snapshot until it ends');

		const whole = readSession(journal);
		crashWhileSavingLastStep(journal);
		const cut = readSession(journal);
		assert.ok(cut.steps.length < whole.steps.length, 'the cut line held the last step');
		assert.deepEqual(cut.steps, whole.steps.slice(0, cut.steps.length), 'the lines before it are intact');

		h.fake.setHandler(scriptedModel());
		const resumed = await cli(['run', '--resume', id, '--json']);
		assert.equal(resumed.code, 0, resumed.stderr);
		assert.equal(parseJson<{status: string}>(resumed.stdout).status, 'completed');
		const done = readSession(path.join(h.sessionsDir, `${id}.json`));
		assert.deepEqual(done.steps.slice(0, cut.steps.length), cut.steps, 'nothing before the cut was redone or lost');
		assert.deepEqual(done.turns.slice(0, cut.turns.length), cut.turns);
		assert.deepEqual(done.calls.slice(0, cut.calls.length).map((call) => call.id), cut.calls.map((call) => call.id));
		const redone = whole.steps[cut.steps.length]!;
		assert.equal(done.steps[cut.steps.length]!.label, redone.label, `the cut step (${redone.label}) ran again`);
		assert.equal(existsSync(journal), false, 'the journal is gone once the snapshot is written');
	});
});

describe('storage: a finished batch session that was cut or lost', () => {
	it('is counted by report --batch (text and JSON), and the next batch run sets it aside and runs it again', async () => {
		const made = await cli(['batch', '--name', 'cut', '--region', 'KR', '--sample', '3', '--json', ...MOCK]);
		assert.equal(made.code, 0, made.stderr);
		const manifest = JSON.parse(readFileSync(path.join(h.sessionsDir, 'batches', 'cut.json'), 'utf8')) as {items: Array<{sessionId: string}>};
		const [kept, damaged, deleted] = manifest.items.map((item) => item.sessionId) as [string, string, string];
		const damagedFile = path.join(h.sessionsDir, `${damaged}.json`);
		const original = readSession(damagedFile);
		writeFileSync(damagedFile, readFileSync(damagedFile, 'utf8').slice(0, 4000));
		rmSync(path.join(h.sessionsDir, `${deleted}.json`));

		const text = await cli(['report', '--batch', 'cut', '--include-mock']);
		assert.equal(text.code, 0, text.stderr);
		assert.match(text.stdout, /1 scored episode\(s\), 0 ended in an error flag \(not scored\), 0 unfinished, 2 missing or unreadable/);
		assert.match(text.stdout, new RegExp(`2 session\\(s\\) of batch cut are missing or unreadable and not counted: .*${damaged} \\(unreadable\\)`));
		assert.match(text.stdout, new RegExp(`${deleted} \\(missing\\)`));
		assert.match(text.stdout, /`npx cultureconverse batch --name cut` sets them aside and runs them again/);
		const json = parseJson<{overall: {n: number}; sessions: number; lost: Array<{id: string; reason: string; batchStatus: string; problem: string | null}>}>((await cli(['report', '--batch', 'cut', '--include-mock', '--json'])).stdout);
		assert.equal(json.overall.n, 1);
		assert.equal(json.sessions, 1);
		assert.deepEqual(json.lost.map((lost) => [lost.id, lost.reason, lost.batchStatus]).sort(), [[damaged, 'unreadable', 'completed'], [deleted, 'missing', 'completed']].sort());
		assert.match(json.lost.find((lost) => lost.id === damaged)!.problem!, /not a readable session file/);

		const rerun = await cli(['batch', '--name', 'cut', ...MOCK]);
		assert.equal(rerun.code, 0, rerun.stderr);
		assert.match(rerun.stderr, new RegExp(`session ${damaged} could not be read \\(.*\\); set aside as \\*\\.unreadable-`));
		assert.match(rerun.stderr, new RegExp(`session ${deleted} is missing although the batch had it completed; run again`));
		assert.match(rerun.stderr, /Batch cut: 3 item\(s\), 2 to run \(2 lost or unreadable, run again\)/);
		assert.match(rerun.stdout, /Batch cut: 3\/3 completed/);
		const setAside = readdirSync(h.sessionsDir).filter((file) => file.startsWith(`${damaged}.json.unreadable-`));
		assert.equal(setAside.length, 1, 'the damaged file is kept, never deleted');
		assert.equal(readSession(damagedFile).seed.id, original.seed.id, 'run again from the same seed');
		assert.equal(readSession(path.join(h.sessionsDir, `${deleted}.json`)).status, 'completed');
		const after = parseJson<{overall: {n: number}; lost: unknown[]}>((await cli(['report', '--batch', 'cut', '--include-mock', '--json'])).stdout);
		assert.equal(after.overall.n, 3);
		assert.deepEqual(after.lost, []);
		assert.ok(readSession(path.join(h.sessionsDir, `${kept}.json`)).status === 'completed');
	});
});
