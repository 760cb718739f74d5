import {readFileSync, rmSync, writeFileSync} from 'node:fs';
import {hostname} from 'node:os';
import {UserError} from '../util/errors.js';

/**
 * One writer per file: a batch name, a session, a CRISP items file. Two processes writing the same
 * file corrupted it in every trial (two `batch` runs of one name, two resumes of one session, two
 * builds of one items file). A lock is a small file created exclusively beside what it guards,
 * holding who took it; a lock left by a process that is gone (same host, pid not running) is taken
 * over, and said so. A lock this process holds already stays its own.
 */
export type LockInfo = {readonly pid: number; readonly host: string; readonly since: string; readonly what: string};

export type Lock = {readonly file: string; readonly tookOver: LockInfo | null; release(): void};

/** A process that is not running on this host (signal 0 checks without touching it). */
function gone(info: LockInfo): boolean {
	if (info.host !== hostname()) return false;
	try {
		process.kill(info.pid, 0);
		return false;
	} catch (error) {
		return (error as NodeJS.ErrnoException).code === 'ESRCH';
	}
}

function read(file: string): LockInfo | null {
	try {
		const info = JSON.parse(readFileSync(file, 'utf8')) as Partial<LockInfo>;
		return typeof info.pid === 'number' && typeof info.host === 'string' ? (info as LockInfo) : null;
	} catch {
		return null;
	}
}

/**
 * Takes the lock `file` for `what` (a phrase for messages: "batch pilot"), or throws a UserError
 * (exit 2) naming the holder. `onTakeOver` hears about a stale lock that was taken over.
 */
export function acquireLock(file: string, what: string, onTakeOver?: (previous: LockInfo) => void): Lock {
	const mine: LockInfo = {pid: process.pid, host: hostname(), since: new Date().toISOString(), what};
	let tookOver: LockInfo | null = null;
	for (let attempt = 0; attempt < 3; attempt++) {
		try {
			writeFileSync(file, JSON.stringify(mine), {flag: 'wx'});
			return handle(file, tookOver);
		} catch (error) {
			if ((error as NodeJS.ErrnoException).code !== 'EEXIST') throw error;
		}
		const holder = read(file);
		// This process holds it already (a session released without its lock file removed, or opened twice in
		// one process, which is sequential use): it stays ours.
		if (holder && holder.pid === process.pid && holder.host === mine.host) return handle(file, null);
		if (holder && !gone(holder)) {
			throw new UserError(`${what} is in use by process ${holder.pid} on ${holder.host} (since ${holder.since}); one writer at a time. Wait for it to finish, or stop it; if it is gone for good, delete ${file}.`);
		}
		// Stale (its process is gone) or unreadable (a crash mid-write): take it over.
		tookOver = holder ?? {pid: 0, host: 'unknown', since: 'unknown', what};
		onTakeOver?.(tookOver);
		rmSync(file, {force: true});
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
			const holder = read(file);
			if (!holder || (holder.pid === process.pid && holder.host === hostname())) rmSync(file, {force: true});
		},
	};
}
