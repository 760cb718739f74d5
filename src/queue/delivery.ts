import {existsSync, readdirSync, readFileSync, renameSync, rmSync} from 'node:fs';
import path from 'node:path';
import {gunzipSync, gzipSync} from 'node:zlib';
import {readSession} from '../store/sessionStore.js';
import {SAFE_ID} from '../store/sessionStore.js';
import {errorMessage} from '../util/errors.js';
import {ResultMessage} from './schemas.js';
import {ensureDir} from '../util/ensureDir.js';
import {scratchFile, writeFileAtomic, writeNewFile} from '../util/atomicWrite.js';
import {storing} from '../util/storageError.js';

/*
 * Finished sessions on their way from a worker to the coordinator's sessions folder: the snapshot
 * file's bytes, gzip-compressed (a session's prompts repeat; gzip at its default level takes a
 * 150 KB session to about a fifth, in a few milliseconds) and base64-encoded for the job's JSON.
 * The coordinator writes exactly those bytes, so its file is the file the worker's store wrote.
 */

export function packSession(file: string): string {
	return gzipSync(readFileSync(file)).toString('base64');
}

export function unpackSession(packed: string): Buffer {
	return gunzipSync(Buffer.from(packed, 'base64'));
}

/**
 * Puts a delivered session into a sessions folder: checked first (it must read as the session it
 * claims to be), then renamed into place, and any journal or snapshot of an earlier run there is
 * superseded. Throws with the reason when the bytes are not that session.
 */
export function placeSession(dir: string, sessionId: string, bytes: Buffer): string {
	if (!SAFE_ID.test(sessionId)) throw new Error(`'${sessionId.slice(0, 80)}' is not a safe session id`);
	ensureDir(dir);
	// A dot file: folder listings skip it while it is checked, and the next run removes it if this one is killed.
	const incoming = scratchFile(path.join(dir, `${sessionId}.json`), 'incoming');
	// Written whole or not at all; a full or read-only folder is a StorageError the coordinator stops on.
	storing(incoming, 'write', () => writeNewFile(incoming, bytes));
	try {
		const session = readSession(incoming);
		if (session.id !== sessionId) throw new Error(`it holds session ${session.id}, not ${sessionId}`);
	} catch (error) {
		rmSync(incoming, {force: true});
		throw new Error(`the session file sent for ${sessionId} is not readable: ${errorMessage(error).slice(0, 300)}`);
	}
	const file = path.join(dir, `${sessionId}.json`);
	renameSync(incoming, file);
	rmSync(path.join(dir, `${sessionId}.journal.jsonl`), {force: true});
	return file;
}

/**
 * A worker's finished sessions that have not reached Redis yet, one file per result in
 * `<sessions>/.outbox/`: written before the first try to deliver, removed once delivered, and sent
 * again on the worker's next start when it was killed in between, so Redis going away loses nothing.
 */
export class Outbox {
	constructor(readonly dir: string) {}

	private fileFor(message: Pick<ResultMessage, 'batch' | 'sessionId'>): string {
		return path.join(this.dir, `${message.batch}--${message.sessionId}.json`);
	}

	put(message: ResultMessage): void {
		writeFileAtomic(this.fileFor(message), JSON.stringify(message));
	}

	get(batch: string, sessionId: string): ResultMessage | null {
		const file = this.fileFor({batch, sessionId});
		return existsSync(file) ? this.parse(file) : null;
	}

	remove(message: Pick<ResultMessage, 'batch' | 'sessionId'>): void {
		rmSync(this.fileFor(message), {force: true});
	}

	/** Every waiting result (an unreadable entry is set aside, never deleted). */
	list(): ResultMessage[] {
		if (!existsSync(this.dir)) return [];
		return readdirSync(this.dir)
			.filter((name) => name.endsWith('.json'))
			.flatMap((name) => {
				const message = this.parse(path.join(this.dir, name));
				return message ? [message] : [];
			});
	}

	private parse(file: string): ResultMessage | null {
		try {
			return ResultMessage.parse(JSON.parse(readFileSync(file, 'utf8')));
		} catch {
			renameSync(file, `${file}.unreadable`);
			return null;
		}
	}
}
