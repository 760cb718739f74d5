import {closeSync, constants, fstatSync, lstatSync, openSync, readSync, statSync, type Stats} from 'node:fs';
import {UserError} from './errors.js';

/*
 * Every file the tool reads that a user names or a folder holds (seed files, ratings, journals,
 * sessions) is read through here: its type is checked before it is opened, so a folder, a device
 * such as /dev/zero or a FIFO without a writer gives a clear error instead of an internal error, an
 * abort on a huge allocation or a hang; it is opened non-blocking (a FIFO swapped in between the check
 * and the open cannot block either) and checked again on the descriptor; and it is read up to a
 * limit, whose message names the limit.
 */

export type BoundedReadOptions = {
	/** What the file is, for messages: "seed file", "session journal". */
	readonly what: string;
	/** Largest size read; a larger file is refused without reading it. */
	readonly maxBytes: number;
	/** How to get past the limit, added to its message ("split the file"). */
	readonly limitHint?: string;
	/** Read through a symbolic link (a folder listing does); journals and locks are never read through one. */
	readonly followLinks?: boolean;
};

const MB = 1024 * 1024;

/** "12.3 MB", "640 KB", "90 bytes". */
export function formatBytes(bytes: number): string {
	if (bytes >= MB) return `${(bytes / MB).toFixed(bytes >= 100 * MB ? 0 : 1)} MB`;
	if (bytes >= 1024) return `${Math.round(bytes / 1024)} KB`;
	return `${bytes} bytes`;
}

/** What a file that is not a regular file is, in words. */
function kindOf(stat: Stats): string | null {
	if (stat.isFile()) return null;
	if (stat.isDirectory()) return 'a folder';
	if (stat.isFIFO()) return 'a named pipe (FIFO)';
	if (stat.isCharacterDevice() || stat.isBlockDevice()) return 'a device';
	if (stat.isSocket()) return 'a socket';
	return 'not a regular file';
}

function refuseKind(file: string, stat: Stats, options: BoundedReadOptions): void {
	if (stat.isSymbolicLink()) throw openError(file, Object.assign(new Error('a link'), {code: 'ELOOP'}), options);
	const kind = kindOf(stat);
	if (kind) throw new UserError(`${file} is ${kind}, not a ${options.what}: give the path of a regular file.`);
	if (stat.size > options.maxBytes) throw new UserError(`${file} is ${formatBytes(stat.size)}; a ${options.what} may be at most ${formatBytes(options.maxBytes)}, so it was not read${options.limitHint ? ` (${options.limitHint})` : ''}.`);
}

function openError(file: string, error: unknown, options: BoundedReadOptions): Error {
	const code = (error as NodeJS.ErrnoException).code;
	if (code === 'ENOENT') return new UserError(`${file}: no such file (the ${options.what} is missing).`);
	if (code === 'ELOOP') return new UserError(`${file} is a symbolic link; a ${options.what} is never read or written through a link (it could lead outside its folder): replace the link with the file itself.`);
	if (code === 'EACCES' || code === 'EPERM') return new UserError(`${file}: permission denied (this user may not read the ${options.what}).`);
	if (code === 'EISDIR') return new UserError(`${file} is a folder, not a ${options.what}: give the path of a regular file.`);
	if (code === 'EIO') return new UserError(`${file}: an input/output error reading the ${options.what} (a failing disk or a lost network mount).`);
	return error as Error;
}

/** The file's bytes, after the checks above; every failure is a UserError naming the file. */
export function readBounded(file: string, options: BoundedReadOptions): Buffer {
	let before: Stats;
	try {
		before = options.followLinks ? statSync(file) : lstatSync(file);
	} catch (error) {
		throw openError(file, error, options);
	}
	refuseKind(file, before, options);
	let fd: number;
	try {
		fd = openSync(file, constants.O_RDONLY | constants.O_NONBLOCK | (options.followLinks ? 0 : constants.O_NOFOLLOW));
	} catch (error) {
		throw openError(file, error, options);
	}
	try {
		const stat = fstatSync(fd);
		refuseKind(file, stat, options);
		const buffer = Buffer.allocUnsafe(stat.size);
		let done = 0;
		while (done < stat.size) {
			const n = readSync(fd, buffer, done, stat.size - done, done);
			if (n === 0) break; // it shrank meanwhile: what is there
			done += n;
		}
		return done === stat.size ? buffer : buffer.subarray(0, done);
	} catch (error) {
		throw openError(file, error, options);
	} finally {
		closeSync(fd);
	}
}

/** The text of the file (UTF-8), after the checks above. */
export function readBoundedText(file: string, options: BoundedReadOptions): string {
	return readBounded(file, options).toString('utf8');
}
