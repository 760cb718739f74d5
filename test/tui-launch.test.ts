import assert from 'node:assert/strict';
import {EventEmitter} from 'node:events';
import {after, before, describe, it} from 'node:test';
import {launchTui} from '../src/tui/launch.js';
import {tuiFixture, type TuiFixture} from './helpers/tuiFixture.js';

/*
 * launchTui on a terminal-like stream pair, in a process where Ink is first loaded by launchTui itself
 * (this file imports no Ink), and with CI=true as CI runners export it: Ink would then draw only the
 * final frame, so these tests also prove the TUI still draws live frames there.
 */
process.env['CI'] = 'true';

let fx: TuiFixture;
before(() => {
	fx = tuiFixture();
});
after(() => fx.close());

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
