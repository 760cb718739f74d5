import {closeSync, existsSync, openSync, readSync, rmSync, statSync} from 'node:fs';
import {writeFileAtomic} from '../util/atomicWrite.js';
import type {Redis} from 'ioredis';
import {checkpointKeys} from './keys.js';

/*
 * A running episode's steps, streamed back through Redis as it runs, so that when its worker dies
 * the next worker resumes it from the last step reported instead of starting over. The stream is the
 * session's own journal (store/sessionStore.ts): each save appends a line to the local journal, and
 * the same line goes to a Redis list. Folding the list gives the session exactly as the local
 * journal does (a resumed session starts its journal with a whole-session line, which the fold
 * takes as a new start).
 *
 * Who may append is fenced by an epoch: a worker that takes the item increments it, and an append
 * carrying an older epoch is refused. A worker that was only cut off (not dead) and comes back after
 * its item moved on learns from the refusal that the item is someone else's now, and stops.
 */

const APPEND = `
if redis.call('GET', KEYS[1]) ~= ARGV[1] then return 0 end
redis.call('RPUSH', KEYS[2], unpack(ARGV, 2))
return 1
`;

type Scripts = {ccAppend(epochKey: string, logKey: string, epoch: string, ...lines: string[]): Promise<number>};

function scripts(redis: Redis): Redis & Scripts {
	if (!(redis as Partial<Scripts>).ccAppend) redis.defineCommand('ccAppend', {numberOfKeys: 2, lua: APPEND});
	return redis as Redis & Scripts;
}

/** Takes the item: returns the epoch this worker appends under. */
export async function claimCheckpoint(redis: Redis, sessionId: string): Promise<string> {
	return String(await redis.incr(checkpointKeys(sessionId).epoch));
}

/** The journal lines streamed so far (empty when the item never reported a step). */
export async function readCheckpoint(redis: Redis, sessionId: string): Promise<string[]> {
	return redis.lrange(checkpointKeys(sessionId).log, 0, -1);
}

/** Appends lines if this worker still holds the item; false when another worker took it since. */
export async function appendCheckpoint(redis: Redis, sessionId: string, epoch: string, lines: readonly string[]): Promise<boolean> {
	if (lines.length === 0) return true;
	const keys = checkpointKeys(sessionId);
	return Number(await scripts(redis).ccAppend(keys.epoch, keys.log, epoch, ...lines)) === 1;
}

/**
 * Starts an item's stream from a session the coordinator holds (an errored episode to retry, one
 * begun by a local batch), unless workers have already streamed steps of their own.
 */
export async function seedCheckpoint(redis: Redis, sessionId: string, startLine: string, options: {replace: boolean}): Promise<boolean> {
	const keys = checkpointKeys(sessionId);
	if (!options.replace && (await redis.llen(keys.log)) > 0) return false;
	await redis.multi().del(keys.log, keys.done).rpush(keys.log, startLine).exec();
	return true;
}

/** Marks the item delivered: a worker that gets its job again (a completion lost with a lock) finishes it without running it. */
export async function markDelivered(redis: Redis, sessionId: string, worker: string): Promise<void> {
	await redis.set(checkpointKeys(sessionId).done, worker);
}

export async function isDelivered(redis: Redis, sessionId: string): Promise<boolean> {
	return (await redis.exists(checkpointKeys(sessionId).done)) === 1;
}

/** After the coordinator saved the session: the stream goes; the epoch and the delivered mark stay a day, for late duplicates. */
export async function retireCheckpoint(redis: Redis, sessionId: string): Promise<void> {
	const keys = checkpointKeys(sessionId);
	await redis.multi().del(keys.log).expire(keys.epoch, 86_400).expire(keys.done, 86_400).exec();
}

/**
 * Writes a streamed journal where the worker's store will resume it (and sets aside a stale local
 * snapshot of the same session, which would otherwise be read instead).
 */
export function restoreJournal(journalFile: string, snapshotFile: string, lines: readonly string[]): void {
	if (lines.length === 0) return;
	// Whole or not at all (a journal is never met cut before its first line), and never through a link.
	writeFileAtomic(journalFile, `${lines.join('\n')}\n`);
	if (existsSync(snapshotFile)) rmSync(snapshotFile);
}

/**
 * The lines a session's journal gained since the last read. The store rewrites the journal whole on
 * the first save of each run of an episode, and this is first read after that save, so reading from
 * the start once and then on from where it stopped sees every line exactly once.
 */
export class JournalTail {
	private offset = 0;
	private partial = '';
	private ino = -1;

	constructor(private readonly file: string) {}

	read(): string[] {
		if (!existsSync(this.file)) return [];
		const {size, ino} = statSync(this.file);
		if (ino !== this.ino) {
			// A new journal (the store writes each run's first line by a rename): from its start.
			this.ino = ino;
			this.offset = 0;
			this.partial = '';
		} else if (size < this.offset) {
			// The same journal cut back: an append that failed part-way (a full disk) was undone. The
			// fragment read meanwhile is dropped; the lines before it were streamed already.
			this.offset = size;
			this.partial = '';
			return [];
		}
		if (size === this.offset) return [];
		const buffer = Buffer.alloc(size - this.offset);
		const fd = openSync(this.file, 'r');
		try {
			readSync(fd, buffer, 0, buffer.length, this.offset);
		} finally {
			closeSync(fd);
		}
		this.offset = size;
		const text = this.partial + buffer.toString('utf8');
		const lines = text.split('\n');
		this.partial = lines.pop() ?? '';
		return lines.filter((line) => line.trim() !== '');
	}
}
