import {linkSync, renameSync, rmSync} from 'node:fs';
import {hostname} from 'node:os';
import {scratchFile, writeNewFile} from '../util/atomicWrite.js';
import {readBoundedText} from '../util/boundedRead.js';
import {UserError} from '../util/errors.js';
import {processAlive} from '../util/processAlive.js';
import {asStorageError} from '../util/storageError.js';

/**
 * One writer per file: a batch name, a session, a CRISP items file. Two processes writing the same
 * file corrupted it in every trial (two `batch` runs of one name, two resumes of one session, two
 * builds of one items file). A lock is a small file created exclusively beside what it guards,
 * holding who took it; a lock left by a process that is gone (same host, pid not running) is taken
 * over, and said so. A lock this process holds already stays its own.
 */
export type LockInfo = {readonly pid: number; readonly host: string; readonly since: string; readonly what: string};

export type Lock = {readonly file: string; readonly tookOver: LockInfo | null; release(): void};

/** A holder that is not running on this host: no such pid, or a zombie that will never write again. */
function gone(info: LockInfo): boolean {
	return info.host === hostname() && !processAlive(info.pid);
}

/** Who holds a lock file; null when it is gone or unreadable. Never read through a link (a planted one is refused). */
function read(file: string): LockInfo | null {
	let text: string;
	try {
		text = readBoundedText(file, {what: 'lock file', maxBytes: 64 * 1024});
	} catch (error) {
		if (error instanceof UserError && /symbolic link/.test(error.message)) throw error;
		return null;
	}
	try {
		const info = JSON.parse(text) as Partial<LockInfo>;
		return typeof info.pid === 'number' && typeof info.host === 'string' ? (info as LockInfo) : null;
	} catch {
		return null;
	}
}

const scratchName = scratchFile;

/**
 * Creates `file` holding `info`, or returns false when it exists. The content goes to a scratch file
 * first and is hard-linked into place (link fails if the name exists): a lock is never seen empty.
 * `writeFileSync(file, ..., {flag: 'wx'})` created the file before writing it, so a second process
 * reading in between saw an empty lock, took it for a crashed writer's and took it over: two holders.
 */
function create(file: string, info: LockInfo): boolean {
	const scratch = scratchName(file, 'new');
	try {
		// Written and checked whole before it is linked into place; a disk that cannot take it is a StorageError.
		writeNewFile(scratch, Buffer.from(JSON.stringify(info)));
	} catch (error) {
		rmSync(scratch, {force: true});
		throw asStorageError(error, file, 'create the lock') ?? error;
	}
	try {
		linkSync(scratch, file);
		return true;
	} catch (error) {
		const code = (error as NodeJS.ErrnoException).code;
		if (code === 'EEXIST') return false;
		if (code !== 'EPERM' && code !== 'ENOTSUP' && code !== 'EOPNOTSUPP' && code !== 'ENOSYS') throw asStorageError(error, file, 'create the lock') ?? error;
		// A file system without hard links: exclusive creation, with the small window described above.
		try {
			writeNewFile(file, Buffer.from(JSON.stringify(info)));
			return true;
		} catch (fallback) {
			if ((fallback as NodeJS.ErrnoException).code === 'EEXIST') return false;
			throw asStorageError(fallback, file, 'create the lock') ?? fallback;
		}
	} finally {
		rmSync(scratch, {force: true});
	}
}

const same = (a: LockInfo | null, b: LockInfo | null) => a?.pid === b?.pid && a?.host === b?.host && a?.since === b?.since;

/**
 * Moves the stale lock `seen` out of the way. Two processes may find the same stale lock: each
 * renames the name away (atomic: only one gets the stale file) and checks that what it moved is the
 * lock it judged stale. If the other one was faster, what was moved is that process's new lock: it
 * is linked back into place, and this process looks again (and finds a live holder).
 */
function removeStale(file: string, seen: LockInfo | null): void {
	const moved = scratchName(file, 'stale');
	try {
		renameSync(file, moved);
	} catch (error) {
		if ((error as NodeJS.ErrnoException).code === 'ENOENT') return; // someone else moved it already
		throw asStorageError(error, file, 'take over the stale lock') ?? error;
	}
	try {
		if (!same(read(moved), seen)) {
			try {
				linkSync(moved, file);
			} catch {
				// A third process has taken the name meanwhile: the next look finds it.
			}
		}
	} finally {
		rmSync(moved, {force: true});
	}
}

/**
 * Takes the lock `file` for `what` (a phrase for messages: "batch pilot"), or throws a UserError
 * (exit 2) naming the holder. `onTakeOver` hears about a stale lock that was taken over.
 */
export function acquireLock(file: string, what: string, onTakeOver?: (previous: LockInfo) => void): Lock {
	const mine: LockInfo = {pid: process.pid, host: hostname(), since: new Date().toISOString(), what};
	let tookOver: LockInfo | null = null;
	for (let attempt = 0; attempt < 5; attempt++) {
		if (create(file, mine)) {
			if (tookOver) onTakeOver?.(tookOver);
			return handle(file, tookOver);
		}
		const holder = read(file);
		// This process holds it already (a session released without its lock file removed, or opened twice in
		// one process, which is sequential use): it stays ours.
		if (holder && holder.pid === process.pid && holder.host === mine.host) return handle(file, null);
		if (holder && !gone(holder)) {
			throw new UserError(`${what} is in use by process ${holder.pid} on ${holder.host} (since ${holder.since}); one writer at a time. Wait for it to finish, or stop it; if it is gone for good, delete ${file}.`);
		}
		// Stale (its process is gone) or unreadable (damaged; locks are never seen half written): take it over.
		removeStale(file, holder);
		tookOver = holder ?? {pid: 0, host: 'unknown', since: 'unknown', what};
	}
	throw new UserError(`Could not take the lock ${file} for ${what}: another process keeps taking it.`);
}

function handle(file: string, tookOver: LockInfo | null): Lock {
	let released = false;
	return {
		file,
		tookOver,
		release() {
			if (released) return;
			released = true;
			try {
				const holder = read(file);
				if (!holder || (holder.pid === process.pid && holder.host === hostname())) rmSync(file, {force: true});
			} catch {
				// Released last, after whatever failed: a lock that cannot be removed (a folder gone
				// read-only) must not hide that failure. It is stale once this process ends and is
				// taken over by the next run.
			}
		},
	};
}
