import {printSession} from './sessions.js';
import {summaryOf} from './registry.js';
import type {Command} from './types.js';

export const replayCommand: Command = {
	name: 'replay',
	summary: summaryOf('replay'),
	usage: 'replay <session-id|path> [--print] [--json] [--sessions-dir DIR] [--rater NAME]',
	flags: {
		print: {type: 'boolean', description: 'Print the transcript with its public, private and oracle partitions instead of opening the TUI'},
		json: {type: 'boolean', description: 'With --print: the raw session file'},
		sessionsDir: {type: 'string', description: 'Folder of session files (default ./sessions)'},
		rater: {type: 'string', description: 'Your name on ratings made with s in the TUI (default $CULTURECONVERSE_RATER, else your login name)'},
	},
	async run({args, flags, io, tui}) {
		if (!flags['print'] && !flags['json'] && tui && args[0]) return tui({kind: 'replay', session: args[0], flags});
		return printSession(io, flags, args[0]);
	},
};
