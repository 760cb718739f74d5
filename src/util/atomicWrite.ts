import {mkdirSync, renameSync, rmSync, writeFileSync} from 'node:fs';
import path from 'node:path';

/**
 * Writes `text` to `file` through a hidden temp file in the same folder and a rename, so a reader
 * (or a crash) never sees half a file. The temp name starts with a dot, which folder listings skip.
 */
export function writeFileAtomic(file: string, text: string): void {
	mkdirSync(path.dirname(file), {recursive: true});
	const temp = path.join(path.dirname(file), `.${path.basename(file)}.${process.pid}.${Math.random().toString(36).slice(2, 8)}.tmp`);
	try {
		writeFileSync(temp, text);
		renameSync(temp, file);
	} catch (error) {
		rmSync(temp, {force: true});
		throw error;
	}
}
