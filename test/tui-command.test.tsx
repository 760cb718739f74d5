import assert from 'node:assert/strict';
import {after, before, describe, it} from 'node:test';
import type {IO, TuiRequest} from '../src/commands/types.js';
import {runCli} from './helpers/cli.js';
import {tuiFixture, type TuiFixture} from './helpers/tuiFixture.js';

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

	it('opens the home screen for options with no command, and resumes (or retries) a session with tui --resume', async () => {
		const tui = spy();
		assert.equal((await runCli(['--sessions-dir', 'elsewhere'], {tty: true, main: {openTui: tui.openTui}, env: fx.env, cwd: fx.dir})).code, 0);
		assert.deepEqual([tui.calls[0]!.kind, tui.calls[0]!.flags['sessionsDir']], ['home', 'elsewhere']);
		assert.equal((await runCli(['tui', '--resume', 'some-id', '--retry'], {tty: true, main: {openTui: tui.openTui}, env: fx.env, cwd: fx.dir})).code, 0);
		assert.deepEqual(tui.calls[1], {kind: 'resume', session: 'some-id', retry: true, flags: tui.calls[1]!.flags});
		const piped = await runCli(['--sessions-dir', 'elsewhere'], {main: {openTui: tui.openTui}, env: fx.env, cwd: fx.dir});
		assert.equal(piped.code, 2, 'without a terminal: the tui command says it needs one');
		assert.equal(tui.calls.length, 2);
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
		// replay reads the session first (one still played blind is refused before the screen is taken over).
		const engine = await fx.services().startEpisode({persona: 'my-tamil-hindu-a55-f', template: 'culinary.dietary-rules.02', tier: 'standard'});
		await engine.runToEnd();
		const opened = await runCli(['replay', engine.session.id, '--sessions-dir', fx.sessionsDir], {tty: true, main: {openTui: tui.openTui}, env: fx.env, cwd: fx.dir});
		assert.equal(opened.code, 0, opened.stderr);
		assert.deepEqual(tui.calls.map((call) => call.kind), ['home', 'home', 'replay']);
		assert.match((tui.calls[2] as {session: string}).session, new RegExp(`${engine.session.id}\\.json$`));
		const unknown = await runCli(['replay', 'some-id', '--sessions-dir', fx.sessionsDir], {tty: true, main: {openTui: tui.openTui}, env: fx.env, cwd: fx.dir});
		assert.equal(unknown.code, 2);
		assert.match(unknown.stderr, /Unknown session 'some-id'/);
		assert.equal(tui.calls.length, 3, 'an unknown id never takes over the screen');
	});

	it('lists tui in the help', async () => {
		const result = await runCli(['--help'], {env: fx.env, cwd: fx.dir});
		assert.match(result.stdout, /tui\s+Open the terminal UI/);
	});
});
