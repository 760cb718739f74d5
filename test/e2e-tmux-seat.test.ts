import assert from 'node:assert/strict';
import {readSession} from '../src/store/sessionStore.js';
import {execFileSync, spawnSync} from 'node:child_process';
import {chmodSync, mkdtempSync, readFileSync, readdirSync, rmSync, writeFileSync} from 'node:fs';
import {tmpdir} from 'node:os';
import path from 'node:path';
import {after, before, describe, it} from 'node:test';
import {startFakeOpenAI, type FakeHandler, type FakeOpenAI} from './helpers/fakeOpenAI.js';
import {scriptedModel} from './helpers/scriptedModel.js';
import {waitForStableScreen} from './helpers/stableScreen.js';

/*
 * Issue 14 in a real terminal (tmux), against a loopback OpenAI-compatible server: a blind human
 * assistant typing at full speed to the judged end with nothing hidden on any screen, then rating
 * the session by the README's keys; a hung call with its timer, an errored session retried, and
 * Ctrl-C mid-step.
 */

const REPO = path.resolve(import.meta.dirname, '..');
const hasTmux = spawnSync('tmux', ['-V']).status === 0;
const CANARY = {private: 'CANARY-PRIV-SEAT-31f9', oracle: 'CANARY-ORC-SEAT-c85e'};
/** Words only private or oracle state would put on screen. */
const HIDDEN = [CANARY.private, CANARY.oracle, 'Success criteria', 'Tripwires', 'hidden constraints', 'ADVANCE_NEXT', 'CONTINUE_CURRENT', 'Shard 1/', 'helpfulness', 'eldest daughter'];

