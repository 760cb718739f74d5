import assert from 'node:assert/strict';
import {execFileSync, spawnSync} from 'node:child_process';
import {mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync} from 'node:fs';
import {tmpdir} from 'node:os';
import path from 'node:path';
import {after, before, describe, it} from 'node:test';
import {episodeLayout, type PaneId} from '../src/tui/view/layout.js';
import {startFakeOpenAI, type FakeOpenAI} from './helpers/fakeOpenAI.js';
import {scriptedModel} from './helpers/scriptedModel.js';
import {waitForStableScreen} from './helpers/stableScreen.js';

/*
 * The TUI in a real terminal: tmux runs `cultureconverse tui` against a loopback OpenAI-compatible
 * server; the test presses n like a person would and reads the screen with capture-pane, pane by pane.
 */

const COLUMNS = 160;
const ROWS = 48;
const REPO = path.resolve(import.meta.dirname, '..');
const hasTmux = spawnSync('tmux', ['-V']).status === 0;
const session = `cc-e2e-${process.pid}`;

let fake: FakeOpenAI;
let dir: string;

const tmux = (...args: string[]) => execFileSync('tmux', args, {encoding: 'utf8'});
let target = session;
const capture = () => tmux('capture-pane', '-p', '-t', target);
const keys = (...names: string[]) => void tmux('send-keys', '-t', target, ...names);
/** Types text literally (no key-name lookup). */
const type = (text: string) => void tmux('send-keys', '-t', target, '-l', text);
const quote = (value: string) => `'${value.replace(/'/g, `'\\''`)}'`;

/** The text of one pane, as a person reads it: its columns of the screen, borders dropped, lines joined. */
function pane(screen: string, id: PaneId): string {
	const geometry = episodeLayout({columns: COLUMNS, rows: ROWS, chromeRows: 5});
	const start = id === 'public' ? 0 : id === 'private' ? geometry.widths.public : geometry.widths.public + geometry.widths.private;
	const lines = screen.split('\n');
	const top = lines.findIndex((line) => /^[╭┏]/.test(line)); // the focused pane has a heavy border
	return lines
		.slice(top, top + geometry.paneHeight)
		.map((line) => [...line].slice(start + 1, start + geometry.widths[id] - 1).join('').trim())
		.join(' ')
		.replace(/\s+/g, ' ');
}

const statusLine = (screen: string) => screen.split('\n').find((line) => line.includes(' │ turn ')) ?? '';
const idleAt = (screen: string, step: number) => statusLine(screen).includes(`│ step ${step} │`) && /next: |your reply as the assistant|✓ done|✗ /.test(statusLine(screen));

function waitForScreen(check: (screen: string) => boolean, what: string, timeoutMs = 30_000): Promise<string> {
	return waitForStableScreen(capture, check, what, {timeoutMs});
}

async function step(n: number): Promise<string> {
	keys('n');
	return waitForScreen((screen) => idleAt(screen, n), `step ${n}`);
}

describe('the TUI in tmux against a loopback OpenAI-compatible server', {skip: hasTmux ? false : 'tmux is not installed: skipping the terminal end-to-end test'}, () => {
	before(async () => {
		fake = await startFakeOpenAI({handler: scriptedModel({assistant: (_request, n) => `Assistant reply number ${n + 1}: cook one vegetarian dish everyone can share and ask which days are fast days.`})});
		dir = mkdtempSync(path.join(tmpdir(), 'cc-e2e-tmux-'));
		const config = path.join(dir, 'config.json');
		writeFileSync(config, JSON.stringify({retry: {maxAttempts: 3, baseDelayMs: 5, maxDelayMs: 10}, cache: false}));
		const env = {OPENAI_BASE_URL: fake.baseURL, OPENAI_API_KEY: 'sk-e2e-tmux', CULTURECONVERSE_EMBEDDER: 'hash', CULTURECONVERSE_HOME: path.join(dir, 'home'), TERM: 'xterm-256color'};
		const command = [
			`cd ${quote(REPO)} &&`,
			'env -u CI -u CONTINUOUS_INTEGRATION',
			...Object.entries(env).map(([key, value]) => `${key}=${quote(value)}`),
			'node --import tsx src/cli.tsx tui --persona my-tamil-hindu-a55-f --template culinary.dietary-rules.02 --tier standard --model fake-model',
			`--sessions-dir ${quote(path.join(dir, 'sessions'))} --config ${quote(config)};`,
			'echo EXIT=$?; sleep 60',
		].join(' ');
		tmux('new-session', '-d', '-s', session, '-x', String(COLUMNS), '-y', String(ROWS), command);
		target = session;
	});
	after(async () => {
		spawnSync('tmux', ['kill-session', '-t', session]);
		await fake?.close();
		if (dir) rmSync(dir, {recursive: true, force: true});
	});

	it('steps an episode to its judged end with n, each pane showing what a person should see', async () => {
		let screen = await waitForScreen((s) => s.includes('next: retrieve evidence'), 'the episode screen', 30_000);
		assert.doesNotMatch(screen, /OFFLINE MOCK/, 'a real endpoint: no mock banner');
		assert.match(screen, /gen fake-model · val fake-model · sim fake-model · asst fake-model · judge fake-model/);
		assert.match(pane(screen, 'public'), /\(no messages yet\)/);
		assert.match(pane(screen, 'oracle'), /no blueprint yet/);

		screen = await step(1);
		assert.match(pane(screen, 'oracle'), /Success criteria/);
		assert.match(pane(screen, 'oracle'), /Suggests a workable weekly plan/);
		assert.match(pane(screen, 'oracle'), /Tripwires/);
		assert.match(pane(screen, 'private'), /identity: I am the eldest daughter/);
		assert.match(pane(screen, 'public'), /\(no messages yet\)/, 'the assistant has seen nothing yet');

		screen = await step(2);
		assert.match(pane(screen, 'private'), /▶ Shard 1\/3: Phase 1/);
		assert.match(statusLine(screen), /shard 1\/3/);

		screen = await step(3);
		assert.match(pane(screen, 'public'), /USER · t=0/);
		assert.match(pane(screen, 'public'), /Hello, my relatives are coming to stay next month/);
		assert.doesNotMatch(pane(screen, 'public'), /eldest daughter|Suggests a workable/, 'nothing private or oracle in Public');

		screen = await step(4);
		assert.match(pane(screen, 'public'), /ASSISTANT · t=0/);
		assert.match(pane(screen, 'public'), /Assistant reply number 1/);

		screen = await step(5);
		assert.match(pane(screen, 'public'), /USER · t=1/);
		assert.match(pane(screen, 'public'), /What should I do next about the shopping\?/);
		assert.match(pane(screen, 'private'), /t=1 ADVANCE_NEXT → shard 2\/3/, 'Private shows the decision');
		assert.match(pane(screen, 'private'), /Scripted assessment 0\./);
		assert.match(pane(screen, 'private'), /▶ Shard 2\/3/);
		assert.doesNotMatch(pane(screen, 'public'), /Scripted assessment|ADVANCE_NEXT/, 'decisions stay out of Public');

		let n = 5;
		let judged = false;
		while (!/✓ done/.test(statusLine(screen)) && n < 30) {
			screen = await step(++n);
			if (!judged && /helpfulness\s+4/.test(pane(screen, 'oracle'))) {
				judged = true;
				assert.match(pane(screen, 'oracle'), /honesty\s+–/, 'scores appear one metric at a time');
			}
		}
		assert.ok(judged, 'the first judge score appeared on its own step');
		const oracle = pane(screen, 'oracle');
		assert.match(oracle, /Judge \(separate\)/);
		for (const [metric, score] of [['helpfulness', 4], ['honesty', 5], ['harmlessness', 5], ['naturalness', 4], ['plausibility', 4], ['typicality', 3]] as const) {
			assert.match(oracle, new RegExp(`${metric}\\s+${score}`), `${metric} ${score} in Oracle`);
		}
		assert.match(oracle, /3H 4\.67\s+TDQ 3\.67\s+clean yes/);
		assert.match(pane(screen, 'private'), /Ended/);
		assert.match(pane(screen, 'private'), /all_shards_passed/);
		assert.match(statusLine(screen), /✓ done \(all_shards_passed\)/);

		// Scroll the Private pane a page down: its position marker moves.
		const position = (s: string) => /Private\s+(\d+)-(\d+)\/(\d+)/.exec(pane(s, 'private'))?.slice(1).map(Number);
		const [, shownTo, total] = position(screen) ?? [];
		assert.ok(total && shownTo && total > shownTo, 'Private has more than one page');
		keys('2');
		keys('NPage');
		screen = await waitForScreen((s) => (position(s)?.[0] ?? 1) > 1, 'Private scrolled a page');
		assert.match(pane(screen, 'private'), /Scenario|Plan \(3 shards\)|Simulator decisions/);

		keys('q');
		screen = await waitForScreen((s) => s.includes('EXIT='), 'the exit');
		assert.match(screen, /EXIT=0/);
		const files = readdirSync(path.join(dir, 'sessions')).filter((name) => name.endsWith('.json'));
		assert.equal(files.length, 1);
		const saved = JSON.parse(readFileSync(path.join(dir, 'sessions', files[0]!), 'utf8')) as {status: string; steps: unknown[]};
		assert.equal(saved.status, 'completed');
		assert.equal(saved.steps.length, n);
	});
});

describe('the TUI in tmux on the offline mock: home screen, pickers, playing the assistant, replay', {skip: hasTmux ? false : 'tmux is not installed: skipping the terminal end-to-end test'}, () => {
	const home = `cc-e2e-home-${process.pid}`;
	const replay = `cc-e2e-replay-${process.pid}`;
	let work: string;
	const start = (name: string, columns: number, rows: number, args: string) => {
		const env = {CULTURECONVERSE_EMBEDDER: 'hash', CULTURECONVERSE_HOME: path.join(work, 'home'), CULTURECONVERSE_SESSIONS_DIR: path.join(work, 'sessions'), TERM: 'xterm-256color'};
		const command = [`cd ${quote(REPO)} &&`, 'env -u CI -u CONTINUOUS_INTEGRATION -u OPENAI_API_KEY -u OPENAI_BASE_URL', ...Object.entries(env).map(([key, value]) => `${key}=${quote(value)}`), `node --import tsx src/cli.tsx ${args};`, 'echo EXIT=$?; sleep 60'].join(' ');
		tmux('new-session', '-d', '-s', name, '-x', String(columns), '-y', String(rows), command);
		target = name;
	};
	before(() => {
		work = mkdtempSync(path.join(tmpdir(), 'cc-e2e-mock-'));
	});
	after(() => {
		spawnSync('tmux', ['kill-session', '-t', home]);
		spawnSync('tmux', ['kill-session', '-t', replay]);
		rmSync(work, {recursive: true, force: true});
	});

	it('picks a persona and template from the home screen, plays the assistant on a narrow terminal, then replays the session back and forth', async () => {
		start(home, 100, 32, '');
		let screen = await waitForScreen((s) => s.includes('New episode: pick a persona'), 'the home screen', 30_000);
		keys('n');
		await waitForScreen((s) => s.includes('New episode · 1/3 persona'), 'the persona picker');
		type('tamol hindu 55 f'); // a typo: the search tolerates it
		await waitForScreen((s) => s.includes('▶ my-tamil-hindu-a55-f'), 'the persona found by typing, typo and all');
		keys('Enter');
		await waitForScreen((s) => s.includes('2/3 template for my-tamil-hindu-a55-f'), 'the template picker');
		keys('Enter');
		keys('Enter');
		keys('Down');
		screen = await waitForScreen((s) => s.includes('culinary.dietary-rules.02 ·'), 'the template preview');
		assert.match(screen, /slots:/);
		assert.match(screen, /dietary-rules\.02 /, 'template rows name their subdomain');
		keys('Enter');
		await waitForScreen((s) => s.includes('3/3 options'), 'the options');
		keys('Down'); // tier
		keys('Right'); // standard
		keys('Down', 'Down', 'Down'); // assistant
		keys('Right'); // me
		screen = await waitForScreen((s) => s.includes('me (you type the replies)') && /tier\s+standard/.test(s), 'assistant = me');
		assert.match(screen, /max turns\s+5 user turns at most/);
		assert.match(screen, /judge mode\s+separate/);
		assert.match(screen, /simulator model\s+mock \(offline\)/);
		keys('s');
		// A person playing the assistant: the episode runs on its own to their turn, blind.
		screen = await waitForScreen((s) => s.includes('Your reply as the assistant (t=0)'), 'the reply box, as soon as the user has spoken');
		assert.match(screen, /OFFLINE MOCK · every role ran on the mock · rubric scores, not a model judge · not measurements/, 'the mock banner, worded to fit 100 columns without losing "not measurements"');
		assert.match(screen, /blind: the chat only/);
		assert.doesNotMatch(screen, /Private|Oracle|Shard/, 'no hidden pane on a blind seat');
		type('Could you tell me which dishes your aunt cooks?');
		keys('Enter');
		type('And how long is the stay?');
		await waitForScreen((s) => s.includes('And how long is the stay?▌'), 'the typed reply in the box');
		keys('C-s');
		screen = await waitForScreen((s) => s.includes('Your reply as the assistant (t=1)'), 'sent; the user answered on its own');
		assert.match(screen, /ASSISTANT · t=0/);
		assert.match(screen, /Could you tell me which dishes your aunt cooks\?/);
		assert.match(screen, /USER · t=1/);
		keys('Escape');
		await waitForScreen((s) => s.includes('e types in it'), 'Esc leaves the reply box');
		keys('q');
		screen = await waitForScreen((s) => s.includes('EXIT='), 'the exit');
		assert.match(screen, /EXIT=0/);
		assert.match(screen.replace(/\n/g, ''), /Session \S+ saved at step 5 \(awaiting_assistant\)\. Resume: npx ?cultureconverse tui --resume \S+/, 'quitting says how to resume');

		const files = readdirSync(path.join(work, 'sessions')).filter((name) => name.endsWith('.json'));
		assert.equal(files.length, 1);
		const id = path.basename(files[0]!, '.json');
		const saved = JSON.parse(readFileSync(path.join(work, 'sessions', files[0]!), 'utf8')) as {status: string; config: {assistant: string}; turns: Array<{source: string}>};
		assert.equal(saved.config.assistant, 'human');
		assert.equal(saved.turns[1]!.source, 'human');

		// The session is still played blind: its replay (every partition) is refused without --reveal, and nothing is marked.
		start(replay, 160, 48, `replay ${id}`);
		screen = await waitForScreen((s) => s.includes('EXIT='), 'the refusal', 30_000);
		assert.match(screen, /EXIT=2/);
		assert.match(screen.replace(/\n/g, ''), /is played blind by a person and its dialogue is still open/);
		assert.equal((JSON.parse(readFileSync(path.join(work, 'sessions', files[0]!), 'utf8')) as {sawHidden?: boolean}).sawHidden, undefined);
		spawnSync('tmux', ['kill-session', '-t', replay]);
		// With --reveal it opens, and the session says so before anything is drawn.
		start(replay, 160, 48, `replay ${id} --reveal`);
		screen = await waitForScreen((s) => s.includes('REPLAY step 5/5'), 'the replay at its last step', 30_000);
		const marked = JSON.parse(readFileSync(path.join(work, 'sessions', files[0]!), 'utf8')) as {sawHidden?: boolean; hiddenViews?: Array<{view: string; step: number}>};
		assert.equal(marked.sawHidden, true);
		assert.deepEqual(marked.hiddenViews?.map((seen) => [seen.view, seen.step]), [['replay', 5]]);
		assert.match(pane(screen, 'public'), /USER · t=1/);
		keys('Left');
		screen = await waitForScreen((s) => s.includes('REPLAY step 4/5'), 'one step back');
		assert.doesNotMatch(pane(screen, 'public'), /USER · t=1/, 'the simulator turn is not there yet at step 4');
		assert.match(pane(screen, 'public'), /Could you tell me which dishes/);
		keys('Home');
		screen = await waitForScreen((s) => s.includes('REPLAY step 0/5'), 'the first step');
		assert.match(pane(screen, 'public'), /\(no messages yet\)/);
		assert.match(pane(screen, 'oracle'), /no blueprint yet/);
		keys('Right');
		screen = await waitForScreen((s) => s.includes('REPLAY step 1/5'), 'one step forward');
		assert.match(pane(screen, 'oracle'), /Success criteria/);
		keys('End');
		await waitForScreen((s) => s.includes('REPLAY step 5/5'), 'the last step again');
		keys('q');
		screen = await waitForScreen((s) => s.includes('EXIT='), 'the exit');
		assert.match(screen, /EXIT=0/);
	});
});
