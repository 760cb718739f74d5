import type {Flags} from './types.js';

/*
 * The command a stopped or interrupted batch prints to carry on. The batch remembers its selection
 * and episode settings (its manifest), but not how its models were reached: "Continue with:
 * cultureconverse batch --name kill" failed with "No model is set" when the model came from a flag
 * (issue 24). So every flag of this run that says how to run (models, endpoints, config, folders,
 * widths, the queue) is carried over, quoted for a POSIX shell; flags the manifest holds are not.
 */

/** Flags the manifest holds (giving them again must repeat them exactly, so they are left out). */
const REMEMBERED = new Set([
	'name', 'region', 'identity', 'domain', 'subdomain', 'tier', 'split', 'persona', 'template', 'seedFile', 'sample', 'sampleSeed', 'balance', 'trials',
	'lang', 'mode', 'judgeMode', 'maxTurns', 'bestOf',
]);
/** Flags about this run's output or plan only. */
const THIS_RUN_ONLY = new Set(['dryRun', 'json', 'jsonl', 'help']);
/** Boolean flags that are on unless turned off (`--no-cache`). */
const ON_BY_DEFAULT = new Set(['cache', 'stream', 'preflight']);

const kebab = (name: string) => name.replace(/[A-Z]/g, (letter) => `-${letter.toLowerCase()}`);

/** A word as a POSIX shell reads it back unchanged. */
export function shellWord(value: string): string {
	return /^[A-Za-z0-9_@%+=:,./-]+$/.test(value) ? value : `'${value.replace(/'/g, `'\\''`)}'`;
}

/** `npx cultureconverse batch --name N` plus every flag of `flags` that says how to run the batch. */
export function resumeCommand(name: string, flags: Flags, known: Readonly<Record<string, unknown>>): string {
	const words = ['npx', 'cultureconverse', 'batch', '--name', shellWord(name)];
	for (const [flag, value] of Object.entries(flags)) {
		if (!(flag in known) || REMEMBERED.has(flag) || THIS_RUN_ONLY.has(flag) || value === undefined) continue;
		if (typeof value === 'boolean') {
			if (ON_BY_DEFAULT.has(flag)) {
				if (!value) words.push(`--no-${kebab(flag)}`);
			} else if (value) words.push(`--${kebab(flag)}`);
			continue;
		}
		for (const one of Array.isArray(value) ? value : [value]) words.push(`--${kebab(flag)}`, shellWord(String(one)));
	}
	return words.join(' ');
}
