import path from 'node:path';
import type {IO, TuiRequest} from '../commands/types.js';
import {loadUniverse} from '../universe/load.js';
import {ExitCode, UserError} from '../util/errors.js';
import {workspaceDir} from '../util/paths.js';
import {type Screen, TuiOutcome} from './appState.js';
import {createServices} from './services.js';

const ENTER_ALT_SCREEN = '\u001B[?1049h\u001B[H';
const LEAVE_ALT_SCREEN = '\u001B[?1049l';

/**
 * Starts the TUI on a terminal and resolves with the exit code when the user quits. What can fail
 * before drawing (unknown ids, missing API keys, unreadable session files) is reported as plain text
 * with the usual exit code, before the screen is taken over.
 */
export async function launchTui(io: IO, request: TuiRequest): Promise<number> {
	const stdin = io.stdin as NodeJS.ReadStream;
	const stdout = io.stdout as NodeJS.WriteStream;
	if (!stdin.isTTY || typeof stdin.setRawMode !== 'function' || !stdout.isTTY) {
		io.stderr.write('cultureconverse: the terminal UI needs an interactive terminal (raw mode). Use `npx cultureconverse run ...` or `replay <id> --print` instead.\n');
		return ExitCode.badInput;
	}
	let initial: Screen;
	const universe = loadUniverse({
		kbDir: io.env['CULTURECONVERSE_KB_DIR'] ? path.resolve(io.cwd, io.env['CULTURECONVERSE_KB_DIR']) : undefined,
		userTemplatesDir: path.join(workspaceDir(io.env, io.cwd), 'templates'),
	});
	// The offline mock answers instantly; paced a little, its replies stream in as a model's would.
	const paced = io.env['CULTURECONVERSE_MOCK_PACE_MS'] === undefined ? {...io, env: {...io.env, CULTURECONVERSE_MOCK_PACE_MS: '8'}} : io;
	const services = createServices(paced, request.flags, universe);
	try {
		if (request.kind === 'episode') initial = {kind: 'live', engine: await services.startEpisode(request.flags), back: null};
		else if (request.kind === 'replay') initial = {kind: 'replay', session: await services.loadSession(request.session), back: null};
		else if (request.kind === 'resume') {
			const engine = await services.resumeEpisode(await services.loadSession(request.session));
			if (request.retry && !(await engine.retryAfterError())) io.stderr.write(`cultureconverse: session ${engine.session.id} has no error to retry (status ${engine.session.status}); resuming it as it is.\n`);
			initial = {kind: 'live', engine, back: null};
		} else initial = {kind: 'home'};
	} catch (error) {
		if (error instanceof UserError) {
			io.stderr.write(`cultureconverse: ${error.message}\n`);
			return error.exitCode;
		}
		throw error;
	}
	// React's development build costs about a tenth of every frame; a CLI run is production unless told
	// otherwise. Ink, React and the App are loaded only now, after this is decided (no JSX in this file).
	process.env['NODE_ENV'] ??= 'production';
	// Ink reads CI / CONTINUOUS_INTEGRATION once, when first loaded, and then draws only the final
	// frame on exit. Someone who opened the TUI on a real terminal wants live frames, even from a shell
	// that exports CI=true (CI runners, some dev containers).
	delete process.env['CI'];
	delete process.env['CONTINUOUS_INTEGRATION'];
	const [{render}, {createElement}, {App}] = await Promise.all([import('ink'), import('react'), import('./App.js')]);
	stdout.write(ENTER_ALT_SCREEN);
	let interrupted = false;
	const outcome = new TuiOutcome();
	try {
		// Ink's incremental rendering rewrites only the lines that changed (a third of the bytes for a
		// one-line scroll, npm run bench:tui), but in tmux it left stale lines on screen while a reply
		// streamed (a status line of an earlier step above the current one), so full redraws stay the
		// default; CULTURECONVERSE_TUI_INCREMENTAL=1 turns it on for measuring.
		const incrementalRendering = io.env['CULTURECONVERSE_TUI_INCREMENTAL'] === '1';
		const app = render(createElement(App, {services, initial, outcome}), {stdout, stdin, stderr: io.stderr as NodeJS.WriteStream, exitOnCtrlC: false, patchConsole: true, incrementalRendering});
		const onAbort = () => {
			interrupted = true;
			app.unmount();
		};
		io.signal?.addEventListener('abort', onAbort, {once: true});
		try {
			await app.waitUntilExit();
		} finally {
			io.signal?.removeEventListener('abort', onAbort);
		}
	} finally {
		stdout.write(LEAVE_ALT_SCREEN);
	}
	// Back on the normal screen: say which episode was open and how to continue it.
	const last = outcome.session;
	if (last) io.stderr.write(`${goodbye(last)}\n`);
	return interrupted || outcome.interrupted ? ExitCode.interrupted : ExitCode.ok;
}

/** "Session X saved at step 7 (running). Resume: npx cultureconverse tui --resume X" */
export function goodbye(session: {readonly id: string; readonly status: string; readonly steps: readonly unknown[]}): string {
	const where = `Session ${session.id} saved at step ${session.steps.length} (${session.status}).`;
	if (session.status === 'completed') return `${where} Replay: npx cultureconverse replay ${session.id}`;
	if (session.status === 'error') return `${where} Retry the failed step: npx cultureconverse tui --resume ${session.id} --retry (headless: npx cultureconverse run --resume ${session.id} --retry)`;
	return `${where} Resume: npx cultureconverse tui --resume ${session.id} (headless: npx cultureconverse run --resume ${session.id})`;
}
