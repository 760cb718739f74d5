import {existsSync, readdirSync, rmSync} from 'node:fs';
import path from 'node:path';
import {isMainThread} from 'node:worker_threads';
import {z} from 'zod';
import {BatchItem, BatchManifest} from '../domain/batch.js';
import {removeStaleTemps, writeFileAtomic} from '../util/atomicWrite.js';
import {readBoundedText} from '../util/boundedRead.js';
import {UserError, zodProblems} from '../util/errors.js';
import {storing} from '../util/storageError.js';
import {unknownMessage} from '../util/suggest.js';
import {type JournalOptions, type JournalRead, JournalAppender, describeDamage, readJournal} from './journal.js';
import {type Lock, acquireLock} from './lock.js';
import {writeStats} from './sessionStore.js';
import {ensureDir} from '../util/ensureDir.js';

/** Largest manifest and journal read (a million items is about 200 MB of manifest). */
const MAX_MANIFEST_BYTES = 400 * 1024 * 1024;
const JOURNAL: JournalOptions = {what: 'batch journal', afterTorn: 'skip', maxBytes: MAX_MANIFEST_BYTES};

/** One journal line: item `i` changed (only the fields that did). */
const ItemEvent = z.strictObject({i: z.number().int().nonnegative(), set: BatchItem.partial(), at: z.string()});
type ItemEvent = z.infer<typeof ItemEvent>;

/**
 * Batch manifests in `<sessions>/batches/`: `<name>.json` (the plan, and the compact snapshot a run
 * leaves when it ends) and, while a run is going, `<name>.journal.jsonl` with one line per item
 * that starts or ends. A manifest used to be rewritten whole (and deep-copied) whenever any item
 * started or ended: 1 + 2N rewrites of an O(N) file, 29 GB written for 5,000 episodes. Now a run
 * writes each item's changes once, and the snapshot once. Reading folds the journal into the plan;
 * a line cut off by a crash is dropped. One runner per batch name (`<name>.lock`).
 */
export class BatchStore {
	constructor(readonly sessionsDir: string) {}

	get dir(): string {
		return path.join(this.sessionsDir, 'batches');
	}

	fileFor(name: string): string {
		return path.join(this.dir, `${name}.json`);
	}

	journalFor(name: string): string {
		return path.join(this.dir, `${name}.journal.jsonl`);
	}

	exists(name: string): boolean {
		return existsSync(this.fileFor(name));
	}

	names(): string[] {
		if (!existsSync(this.dir)) return [];
		return readdirSync(this.dir)
			.filter((file) => file.endsWith('.json') && !file.startsWith('.'))
			.map((file) => file.slice(0, -'.json'.length))
			.sort();
	}

	/**
	 * The manifest as it stands: the plan or last snapshot, with the running journal folded in. A
	 * journal damaged by a crash or a full disk is read as the journal module reads it (cut lines
	 * dropped, a record appended after a fragment kept); `onNotice` hears what was dropped. Reading
	 * never writes: the writer heals the file when it opens it.
	 */
	load(name: string, onNotice?: (message: string) => void): BatchManifest {
		return this.read(name, onNotice).manifest;
	}

	private read(name: string, onNotice?: (message: string) => void): {manifest: BatchManifest; journal: JournalRead} {
		const file = this.fileFor(name);
		if (!existsSync(file)) throw new UserError(unknownMessage('batch', name, this.names(), `Batches live in ${this.dir}.`));
		let raw: unknown;
		const text = readBoundedText(file, {what: 'batch manifest', maxBytes: MAX_MANIFEST_BYTES});
		try {
			raw = JSON.parse(text);
		} catch (error) {
			throw new UserError(`${file}: not a readable batch manifest (${(error as Error).message.slice(0, 200)}). The sessions it ran are intact in ${this.sessionsDir}.`);
		}
		const parsed = BatchManifest.safeParse(raw);
		if (!parsed.success) throw new UserError(`${file}: not a batch manifest of this version: ${zodProblems(parsed.error).slice(0, 5).join('; ')}`);
		const manifest = parsed.data;
		const journalFile = this.journalFor(name);
		const journal = readJournal(journalFile, JOURNAL);
		if (journal.damage.length > 0) onNotice?.(`${describeDamage(journalFile, journal)} (the next run of the batch rewrites it without them)`);
		for (const line of journal.lines) {
			// Whole JSON that breaks the schema was written so (an edit, another build): refused wherever it is.
			// Dropped as "cut off" when last, an edited `"sessionId": "../x"` used to vanish without a word.
			const parsedLine = ItemEvent.safeParse(line.value);
			if (!parsedLine.success) throw new UserError(`${journalFile}:${line.line}: not a batch journal line of this version: ${zodProblems(parsedLine.error).slice(0, 5).join('; ')}`);
			const event = parsedLine.data;
			const item = manifest.items[event.i];
			if (!item) throw new UserError(`${journalFile}:${line.line}: item ${event.i} is not in the plan (${manifest.items.length} items)`);
			manifest.items[event.i] = {...item, ...event.set};
			if (event.at > manifest.updatedAt) manifest.updatedAt = event.at;
		}
		return {manifest, journal};
	}