const tmux = (...args: string[]) => execFileSync('tmux', args, {encoding: 'utf8'});
const quote = (value: string) => `'${value.replace(/'/g, `'\\''`)}'`;

type Term = {
	readonly name: string;
	capture(): string;
	keys(...names: string[]): void;
	type(text: string): void;
	/** Every screen captured so far (the canary check reads them all). */
	readonly seen: string[];
	waitFor(check: (screen: string) => boolean, what: string, timeoutMs?: number): Promise<string>;
};

function terminal(name: string, columns: number, rows: number, command: string): Term {
	tmux('new-session', '-d', '-s', name, '-x', String(columns), '-y', String(rows), command);
	const seen: string[] = [];
	const capture = () => {
		const screen = tmux('capture-pane', '-p', '-t', name);
		seen.push(screen);
		return screen;
	};
	return {
		name,
		seen,
		capture,
		keys: (...names) => void tmux('send-keys', '-t', name, ...names),
		type: (text) => void tmux('send-keys', '-t', name, '-l', text),
		/** Polls until `check` holds on two identical captures in a row (a frame may be half written). */
		waitFor: (check, what, timeoutMs = 30_000) => waitForStableScreen(capture, check, what, {timeoutMs, intervalMs: 40}),
	};
}

let work: string;
const names: string[] = [];
const servers: FakeOpenAI[] = [];

function launch(name: string, size: [number, number], fake: FakeOpenAI, args: string, extraEnv: Record<string, string> = {}): Term {
	const config = path.join(work, `${name}.config.json`);
	writeFileSync(config, JSON.stringify({retry: {maxAttempts: 3, baseDelayMs: 5, maxDelayMs: 10}, cache: false}));
	const env = {OPENAI_BASE_URL: fake.baseURL, OPENAI_API_KEY: 'sk-e2e-seat', CULTURECONVERSE_EMBEDDER: 'hash', CULTURECONVERSE_HOME: path.join(work, 'home'), CULTURECONVERSE_RATER: 'tester', TERM: 'xterm-256color', ...extraEnv};
	const command = [
		`cd ${quote(REPO)} &&`,
		'env -u CI -u CONTINUOUS_INTEGRATION',
		...Object.entries(env).map(([key, value]) => `${key}=${quote(value)}`),
		`node --import tsx src/cli.tsx ${args} --sessions-dir ${quote(path.join(work, 'sessions'))}${args.startsWith('replay') ? '' : ` --model fake-model --config ${quote(config)}`};`,
		'echo EXIT=$?; sleep 60',
	].join(' ');
	names.push(name);
	return terminal(name, size[0], size[1], command);
}

async function server(handler: FakeHandler): Promise<FakeOpenAI> {
	const fake = await startFakeOpenAI({handler});
	servers.push(fake);
	return fake;
}

const sessionFile = (id: string) => readSession(path.join(work, 'sessions', `${id}.json`)) as unknown as {status: string; sawHidden?: boolean; error: unknown; turns: Array<{role: string; source: string; content: string; t: number}>};

describe('the TUI in tmux: issue 14', {skip: hasTmux ? false : 'tmux is not installed: skipping the terminal end-to-end test'}, () => {
	before(() => {
		work = mkdtempSync(path.join(tmpdir(), 'cc-e2e-seat-'));
	});
	after(async () => {
		for (const name of names) spawnSync('tmux', ['kill-session', '-t', name]);
		for (const fake of servers) await fake.close();
		rmSync(work, {recursive: true, force: true});
	});

	it('a blind human assistant at 100x30: every key kept, type-ahead, $EDITOR, nothing hidden on any screen to the judged end; then a rating by the README', async () => {
		let simulatorCalls = 0;
		const script = scriptedModel({canary: CANARY});
		// The first simulator answer takes a moment, so there is time to type ahead while the user "writes".
		const fake = await server((request) => (request.stage === 'simulator' && simulatorCalls++ === 0 ? {delayMs: 1500, then: (script(request) as never) ?? undefined} : script(request)));
		const editor = path.join(work, 'editor.sh');
		writeFileSync(editor, "#!/bin/sh\nprintf ' (edited in the editor)' >> \"$1\"\n");
		chmodSync(editor, 0o755);
		const term = launch(`cc-seat-${process.pid}`, [100, 30], fake, 'tui --persona my-tamil-hindu-a55-f --template culinary.dietary-rules.02 --tier standard --human --max-turns 3', {EDITOR: editor});

		let screen = await term.waitFor((s) => s.includes('Your reply as the assistant (t=0)'), 'the reply box at t=0 (the episode ran on its own)');
		assert.match(screen, /USER · t=0/);
		// Full speed: one write holding text and Backspaces (DEL), as a fast typist's terminal sends them.
		term.type('Plan the mea\u007f\u007f\u007fmeals wiht\u007f\u007fth rice.');
		term.keys('Enter', 'Enter');
		term.type('Second paragraph.');
		term.keys('Up', 'Up', 'C-e');
		term.type(' Thanks oops');
		term.keys('C-w', 'BSpace');
		screen = await term.waitFor((s) => s.includes('Plan the meals with rice. Thanks▌'), 'the edited draft, cursor on the first line');
		assert.match(screen, /Second paragraph\./);
		term.keys('C-s');
		// While the simulator answers, keys go to the draft, never to commands (a, b, s, r, q are letters here).
		screen = await term.waitFor((s) => s.includes('The user is answering'), 'the box while the user answers');
		term.type('a b s r q: typed ahead');
		screen = await term.waitFor((s) => s.includes('Your reply as the assistant (t=1)') && s.includes('a b s r q: typed ahead▌'), 'the typed-ahead draft waiting in the box at t=1');
		assert.doesNotMatch(screen, /EXIT=/, 'q did not quit');
		term.keys('C-x');
		screen = await term.waitFor((s) => s.includes('typed ahead (edited in the editor)'), 'the draft back from $EDITOR');
		term.keys('C-s');
		for (let t = 2; ; t++) {
			screen = await term.waitFor((s) => s.includes(`Your reply as the assistant (t=${t})`) || s.includes('the dialogue has ended and been judged'), `turn ${t} or the judged end`, 40_000);
			if (screen.includes('the dialogue has ended and been judged')) break;
			term.type(`Reply number ${t}: let us settle the plan.`);
			term.keys('C-s');
		}
		for (const [index, seen] of term.seen.entries()) for (const word of HIDDEN) assert.ok(!seen.includes(word), `"${word}" on screen ${index} of a blind seat:\n${seen}`);
		term.keys('q');
		screen = await term.waitFor((s) => s.includes('EXIT='), 'the exit');
		assert.match(screen, /EXIT=0/);
		const id = /Session (\S+) saved at step/.exec(screen.replace(/\n/g, ''))?.[1];
		assert.ok(id, screen);
		const saved = sessionFile(id);
		assert.equal(saved.status, 'completed');
		assert.equal(saved.sawHidden, undefined, 'nothing hidden was shown');
		const replies = saved.turns.filter((turn) => turn.role === 'assistant');
		assert.equal(replies[0]!.content, 'Plan the meals with rice. Thanks\n\nSecond paragraph.', 'every key as typed: Backspaces, Enter twice, cursor moves, Ctrl-W');
		assert.equal(replies[1]!.content, 'a b s r q: typed ahead (edited in the editor)');

		// Rate it as the README says: s, then ↑↓ pick a metric, 1-5 score it, Enter saves.
		const rate = launch(`cc-rate-${process.pid}`, [160, 48], fake, `replay ${id}`);
		await rate.waitFor((s) => /REPLAY step (\d+)\/\1/.test(s), 'the replay at its last step');
		rate.keys('s');
		screen = await rate.waitFor((s) => s.includes('Your ratings as tester'), 'the rating form');
		assert.doesNotMatch(screen, /Judge \(/, 'judge scores off screen while rating');
		rate.keys('4', 'Down', '5', 'Down', '5', 'Down', '3', 'Down', '4', 'Down', 'Down', '2');
		screen = await rate.waitFor((s) => /typicality\s+\[2\]/.test(s), 'six scores typed');
		for (const [metric, score] of [['helpfulness', 4], ['honesty', 5], ['harmlessness', 5], ['naturalness', 3], ['plausibility', 4], ['typicality', 2]] as const) assert.match(screen, new RegExp(`${metric}\\s+\\[${score}\\]`));
		rate.keys('PageUp');
		rate.keys('Enter');
		await rate.waitFor((s) => s.includes('Saved 6 rating(s) by tester'), 'saved');
		const ratings = readFileSync(path.join(work, 'sessions', 'ratings.jsonl'), 'utf8').trim().split('\n').map((line) => JSON.parse(line) as {metric: string; score: number; session: string});
		assert.deepEqual(Object.fromEntries(ratings.map((row) => [row.metric, row.score])), {helpfulness: 4, honesty: 5, harmlessness: 5, naturalness: 3, plausibility: 4, typicality: 2}, 'exactly what was typed');
		rate.keys('q');
		await rate.waitFor((s) => s.includes('EXIT=0'), 'the exit');
	});

	it('a hung call shows its timer, attempt and timeout; an errored session retries with r; Ctrl-C mid-step exits 130', async () => {
		let simulator = 0;
		let honesty = 0;
		let typicality = 0;
		const script = scriptedModel({});
		const fake = await server((request) => {
			if (request.stage === 'simulator' && simulator++ === 0) return {delayMs: 2500, then: script(request) ?? undefined} as never;
			if (request.stage === 'judge:honesty' && honesty++ < 3) return {status: 500, body: {error: {message: 'judge backend down', type: 'server_error'}}};
			if (request.stage === 'judge:typicality' && typicality++ === 0) return {delayMs: 60_000};
			return script(request);
		});
		const term = launch(`cc-hang-${process.pid}`, [160, 48], fake, 'tui --persona my-tamil-hindu-a55-f --template culinary.dietary-rules.02 --tier standard');
		await term.waitFor((s) => s.includes('next: retrieve evidence'), 'the episode screen');
		term.keys('a');
		const timer = (s: string) => Number(/⏳ simulator (\d+(?:\.\d)?) (ms|s)/.exec(s)?.slice(1).reduce((value, unit) => (unit === 's' ? String(Number(value) * 1000) : value)) ?? NaN);
		let screen = await term.waitFor((s) => timer(s) >= 500, 'the hung simulator call with its timer');
		assert.match(screen, /⏳ simulator [\d.]+ (ms|s) · attempt 1\/3 · timeout/);
		const first = timer(screen);
		screen = await term.waitFor((s) => timer(s) > first + 400, 'the timer moving');
		term.keys('i');
		screen = await term.waitFor((s) => s.includes('IN FLIGHT') && s.includes('── request · system ──'), 'the call in flight in the inspector, with its prompt');
		term.keys('Escape');
		screen = await term.waitFor((s) => s.includes('✗ JUDGE_ERROR'), 'the judge failing three times', 40_000);
		assert.match(screen, /r retry the failed step/);
		term.keys('i');
		await term.waitFor((s) => s.includes('Inspector ·'), 'the inspector');
		term.keys('End');
		screen = await term.waitFor((s) => s.includes('failed after 3 attempt(s) (500, 500, 500)'), 'attempt-by-attempt statuses in the notices');
		term.keys('Escape');
		await term.waitFor((s) => !s.includes('Inspector ·'), 'the inspector closed');
		term.keys('r');
		screen = await term.waitFor((s) => /judge: harmlessness/.test(s) && !s.includes('✗ JUDGE_ERROR'), 'the failed step run again');
		assert.match(screen, /honesty\s+5/);
		term.keys('a');
		await term.waitFor((s) => /⏳ judge judge:typicality/.test(s), 'the next call hanging');
		term.keys('C-c');
		screen = await term.waitFor((s) => s.includes('EXIT='), 'the exit');
		assert.match(screen, /EXIT=130/, 'Ctrl-C mid-step exits 130');
		assert.match(screen.replace(/\n/g, ''), /Resume: npx ?cultureconverse tui --resume \S+/);
		const id = /Session (\S+) saved/.exec(screen.replace(/\n/g, ''))![1]!;
		assert.equal(sessionFile(id).status, 'running', 'resumable');
		assert.equal(readdirSync(path.join(work, 'sessions')).filter((name) => name.includes(id) && name.endsWith('.json')).length, 1, 'one session file (its journal holds the steps since the retry)');
	});
});
