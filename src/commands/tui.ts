import {episodeOptionsFromFlags, seedFromFlags} from '../app/episodes.js';
import {runtimeFlags} from '../app/runtime.js';
import {ExitCode} from '../util/errors.js';
import {episodeFlags} from './run.js';
import type {Command} from './types.js';

export const tuiCommand: Command = {
	name: 'tui',
	summary: 'Open the terminal UI; with --persona and --template, straight into a new episode',
	usage: ['tui', 'tui --persona ID --template ID [--tier T] [--lang english|native] [--mode eval|gold] [--human] [--<role>-model M]', 'tui --seed ID [...]'].join('\n  '),
	flags: {...episodeFlags, rater: {type: 'string', description: 'Your name on ratings made with s on a replayed session (default $CULTURECONVERSE_RATER, else your login name)'}, human: {type: 'boolean', description: 'Play the assistant yourself: type each reply in the input box (Enter on an empty line sends)'}, ...runtimeFlags},
	async run({flags, io, universe, tui}) {
		if (!tui) {
			io.stderr.write('cultureconverse: `tui` needs an interactive terminal (stdin and stdout must be a TTY). For scripts and pipes use `cultureconverse run --persona ID --template ID` (add --json or --jsonl).\n');
			return ExitCode.badInput;
		}
		const wantsEpisode = typeof flags['persona'] === 'string' || typeof flags['template'] === 'string' || typeof flags['seed'] === 'string';
		if (!wantsEpisode) return tui({kind: 'home', flags});
		// Bad ids and options fail here, as plain text, before the screen is taken over.
		seedFromFlags({universe: universe()}, flags);
		episodeOptionsFromFlags(flags);
		return tui({kind: 'episode', flags});
	},
};
