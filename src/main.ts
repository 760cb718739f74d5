import {COMMANDS} from './commands/registry.js';
import type {Command, FlagSpec, Flags, IO, TuiRequest} from './commands/types.js';
import type {Universe} from './universe/load.js';
import {ExitCode, UserError, errorMessage} from './util/errors.js';
import {workspaceDir} from './util/paths.js';
import {nearMatches} from './util/suggest.js';
import {maskSecrets} from './llm/secrets.js';
import {forTerminal} from './util/outsideText.js';
import {ModelCallError, SETUP_FAILURES} from './llm/types.js';
import path from 'node:path';

/** Flags every command accepts. */
const globalFlags: Record<string, FlagSpec> = {
	help: {type: 'boolean', shortFlag: 'h', description: 'Show help'},
};

export function helpText(): string {
	const width = Math.max(...COMMANDS.map((command) => command.name.length));
	return [
		'',
		'  Simulate, step through and score multi-turn, culturally grounded assistant dialogues',
		'  for ten East and Southeast Asian regions.',
		'',
		'  Usage',
		'    $ npx cultureconverse             open the terminal UI (when run in a terminal)',
		'    $ npx cultureconverse <command> [options]',
		'',
		'  Commands',
		...COMMANDS.map((command) => `    ${command.name.padEnd(width)}  ${command.summary}`),
		'',
		'  Run `npx cultureconverse <command> --help` for a command\'s options.',
		'  Every command that lists or produces data accepts --json.',
		'',
	].join('\n');
}

function commandHelp(command: Command): string {
	const flags = {...command.flags, ...globalFlags};
	const width = Math.max(...Object.keys(flags).map((name) => flagLabel(name, flags[name]!).length));
	return [
		'',
		`  ${command.summary}`,
		'',
		'  Usage',
		...command.usage.split('\n').map((line) => `    $ npx cultureconverse ${line.trim().replace(/^\$ cultureconverse /, '')}`),
		'',
		'  Options',
		...Object.entries(flags).map(([name, spec]) => `    ${flagLabel(name, spec).padEnd(width)}  ${spec.description}${spec.default !== undefined && spec.default !== false ? ` (default: ${String(spec.default)})` : ''}`),
		'',
	].join('\n');
}

function flagLabel(name: string, spec: FlagSpec): string {
	const long = `--${kebab(name)}`;
	const value = spec.type === 'boolean' ? '' : ` <${spec.type === 'number' ? 'n' : 'value'}>`;
	return spec.shortFlag ? `-${spec.shortFlag}, ${long}${value}` : `${long}${value}`;
}

const kebab = (name: string) => name.replace(/[A-Z]/g, (letter) => `-${letter.toLowerCase()}`);

/** Rejects unknown flags with near matches, instead of meow's process.exit. */
function checkUnknownFlags(argv: readonly string[], specs: Record<string, FlagSpec>): void {
	const known = new Set<string>();
	for (const [name, spec] of Object.entries(specs)) {
		known.add(kebab(name));
		if (spec.type === 'boolean') known.add(`no-${kebab(name)}`);
		if (spec.shortFlag) known.add(spec.shortFlag);
	}
	for (const arg of argv) {
		if (arg === '--') break;
		if (!arg.startsWith('-') || /^-\d/.test(arg)) continue;
		const name = arg.replace(/^--?/, '').split('=')[0]!;
		if (!known.has(name)) {
			const near = nearMatches(name, [...known].filter((flag) => flag.length > 1));
			throw new UserError(`Unknown option '${arg}'.${near.length > 0 ? ` Did you mean: ${near.map((flag) => `--${flag}`).join(', ')}?` : ''} See --help.`);
		}
	}
}

/**
 * A flag that takes a value but was given none (`--parallel` last, or right before another flag):
 * meow leaves it unset, so the command ran with its default as if the flag had not been typed.
 */
function checkFlagValues(argv: readonly string[], specs: Record<string, FlagSpec>): void {
	const byName = new Map<string, FlagSpec>();
	for (const [name, spec] of Object.entries(specs)) {
		byName.set(kebab(name), spec);
		if (spec.shortFlag) byName.set(spec.shortFlag, spec);
	}
	for (let i = 0; i < argv.length; i++) {
		const arg = argv[i]!;
		if (arg === '--') break;
		if (!arg.startsWith('-') || /^-\d/.test(arg) || arg.includes('=')) continue;
		const spec = byName.get(arg.replace(/^--?/, ''));
		if (!spec || spec.type === 'boolean') continue;
		const next = argv[i + 1];
		if (next === undefined || (next.startsWith('-') && !/^-\d/.test(next))) throw new UserError(`${arg} needs a value (${spec.type === 'number' ? 'a number' : 'a value'}): ${spec.description}.`);
		i++;
	}
}

export type MainOptions = {
	/** Opens the TUI; injected so tests can assert it is (or is not) started. */
	openTui?: (io: IO, request: TuiRequest) => Promise<number>;
};

/**
 * The whole CLI as a function of argv and streams: returns the exit code and never calls
 * process.exit, so it runs in-process under test.
 */
