import {sessionsDirFromFlags} from './runtimeFlags.js';
import {openHidden} from '../app/hiddenAccess.js';
import {SessionStore} from '../store/sessionStore.js';
import {UserError} from '../util/errors.js';
import {printSession} from './sessions.js';
import {summaryOf} from './registry.js';
import type {Command} from './types.js';

export const replayCommand: Command = {
	name: 'replay',
	summary: summaryOf('replay'),
	usage: 'replay <session-id|path> [--print] [--json] [--reveal] [--sessions-dir DIR] [--rater NAME]',
	flags: {
		print: {type: 'boolean', description: 'Print the transcript with its public, private and oracle partitions instead of opening the TUI'},
		json: {type: 'boolean', description: 'With --print: the raw session file'},
		reveal: {type: 'boolean', description: 'Show a session still being played blind by a person anyway (recorded on it as sawHidden; without it such a session is refused)'},
		sessionsDir: {type: 'string', description: 'Folder of session files (default ./sessions)'},
		rater: {type: 'string', description: 'Your name on ratings made with s in the TUI (default $CULTURECONVERSE_RATER, else your login name)'},
	},
	async run({args, flags, io, tui}) {
		if (!flags['print'] && !flags['json'] && tui && args[0]) {
			// The replay screen shows every partition: a session still played blind is refused or marked here, as plain text, before the screen is taken over.
			const store = new SessionStore(sessionsDirFromFlags(flags, io));
			const session = await openHidden(store, await store.load(args[0]), {view: 'replay', reveal: Boolean(flags['reveal']), what: 'its replay'});
			return tui({kind: 'replay', session: store.fileFor(session.id), flags});
		}
		if (!args[0]) throw new UserError('Give a session id or path (list them with `npx cultureconverse sessions`).');
		return printSession(io, flags, args[0]);
	},
};
