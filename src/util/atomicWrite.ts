import {closeSync, constants, fsyncSync, lstatSync, openSync, readdirSync, renameSync, rmSync, writeSync} from 'node:fs';
import {hostname} from 'node:os';
import path from 'node:path';
import {fnv1a} from './hash.js';
import {processAlive} from './processAlive.js';
import {storing} from './storageError.js';
import {ensureDir} from './ensureDir.js';

/*
 * Scratch files beside what they stand in for (a snapshot being written, a lock being created) are
 * named `.<name>.<tag>-<host>-<pid>-<random>.tmp`: hidden (folder listings skip dot files), and
 * saying who made them, so the next run in the folder can remove the ones a killed process left
 * (kill -9 between the write and the rename leaves one) without touching a live writer's.
 */

/** A short, stable tag of this host: temp files of another machine sharing the folder are never taken for ours. */
const HOST = fnv1a(hostname()).toString(16).padStart(8, '0').slice(0, 8);

/** A hidden scratch name beside `file` that only this call uses. */
export function scratchFile(file: string, tag: string): string {
	return path.join(path.dirname(file), `.${path.basename(file)}.${tag}-${HOST}-${process.pid}-${Math.random().toString(36).slice(2, 10)}.tmp`);
}

/**
 * Writes `text` to `file` through a hidden temp file in the same folder and a rename, so a reader
 * (or a crash) never sees half a file. Every byte count is checked (a short write is retried, then
 * an error); a storage failure (disk full, read-only, permissions) is a StorageError naming the
 * file, and the temp file is removed. `sync` flushes the temp file before the rename (for files whose
 * loss would lose work, not for derived data).
 */
export function writeFileAtomic(file: string, text: string | Uint8Array, options: {sync?: boolean} = {}): void {
	ensureDir(path.dirname(file));
	const temp = scratchFile(file, 'write');
	try {
		storing(file, 'write', () => {
			writeNewFile(temp, typeof text === 'string' ? Buffer.from(text) : text, options);
			renameSync(temp, file);
		});
	} catch (error) {
		rmSync(temp, {force: true});
		throw error;
	}
}

/**
 * Creates `file` (never an existing one, never through a link) holding exactly `bytes`: every byte
 * count checked, flushed first when `sync`. Throws EEXIST when the name is taken.
 */
export function writeNewFile(file: string, bytes: Uint8Array, options: {sync?: boolean} = {}): void {
	const fd = openSync(file, constants.O_WRONLY | constants.O_CREAT | constants.O_EXCL | constants.O_NOFOLLOW, 0o644);
	try {
		writeAll(fd, bytes);
		if (options.sync) fsyncSync(fd);
	} finally {
		closeSync(fd);
	}
}

/**
 * Writes every byte of `bytes` at the descriptor's position. `writeSync` may write fewer bytes than
 * asked (a disk that fills up mid-write does so before it fails with ENOSPC): the rest is written
 * again until it is all out, and the error of a write that cannot go on is thrown. Returns the count.
 */
export function writeAll(fd: number, bytes: Uint8Array): number {
	let done = 0;
	let stalled = 0;
	while (done < bytes.byteLength) {
		const n = writeSync(fd, bytes, done, bytes.byteLength - done);
		if (n <= 0) {
			// A write that makes no progress and no error: never loop for ever on it.
			if (++stalled >= 3) throw Object.assign(new Error(`a write made no progress (${done} of ${bytes.byteLength} bytes written)`), {code: 'EIO'});
			continue;
		}
		stalled = 0;
		done += n;
	}
	return done;
}

/** Temp names of this build and of earlier ones (atomic writes, lowdb's, lock scratch files). */
const CURRENT = /^\..+\.[a-z]+-([0-9a-f]{8})-(\d+)-[a-z0-9]+\.tmp$/;
const EARLIER = [/^\..+\.(\d+)\.[a-z0-9]{1,8}\.tmp$/, /^\..+\.lock\.(?:new|stale)\.(\d+)\.[a-z0-9]{1,8}$/];
/** lowdb (steno) names its temp file `.<name>.tmp`, with nothing to say who wrote it. */
const STENO = /^\..+\.json\.tmp$/;
/** A temp file that says nothing of its writer (or names another host) is left for this long. */
const ANONYMOUS_AGE_MS = 60 * 60 * 1000;

/**
 * Removes temp files in `dir` that killed processes left: those of a process of this host that is
 * no longer running (or is a zombie), and anonymous or other hosts' ones older than an hour.
 * Returns the names removed. Never fails: a folder that cannot be read or cleaned is left as it is.
 */
export function removeStaleTemps(dir: string, now = Date.now()): string[] {
	let names: string[];
	try {
		names = readdirSync(dir);
	} catch {
		return [];
	}
	const removed: string[] = [];
	for (const name of names) {
		if (!name.startsWith('.')) continue;
		let stale = false;
		const current = CURRENT.exec(name);
		const earlier = current ? null : EARLIER.map((pattern) => pattern.exec(name)).find(Boolean);
		const file = path.join(dir, name);
		const old = () => {
			try {
				return now - lstatSync(file).mtimeMs > ANONYMOUS_AGE_MS;
			} catch {
				return false;
			}
		};
		if (current) stale = current[1] === HOST ? !processAlive(Number(current[2])) : old();
		else if (earlier) stale = !processAlive(Number(earlier[1]));
		else if (STENO.test(name)) stale = old();
		if (!stale) continue;
		try {
			rmSync(file, {force: true});
			removed.push(name);
		} catch {
			// Not ours to remove (permissions) or gone already.
		}
	}
	return removed;
}
