import {episodeOptionsFromFlags, seedFromFlags} from './episodeOptions.js';
import {summaryOf} from './registry.js';
import {runtimeFlags} from './runtimeFlags.js';
import {ExitCode} from '../util/errors.js';
import {episodeFlags} from './run.js';
import type {Command} from './types.js';

export const tuiCommand: Command = {
	name: 'tui',
	summary: summaryOf('tui'),
	usage: ['tui', 'tui --persona ID --template ID [--tier T] [--lang english|native] [--mode eval|gold] [--human [--reveal]] [--<role>-model M]', 'tui --seed ID [...]', 'tui --resume <session-id|path> [--retry]'].join('\n  '),
	flags: {
		...episodeFlags,
		rater: {type: 'string', description: 'Your name on ratings made with s on a replayed session (default $CULTURECONVERSE_RATER, else your login name)'},
		human: {type: 'boolean', description: 'Play the assistant yourself: type each reply in the input box (Ctrl-S sends); you see the chat only, as a model would'},
		reveal: {type: 'boolean', description: 'With --human: show the private and oracle panes from the start (recorded on the session; reported apart from blind sessions)'},
		resume: {type: 'string', description: 'Continue a saved unfinished session live'},
		retry: {type: 'boolean', description: 'With --resume: clear the session\'s error (e.g. after a rate-limit storm) and run the failed step again'},
		...runtimeFlags,
	},
	async run({flags, io, universe, tui}) {
		if (!tui) {
			io.stderr.write('cultureconverse: `tui` needs an interactive terminal (stdin and stdout must be a TTY). For scripts and pipes use `npx cultureconverse run --persona ID --template ID` (add --json or --jsonl).\n');
			return ExitCode.badInput;
		}
		if (typeof flags['resume'] === 'string') return tui({kind: 'resume', session: flags['resume'], retry: Boolean(flags['retry']), flags});
		const wantsEpisode = typeof flags['persona'] === 'string' || typeof flags['template'] === 'string' || typeof flags['seed'] === 'string';
		if (!wantsEpisode) return tui({kind: 'home', flags});
		// Bad ids and options fail here, as plain text, before the screen is taken over.
		seedFromFlags({universe: universe()}, flags);
		episodeOptionsFromFlags(flags);
		return tui({kind: 'episode', flags});
	},
};
