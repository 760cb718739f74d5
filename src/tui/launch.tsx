import {render} from 'ink';
import type {IO, TuiRequest} from '../commands/types.js';
import {loadUniverse} from '../universe/load.js';
import {Welcome} from './Welcome.js';

/** Starts the TUI on a terminal and resolves with the exit code when the user quits. */
export async function launchTui(io: IO, _request: TuiRequest): Promise<number> {
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