	/** Writes the plan of a new batch (once). */
	create(manifest: BatchManifest): void {
		writeFileAtomic(this.fileFor(manifest.name), JSON.stringify(manifest));
	}

	/**
	 * The one writer of a batch for a run: item changes go to the journal as they happen; `close`
	 * writes the compact snapshot, removes the journal and lets go of the lock. A second runner of the
	 * same name stops with exit 2, naming the first. The manifest is read again once the lock is held
	 * (another run may have finished items since the caller read it), a damaged journal is healed, and
	 * temp files that killed runs left in the folder are removed.
	 */
	open(manifest: BatchManifest, onNotice?: (message: string) => void): BatchWriter {
		// Worker threads share the coordinator's pid, so the lock file cannot tell them apart: a worker that
		// opened the journal would be a second writer nothing stops. Only the coordinator (main thread) may.
		if (!isMainThread) throw new Error(`batch ${manifest.name}: the batch journal is written by the coordinator only, never from a worker thread`);
		ensureDir(this.dir);
		const lock = acquireLock(path.join(this.dir, `${manifest.name}.lock`), `batch ${manifest.name}`, (previous) => onNotice?.(`took over batch ${manifest.name} from process ${previous.pid} on ${previous.host}, which is no longer running`));
		try {
			for (const dir of [this.dir, this.sessionsDir]) {
				const removed = removeStaleTemps(dir);
				if (removed.length > 0) onNotice?.(`removed ${removed.length} temp file(s) that an interrupted run left in ${dir}`);
			}
			if (!this.exists(manifest.name)) this.create(manifest);
			// What the plan says now, under the lock: not what the caller read before it.
			const current = this.read(manifest.name).manifest;
			const {appender} = JournalAppender.open(this.journalFor(manifest.name), {...JOURNAL, onHealed: (message) => onNotice?.(message)});
			return new BatchWriter(this, current, lock, appender);
		} catch (error) {
			lock.release();
			throw error;
		}
	}
}

export class BatchWriter {
	private closed = false;

	constructor(
		private readonly store: BatchStore,
		readonly manifest: BatchManifest,
		private readonly lock: Lock,
		private readonly journal: JournalAppender,
	) {}

	/**
	 * Applies an item's change to the manifest in memory and appends it to the journal. A journal that
	 * cannot be written (disk full, read-only) throws a StorageError; the change stays in memory, so
	 * the snapshot written on close still holds it if the disk lets it.
	 */
	update(index: number, patch: Partial<BatchItem>, at: string): BatchItem {
		const item = {...this.manifest.items[index]!, ...patch, updatedAt: at};
		this.manifest.items[index] = item;
		this.manifest.updatedAt = at;
		const text = `${JSON.stringify({i: index, set: {...patch, updatedAt: at}, at} satisfies ItemEvent)}\n`;
		writeStats.chars += text.length;
		this.journal.append(text);
		return item;
	}

	/**
	 * Writes the snapshot and removes the journal, then lets go of the lock, last. A snapshot that
	 * cannot be written leaves the journal in place (the manifest still reads whole from plan plus
	 * journal) and its StorageError is what is thrown, never an error of the lock's release.
	 */
	close(): void {
		if (this.closed) return;
		this.closed = true;
		try {
			this.journal.close();
			const text = JSON.stringify(this.manifest);
			writeStats.chars += text.length;
			writeFileAtomic(this.store.fileFor(this.manifest.name), text);
			storing(this.store.journalFor(this.manifest.name), 'remove', () => rmSync(this.store.journalFor(this.manifest.name), {force: true}));
		} finally {
			this.lock.release();
		}
	}
}
