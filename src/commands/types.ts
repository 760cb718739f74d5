import type {Universe} from '../universe/load.js';
import {jsonText} from '../util/outsideText.js';
import type {Streams} from '../util/streams.js';

/** Streams and environment a command runs against (the core's `Streams`, with stdin always there); injected so commands run in-process in tests. */
export type IO = Streams & {
	readonly stdin: NodeJS.ReadableStream & {isTTY?: boolean};
};

export type FlagSpec = {
	readonly type: 'string' | 'boolean' | 'number';
	readonly shortFlag?: string;
	readonly isMultiple?: boolean;
	readonly default?: string | boolean | number;
	/** One line for the help screen. */
	readonly description: string;
};

export type Flags = Record<string, string | boolean | number | string[] | undefined>;

/** What the TUI should open with. */
export type TuiRequest =
	| {readonly kind: 'home'; readonly flags: Flags}
	| {readonly kind: 'episode'; readonly flags: Flags}
	| {readonly kind: 'replay'; readonly session: string; readonly flags: Flags}
	/** A saved unfinished or errored session, live (`retry`: clear its error and run the failed step again). */
	| {readonly kind: 'resume'; readonly session: string; readonly retry: boolean; readonly flags: Flags};

export type CommandContext = {
	readonly args: readonly string[];
	readonly flags: Flags;
	readonly io: IO;
	/** Loads the universe once per process (shipped kb/ plus the workspace's templates). */
	readonly universe: () => Universe;
	/** Help text of this command, for commands that print it on bad usage. */
	readonly help: string;
	/** Opens the TUI when stdin and stdout are terminals; undefined otherwise. */
	readonly tui?: (request: TuiRequest) => Promise<number>;
};

export type Command = {
	readonly name: string;
	readonly summary: string;
	/** Usage lines shown by `cultureconverse <name> --help`, after the name. */
	readonly usage: string;
	readonly flags: Readonly<Record<string, FlagSpec>>;
	readonly run: (context: CommandContext) => Promise<number>;
};

export function write(io: IO, text: string): void {
	io.stdout.write(text.endsWith('\n') ? text : `${text}\n`);
}

export function writeJson(io: IO, value: unknown): void {
	io.stdout.write(`${jsonText(value, 2)}\n`);
}
