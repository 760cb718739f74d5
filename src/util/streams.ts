/**
 * The streams and environment a piece of work runs against, injected so it runs in-process in tests.
 * Defined in the core so the runtime, batch threads and queue workers need nothing from the command
 * line; the face's `IO` (commands/types.ts) is this with stdin always present.
 */
export type Streams = {
	readonly stdout: NodeJS.WritableStream & {isTTY?: boolean; columns?: number};
	readonly stderr: NodeJS.WritableStream;
	readonly stdin?: NodeJS.ReadableStream & {isTTY?: boolean};
	readonly env: NodeJS.ProcessEnv;
	readonly cwd: string;
	/** Resolves when the user interrupts (Ctrl-C); long work stops cleanly. */
	readonly signal?: AbortSignal;
};
