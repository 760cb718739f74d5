import assert from 'node:assert/strict';
import {EventEmitter} from 'node:events';
import {after, before, describe, it} from 'node:test';
import type {IO, TuiRequest} from '../src/commands/types.js';
import {launchTui} from '../src/tui/launch.js';
import {runCli} from './helpers/cli.js';
import {tuiFixture, type TuiFixture} from './helpers/tuiRender.js';

let fx: TuiFixture;
before(() => {
	fx = tuiFixture();
});
after(() => fx.close());

function spy() {
	const calls: TuiRequest[] = [];
	return {calls, openTui: async (_io: IO, request: TuiRequest) => (calls.push(request), 0)};
}

describe('the tui command', () => {
	it('never starts the TUI without a terminal: a clear message and exit 2', async () => {
		const tui = spy();
		const result = await runCli(['tui', '--persona', 'my-tamil-hindu-a55-f', '--template', 'culinary.dietary-rules.02'], {main: {openTui: tui.openTui}, env: fx.env, cwd: fx.dir});
		assert.equal(result.code, 2);
		assert.match(result.stderr, /needs an interactive terminal/);
		assert.match(result.stderr, /cultureconverse run/);
		assert.equal(tui.calls.length, 0);
	});

	it('opens an episode on a terminal with the episode and model flags', async () => {
		const tui = spy();
		const result = await runCli(['tui', '--persona', 'my-tamil-hindu-a55-f', '--template', 'culinary.dietary-rules.02', '--tier', 'standard', '--lang', 'native', '--human', '--judge-model', 'mock'], {tty: true, main: {openTui: tui.openTui}, env: fx.env, cwd: fx.dir});
		assert.equal(result.code, 0, result.stderr);
		assert.equal(tui.calls.length, 1);
		const request = tui.calls[0]!;
		assert.equal(request.kind, 'episode');
		assert.equal(request.flags['persona'], 'my-tamil-hindu-a55-f');
		assert.equal(request.flags['lang'], 'native');
		assert.equal(request.flags['human'], true);
		assert.equal(request.flags['judgeModel'], 'mock');
	});

	it('rejects unknown ids and bad option combinations before taking over the screen', async () => {
		const tui = spy();
		const unknown = await runCli(['tui', '--persona', 'my-tamil-hindu-a99-f', '--template', 'culinary.dietary-rules.02'], {tty: true, main: {openTui: tui.openTui}, env: fx.env, cwd: fx.dir});
		assert.equal(unknown.code, 2);
		assert.match(unknown.stderr, /Unknown persona/);
		const clash = await runCli(['tui', '--persona', 'my-tamil-hindu-a55-f', '--template', 'culinary.dietary-rules.02', '--human', '--mode', 'gold'], {tty: true, main: {openTui: tui.openTui}, env: fx.env, cwd: fx.dir});
		assert.equal(clash.code, 2);
		assert.match(clash.stderr, /--human and --mode gold/);
		assert.equal(tui.calls.length, 0);
	});

	it('opens the home screen for `tui` alone and for no arguments; `replay <id>` on a terminal opens the replay', async () => {
		const tui = spy();
		await runCli(['tui'], {tty: true, main: {openTui: tui.openTui}, env: fx.env, cwd: fx.dir});
		await runCli([], {tty: true, main: {openTui: tui.openTui}, env: fx.env, cwd: fx.dir});
		await runCli(['replay', 'some-id'], {tty: true, main: {openTui: tui.openTui}, env: fx.env, cwd: fx.dir});
		assert.deepEqual(tui.calls.map((call) => call.kind), ['home', 'home', 'replay']);
		assert.equal((tui.calls[2] as {session: string}).session, 'some-id');
	});

	it('lists tui in the help', async () => {
		const result = await runCli(['--help'], {env: fx.env, cwd: fx.dir});
		assert.match(result.stdout, /tui\s+Open the terminal UI/);
	});
});

/** A terminal-like stream pair, enough for Ink outside debug mode. */
function fakeTerminal() {
	const stdout = Object.assign(new EventEmitter(), {isTTY: true, columns: 140, rows: 40, out: '', write(chunk: string) {
		stdout.out += chunk;
		return true;
	}});
	let data: string | null = null;
	const stdin = Object.assign(new EventEmitter(), {
		isTTY: true,
		setRawMode: () => stdin,
		setEncoding() {},
		resume() {},
		pause() {},
		ref() {},
		unref() {},
		read: () => {
			const chunk = data;
			data = null;
			return chunk;
		},
		type(text: string) {
			data = text;
			stdin.emit('readable');
		},
	});
	return {stdout, stdin};
}

describe('launchTui', () => {
	it('refuses a non-terminal', async () => {
		const io = {...fx.io};
		let err = '';
		const code = await launchTui({...io, stderr: {write: (s: string) => ((err += s), true)} as never}, {kind: 'home', flags: {}});
		assert.equal(code, 2);
		assert.match(err, /needs an interactive terminal/);
	});

	it('reports an unknown session as plain text with exit 2, before drawing', async () => {
		const {stdout, stdin} = fakeTerminal();
		let err = '';
		const code = await launchTui({...fx.io, stdout: stdout as never, stdin: stdin as never, stderr: {write: (s: string) => ((err += s), true)} as never}, {kind: 'replay', session: 'no-such-session', flags: {sessionsDir: fx.sessionsDir}});
		assert.equal(code, 2);
		assert.match(err, /Unknown session|No session/);
		assert.equal(stdout.out, '', 'nothing was drawn');
	});

	it('opens a saved session for replay in the alternate screen and quits with q', async () => {
		const engine = await fx.services().startEpisode({persona: 'my-tamil-hindu-a55-f', template: 'culinary.dietary-rules.02', tier: 'standard'});
		await engine.runToEnd();
		const {stdout, stdin} = fakeTerminal();
		const running = launchTui({...fx.io, stdout: stdout as never, stdin: stdin as never}, {kind: 'replay', session: engine.session.id, flags: {sessionsDir: fx.sessionsDir}});
		const deadline = Date.now() + 30_000;
		while (!stdout.out.includes('REPLAY step') && Date.now() < deadline) await new Promise((resolve) => setTimeout(resolve, 10));
		assert.match(stdout.out, /\u001B\[\?1049h/, 'entered the alternate screen');
		assert.match(stdout.out, /REPLAY step (\d+)\/\1 /, "opens at the last step");
		await new Promise((resolve) => setTimeout(resolve, 30));
		stdin.type('q');
		assert.equal(await running, 0);
		assert.match(stdout.out, /\u001B\[\?1049l$/, 'left the alternate screen last');
	});
});
