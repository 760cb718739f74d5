import chalk from 'chalk';
import {main} from './main.js';
import type {IO} from './commands/types.js';

// NO_COLOR (no-color.org): no colour when it is set and not empty, on a terminal too. chalk itself
// only reads FORCE_COLOR; Ink draws through the same chalk, so this covers the TUI as well.
if (process.env['NO_COLOR']) chalk.level = 0;

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
