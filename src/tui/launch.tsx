import path from 'node:path';
import type {IO, TuiRequest} from '../commands/types.js';
import {loadUniverse} from '../universe/load.js';
import {ExitCode, UserError} from '../util/errors.js';
import {workspaceDir} from '../util/paths.js';
import type {Screen} from './appState.js';
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
		io.stderr.write('cultureconverse: the terminal UI needs an interactive terminal (raw mode). Use `cultureconverse run ...` or `replay <id> --print` instead.\n');
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
		else initial = {kind: 'home'};
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
	try {
		const app = render(createElement(App, {services, initial}), {stdout, stdin, stderr: io.stderr as NodeJS.WriteStream, exitOnCtrlC: false, patchConsole: true});
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
	return interrupted ? ExitCode.interrupted : ExitCode.ok;
}
