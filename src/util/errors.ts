import type {z} from 'zod';

/** Exit codes of the binary, documented in docs/reference.md (Exit codes). */
export const ExitCode = {
	ok: 0,
	internal: 1,
	badInput: 2,
	episodeError: 3,
	interrupted: 130,
	/** Stopped by SIGTERM (a scheduler or `kill`): saved and resumable, like Ctrl-C. */
	terminated: 143,
} as const;
export type ExitCode = (typeof ExitCode)[keyof typeof ExitCode];

/**
 * An error caused by the user's input or data files: printed as one readable message, never as a
 * stack trace. `exitCode` defaults to bad input.
 */
export class UserError extends Error {
	readonly exitCode: ExitCode;
	constructor(message: string, options: {exitCode?: ExitCode; cause?: unknown} = {}) {
		super(message, {cause: options.cause});
		this.name = 'UserError';
		this.exitCode = options.exitCode ?? ExitCode.badInput;
	}
}

/** A data file that does not match its schema or breaks a cross-reference rule. */
export class DataError extends UserError {
	constructor(readonly file: string, readonly problems: readonly string[]) {
		super(`${file}: ${problems.length === 1 ? problems[0] : `${problems.length} problems:\n  - ${problems.join('\n  - ')}`}`);
		this.name = 'DataError';
	}
}

/** Formats every zod issue as `path: message`, so one error names each field at fault. */
export function zodProblems(error: z.ZodError, prefix = ''): string[] {
	return error.issues.map((issue) => {
		const path = formatPath(issue.path);
		const where = [prefix, path].filter(Boolean).join('');
		return `${where || '(root)'}: ${issue.message}`;
	});
}

function formatPath(path: readonly PropertyKey[]): string {
	let out = '';
	for (const part of path) {
		if (typeof part === 'number') out += `[${part}]`;
		else out += out ? `.${String(part)}` : String(part);
	}
	return out;
}

export function errorMessage(error: unknown): string {
	if (error instanceof Error) return error.message;
	return String(error);
}
