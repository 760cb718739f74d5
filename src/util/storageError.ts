import path from 'node:path';
import {formatBytes} from './boundedRead.js';
import {ExitCode, UserError} from './errors.js';

/*
 * A disk that is full, read-only, not ours or failing is not a bug: it is a result the user acts on.
 * Every write of the store (journals, snapshots, locks, temp files) turns such an errno into a
 * StorageError naming the file, its folder, the errno and what to do; a batch or an episode stops
 * on it cleanly (nothing more started, what is saved stays saved) and the command exits 2.
 */

/** The errnos that mean "this folder cannot be written now", with what each means in words. */
const STORAGE_CODES: Readonly<Record<string, string>> = {
	ENOSPC: 'no space left on the device',
	EDQUOT: 'the disk quota is used up',
	EFBIG: 'the file is larger than the file system allows',
	EROFS: 'the file system is read-only',
	EACCES: 'permission denied',
	EPERM: 'operation not permitted',
	EIO: 'an input/output error (a failing disk or a lost network mount)',
	ENOTDIR: 'a part of the path is not a folder',
	// On a write: the folder vanished meanwhile, or takes no new files (a system folder such as /proc).
	ENOENT: 'the folder is gone, or takes no new files',
	EISDIR: 'the path is a folder',
	ELOOP: 'the path is a symbolic link (journals and locks are never opened through links)',
	EMFILE: 'too many open files in this process',
	ENFILE: 'too many open files on this system',
};

/** What to do about each kind of failure. */
function advice(code: string, folder: string): string {
	switch (code) {
		case 'ENOSPC':
		case 'EDQUOT':
		case 'EFBIG':
			return `free some space on the disk that holds ${folder} (or give another folder, e.g. --sessions-dir), then run the same command again`;
		case 'EROFS':
			return `${folder} is on a read-only file system: give a writable folder (e.g. --sessions-dir) or remount it read-write, then run the same command again`;
		case 'EACCES':
		case 'EPERM':
			return `this user may not write in ${folder}: fix its permissions or give another folder (e.g. --sessions-dir), then run the same command again`;
		case 'ENOENT':
			return `${folder} was removed meanwhile or is a system folder that takes no files (such as /proc): give a folder of your own (e.g. --sessions-dir), then run the same command again`;
		case 'ELOOP':
			return `replace the link with the file itself (the tool never writes through a link, which may lead outside ${folder})`;
		case 'EMFILE':
		case 'ENFILE':
			return 'lower --parallel, or raise the open-file limit (ulimit -n), then run the same command again';
		default:
			return `check the disk that holds ${folder}, then run the same command again`;
	}
}

export class StorageError extends UserError {
	constructor(
		/** The errno (ENOSPC, EROFS, ...). */
		readonly code: string,
		/** The file that could not be written. */
		readonly file: string,
		/** The folder it is in: what the message names and the user fixes. */
		readonly folder: string,
		/** What was being done, as a phrase: "append to", "write", "create the lock". */
		readonly action: string,
		cause?: unknown,
	) {
		super(`cannot ${action} ${file}: ${code} (${STORAGE_CODES[code] ?? 'a storage error'}). Everything saved before it is kept; ${advice(code, folder)}.`, {exitCode: ExitCode.badInput, cause});
		this.name = 'StorageError';
	}
}

/** The errno of a file-system error, when it is one of the storage failures above. */
export function storageCode(error: unknown): string | null {
	const code = (error as NodeJS.ErrnoException | null)?.code;
	return typeof code === 'string' && code in STORAGE_CODES ? code : null;
}

/** `error` as a StorageError about `file` when it is a storage failure (already one: as it is), else null. */
export function asStorageError(error: unknown, file: string, action: string): StorageError | null {
	if (error instanceof StorageError) return error;
	const code = storageCode(error);
	return code ? new StorageError(code, file, path.dirname(path.resolve(file)), action, error) : null;
}

/** Runs `work`; a storage failure becomes a StorageError about `file`, anything else is thrown as it is. */
export function storing<T>(file: string, action: string, work: () => T): T {
	try {
		return work();
	} catch (error) {
		throw asStorageError(error, file, action) ?? error;
	}
}

/** The StorageError anywhere in an error's cause chain (an engine failure wrapping a failed save). */
export function findStorageError(error: unknown): StorageError | null {
	for (let current: unknown = error, depth = 0; current && depth < 6; depth++) {
		if (current instanceof StorageError) return current;
		current = (current as {cause?: unknown}).cause;
	}
	return null;
}

/** A save that would take a session past its size limit: the session stays as last saved, below it. */
export class SessionTooLarge extends UserError {
	constructor(
		readonly sessionId: string,
		readonly bytes: number,
		readonly limit: number,
	) {
		super(`session ${sessionId} would grow to ${formatBytes(bytes)} on disk, past its limit of ${formatBytes(limit)}; it stays as last saved. A reply that large is cut by the reply-size limits (maxReplyKB), so this is a runaway episode: look at its calls (replay ${sessionId} --print).`);
		this.name = 'SessionTooLarge';
	}
}

