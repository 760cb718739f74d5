import {mkdirSync, statSync} from 'node:fs';
import path from 'node:path';
import {StorageError, asStorageError} from './storageError.js';

/**
 * Makes `dir` and any missing parents, one level at a time. Node's `mkdirSync(dir, {recursive: true})`
 * loops for ever, at full CPU and deaf to SIGTERM, when the kernel answers ENOENT for a folder whose
 * parent exists (`--sessions-dir /proc`: procfs refuses new folders that way): here each level is made
 * once and such an answer is an error naming the folder.
 */
export function ensureDir(dir: string): void {
	const missing: string[] = [];
	for (let current = path.resolve(dir); ; current = path.dirname(current)) {
		let stat;
		try {
			stat = statSync(current);
		} catch (error) {
			if ((error as NodeJS.ErrnoException).code !== 'ENOENT') throw asStorageError(error, current, 'create the folder') ?? error;
			missing.push(current);
			if (path.dirname(current) === current) break;
			continue;
		}
		if (!stat.isDirectory()) throw new StorageError('ENOTDIR', current, path.dirname(current), 'create the folder');
		break;
	}
	for (const level of missing.reverse()) {
		try {
			mkdirSync(level);
		} catch (error) {
			const code = (error as NodeJS.ErrnoException).code;
			if (code === 'EEXIST') continue;
			// The parent exists, so ENOENT means this file system makes no folders here (procfs, sysfs).
			if (code === 'ENOENT') throw new StorageError('EROFS', level, path.dirname(level), 'create the folder', error);
			throw asStorageError(error, level, 'create the folder') ?? error;
		}
	}
}
