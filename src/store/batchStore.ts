import {appendFileSync, existsSync, mkdirSync, readdirSync, readFileSync, rmSync, statSync} from 'node:fs';
import path from 'node:path';
import {isMainThread} from 'node:worker_threads';
import {z} from 'zod';
import {BatchItem, BatchManifest} from '../domain/batch.js';
import {writeFileAtomic} from '../util/atomicWrite.js';
import {UserError, zodProblems} from '../util/errors.js';
import {unknownMessage} from '../util/suggest.js';
import {type Lock, acquireLock} from './lock.js';
import {writeStats} from './sessionStore.js';

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

	/** The manifest as it stands: the plan or last snapshot, with the running journal folded in. */
	load(name: string): BatchManifest {
		const file = this.fileFor(name);
		if (!existsSync(file)) throw new UserError(unknownMessage('batch', name, this.names(), `Batches live in ${this.dir}.`));
		let raw: unknown;
		try {
			raw = JSON.parse(readFileSync(file, 'utf8'));
		} catch (error) {
			throw new UserError(`${file}: not a readable batch manifest (${(error as Error).message.slice(0, 200)}). The sessions it ran are intact in ${this.sessionsDir}.`);
		}
		const parsed = BatchManifest.safeParse(raw);
		if (!parsed.success) throw new UserError(`${file}: not a batch manifest of this version: ${zodProblems(parsed.error).slice(0, 5).join('; ')}`);
		const manifest = parsed.data;
		const journal = this.journalFor(name);
		if (existsSync(journal) && statSync(journal).size > 0) {
			const rows = readFileSync(journal, 'utf8').split('\n');
			rows.forEach((row, index) => {
				if (row.trim() === '') return;
				let raw: unknown;
				try {
					raw = JSON.parse(row);
				} catch {
					if (index >= rows.length - 2) return; // the last line, cut off mid-write
					throw new UserError(`${journal}:${index + 1}: not a readable batch journal line; the sessions are intact in ${this.sessionsDir}`);
				}
				// Whole JSON that breaks the schema was written so (an edit, another build): refused wherever it is.
				// Dropped as "cut off" when last, an edited `"sessionId": "../x"` used to vanish without a word.
				const parsed = ItemEvent.safeParse(raw);
				if (!parsed.success) throw new UserError(`${journal}:${index + 1}: not a batch journal line of this version: ${zodProblems(parsed.error).slice(0, 5).join('; ')}`);
				const event = parsed.data;
				const item = manifest.items[event.i];
				if (!item) throw new UserError(`${journal}:${index + 1}: item ${event.i} is not in the plan (${manifest.items.length} items)`);
				manifest.items[event.i] = {...item, ...event.set};
				if (event.at > manifest.updatedAt) manifest.updatedAt = event.at;
			});
		}
		return manifest;
	}

	/** Writes the plan of a new batch (once). */
	create(manifest: BatchManifest): void {
		writeFileAtomic(this.fileFor(manifest.name), JSON.stringify(manifest));
	}

	/**
	 * The one writer of a batch for a run: item changes go to the journal as they happen; `close`
	 * writes the compact snapshot, removes the journal and lets go of the lock. A second runner of the
	 * same name stops with exit 2, naming the first.
	 */
	open(manifest: BatchManifest, onNotice?: (message: string) => void): BatchWriter {
		// Worker threads share the coordinator's pid, so the lock file cannot tell them apart: a worker that
		// opened the journal would be a second writer nothing stops. Only the coordinator (main thread) may.
		if (!isMainThread) throw new Error(`batch ${manifest.name}: the batch journal is written by the coordinator only, never from a worker thread`);
		mkdirSync(this.dir, {recursive: true});
		const lock = acquireLock(path.join(this.dir, `${manifest.name}.lock`), `batch ${manifest.name}`, (previous) => onNotice?.(`took over batch ${manifest.name} from process ${previous.pid} on ${previous.host}, which is no longer running`));
		if (!this.exists(manifest.name)) this.create(manifest);
		return new BatchWriter(this, manifest, lock);
	}
}

export class BatchWriter {
	private closed = false;

	constructor(
		private readonly store: BatchStore,
		readonly manifest: BatchManifest,
		private readonly lock: Lock,
	) {}

	/** Applies an item's change to the manifest in memory and appends it to the journal. */
	update(index: number, patch: Partial<BatchItem>, at: string): BatchItem {
		const item = {...this.manifest.items[index]!, ...patch, updatedAt: at};
		this.manifest.items[index] = item;
		this.manifest.updatedAt = at;
		const text = `${JSON.stringify({i: index, set: {...patch, updatedAt: at}, at} satisfies ItemEvent)}\n`;
		writeStats.chars += text.length;
		appendFileSync(this.store.journalFor(this.manifest.name), text);
		return item;
	}

	close(): void {
		if (this.closed) return;
		this.closed = true;
		try {
			const text = JSON.stringify(this.manifest);
			writeStats.chars += text.length;
			writeFileAtomic(this.store.fileFor(this.manifest.name), text);
			rmSync(this.store.journalFor(this.manifest.name), {force: true});
		} finally {
			this.lock.release();
		}
	}
}
