import './colourEnv.js';
import {setMaxListeners} from 'node:events';
import {main} from './main.js';
import type {IO} from './commands/types.js';

const controller = new AbortController();
// Every model call of a batch listens to this one signal: no listener-count warning at high concurrency.
setMaxListeners(0, controller.signal);
let stopCode: number | null = null;
// First Ctrl-C (or a SIGTERM from a scheduler) asks the running command to stop cleanly, saving its
// work; a second one, or a command that does not stop within 5 s, ends the process.
const stop = (code: number) => () => {
	if (controller.signal.aborted) process.exit(stopCode ?? code);
	stopCode = code;
	controller.abort();
	setTimeout(() => process.exit(code), 5000).unref();
};
process.on('SIGINT', stop(130));
process.on('SIGTERM', stop(143));

// A reader that stopped reading (`batch status X | head`, `seeds --json | head`) closes the pipe:
// writing more fails with EPIPE. Like any Unix tool the command then stops quietly with exit 0,
// instead of a stack trace; a command with work in flight stops as it would on Ctrl-C, saving it.
let pipeClosed = false;
for (const stream of [process.stdout, process.stderr]) {
	stream.on('error', (error: NodeJS.ErrnoException) => {
		if (error.code !== 'EPIPE') throw error;
		if (pipeClosed) return;
		pipeClosed = true;
		if (!controller.signal.aborted) controller.abort();
		setTimeout(() => process.exit(0), 5000).unref();
	});
}

const io: IO = {
	stdout: process.stdout,
	stderr: process.stderr,
	stdin: process.stdin,
	env: process.env,
	cwd: process.cwd(),
	signal: controller.signal,
};

const code = await main(process.argv.slice(2), io, {
	// Loaded lazily so headless commands never parse React or Ink.
	openTui: async (tuiIo, request) => (await import('./tui/launch.js')).launchTui(tuiIo, request),
});
// A command interrupted by SIGTERM reports 130 like any interruption; the shell convention for a
// terminated process is 143.
process.exitCode = pipeClosed ? 0 : code === 130 && stopCode === 143 ? 143 : code;
