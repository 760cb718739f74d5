import {render} from 'ink';
import type {Flags, IO} from '../commands/types.js';
import {loadUniverse} from '../universe/load.js';
import {Welcome} from './Welcome.js';

/** Starts the TUI on a terminal and resolves with the exit code when the user quits. */
export async function launchTui(io: IO, _options: {args: readonly string[]; flags: Flags}): Promise<number> {
	const universe = loadUniverse();
	const app = render(<Welcome universe={universe} />, {
		stdout: io.stdout as NodeJS.WriteStream,
		stdin: io.stdin as NodeJS.ReadStream,
		stderr: io.stderr as NodeJS.WriteStream,
		exitOnCtrlC: true,
	});
	await app.waitUntilExit();
	return 0;
}