export async function main(argv: readonly string[], io: IO, options: MainOptions = {}): Promise<number> {
	let universeCache: Universe | undefined;
	// Loaded with the command that needs it (the universe validates every data file).
	const {loadUniverse} = argv[0] === undefined || argv[0].startsWith('-') || argv[0] === 'help' ? {loadUniverse: null} : await import('./universe/load.js');
	const universe = () =>
		(universeCache ??= loadUniverse!({
			kbDir: io.env['CULTURECONVERSE_KB_DIR'] ? path.resolve(io.cwd, io.env['CULTURECONVERSE_KB_DIR']) : undefined,
			userTemplatesDir: path.join(workspaceDir(io.env, io.cwd), 'templates'),
		}));
	try {
		const first = argv[0];
		if (first === undefined) {
			if (io.stdout.isTTY && io.stdin.isTTY && options.openTui) return await options.openTui(io, {kind: 'home', flags: {}});
			io.stdout.write(helpText());
			return ExitCode.ok;
		}
		// Options with no command (`npx cultureconverse --sessions-dir X`) are the TUI's: it opens on them.
		if (first.startsWith('-') && !['--help', '-h', '--version', '-v'].includes(first)) return await main(['tui', ...argv], io, options);
		if (first === '--help' || first === '-h' || first === 'help') {
			const named = first === 'help' ? argv[1] : undefined;
			const entry = named ? COMMANDS.find((candidate) => candidate.name === named) : undefined;
			if (named && !entry) {
				const near = nearMatches(named, COMMANDS.map((candidate) => candidate.name));
				throw new UserError(`Unknown command '${named}'.${near.length > 0 ? ` Did you mean: ${near.join(', ')}?` : ''} Run \`npx cultureconverse --help\` for the list.`);
			}
			io.stdout.write(entry ? commandHelp(await entry.load()) : helpText());
			return ExitCode.ok;
		}
		if (first === '--version' || first === '-v') {
			io.stdout.write(`${await version()}\n`);
			return ExitCode.ok;
		}
		const entry = COMMANDS.find((candidate) => candidate.name === first);
		if (!entry) {
			const near = nearMatches(first, COMMANDS.map((candidate) => candidate.name));
			throw new UserError(`Unknown command '${first}'.${near.length > 0 ? ` Did you mean: ${near.join(', ')}?` : ''} Run \`npx cultureconverse --help\` for the list.`);
		}
		const command = await entry.load();
		const rest = argv.slice(1);
		const specs = {...command.flags, ...globalFlags};
		checkUnknownFlags(rest, specs);
		checkFlagValues(rest, specs);
		const {default: meow} = await import('meow');
		const cli = meow({
			importMeta: import.meta,
			argv: [...rest],
			autoHelp: false,
			autoVersion: false,
			allowUnknownFlags: true,
			description: false,
			flags: Object.fromEntries(Object.entries(specs).map(([name, spec]) => [name, meowFlag(spec)])) as never,
		});
		const help = commandHelp(command);
		if (cli.flags['help']) {
			io.stdout.write(help);
			return ExitCode.ok;
		}
		const openTui = options.openTui;
		const tui = openTui && io.stdout.isTTY && io.stdin.isTTY ? (request: TuiRequest) => openTui(io, request) : undefined;
		return await command.run({args: cli.input, flags: cli.flags as Flags, io, universe, help, tui});
	} catch (error) {
		// Whatever a server said may hold a key it echoed, and an argument, a file's line or a server's
		// body may hold terminal control sequences: every message is masked and cleaned on the way out.
		const mask = (text: string) => forTerminal(maskSecrets(text, knownKeys(io.env)));
		if (error instanceof UserError) {
			io.stderr.write(`cultureconverse: ${mask(error.message)}\n`);
			return error.exitCode;
		}
		if (error instanceof ModelCallError) {
			// A model failure outside an episode (a stage command, template generation): the set-up's
			// fault (exit 2) or the model's (exit 3), never an internal error.
			io.stderr.write(`cultureconverse: ${mask(error.message)}\n`);
			return SETUP_FAILURES.has(error.kind) ? ExitCode.badInput : ExitCode.episodeError;
		}
		io.stderr.write(`cultureconverse: internal error: ${mask(errorMessage(error))}\n`);
		if (io.env['CULTURECONVERSE_DEBUG'] && error instanceof Error && error.stack) io.stderr.write(`${error.stack}\n`);
		else io.stderr.write('  (set CULTURECONVERSE_DEBUG=1 for the stack trace)\n');
		return ExitCode.internal;
	}
}

/** meow rejects keys whose value is undefined, so only set what the spec sets. */
function meowFlag(spec: FlagSpec): Record<string, unknown> {
	const flag: Record<string, unknown> = {type: spec.type};
	if (spec.shortFlag !== undefined) flag['shortFlag'] = spec.shortFlag;
	if (spec.isMultiple !== undefined) flag['isMultiple'] = spec.isMultiple;
	if (spec.default !== undefined) flag['default'] = spec.default;
	return flag;
}

async function version(): Promise<string> {
	const {readFileSync} = await import('node:fs');
	const {packageRoot} = await import('./util/paths.js');
	return (JSON.parse(readFileSync(path.join(packageRoot(), 'package.json'), 'utf8')) as {version: string}).version;
}

/** Values of the environment variables that conventionally hold API keys (masked in every message). */
function knownKeys(env: NodeJS.ProcessEnv): string[] {
	return Object.entries(env)
		.filter(([name, value]) => /(_API_KEY|_KEY|_TOKEN)$/.test(name) && typeof value === 'string' && value.length >= 8)
		.map(([, value]) => value!);
}
