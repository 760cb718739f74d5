import {main} from './main.js';
import type {IO} from './commands/types.js';

const controller = new AbortController();
// First Ctrl-C asks the running command to stop cleanly (saving its work); a second one, or a
// command that does not stop within 5 s, ends the process.
process.on('SIGINT', () => {
	if (controller.signal.aborted) process.exit(130);
	controller.abort();
	setTimeout(() => process.exit(130), 5000).unref();
});

const io: IO = {
	stdout: process.stdout,
	stderr: process.stderr,
	stdin: process.stdin,
	env: process.env,
	cwd: process.cwd(),
	signal: controller.signal,
};

process.exitCode = await main(process.argv.slice(2), io, {
	// Loaded lazily so headless commands never parse React or Ink.
	openTui: async (tuiIo, request) => (await import('./tui/launch.js')).launchTui(tuiIo, request),
});
