import {existsSync, mkdirSync, readdirSync, readFileSync} from 'node:fs';
import path from 'node:path';
import {Low} from 'lowdb';
import {JSONFile} from 'lowdb/node';
import {BatchManifest} from '../domain/batch.js';
import {UserError, zodProblems} from '../util/errors.js';
import {unknownMessage} from '../util/suggest.js';

/**
 * Batch manifests as lowdb files in `<sessions>/batches/`. A subfolder, so session listings (which
 * read the top level only) never mistake a manifest for a session.
 */
export class BatchStore {
	private db: Low<BatchManifest> | undefined;

	constructor(readonly sessionsDir: string) {}

	get dir(): string {
		return path.join(this.sessionsDir, 'batches');
	}

	fileFor(name: string): string {
		return path.join(this.dir, `${name}.json`);
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

	load(name: string): BatchManifest {
		const file = this.fileFor(name);
		if (!existsSync(file)) throw new UserError(unknownMessage('batch', name, this.names(), `Batches live in ${this.dir}.`));
		let raw: unknown;
		try {
			raw = JSON.parse(readFileSync(file, 'utf8'));
		} catch (error) {
			throw new UserError(`${file}: not a readable batch manifest (${(error as Error).message}). The sessions it ran are intact in ${this.sessionsDir}.`);
		}
		const parsed = BatchManifest.safeParse(raw);
		if (!parsed.success) throw new UserError(`${file}: not a batch manifest of this version: ${zodProblems(parsed.error).slice(0, 5).join('; ')}`);
		return parsed.data;
	}

	/** Atomic (temp file + rename, through lowdb's JSONFile); successive saves are queued by lowdb's writer. */
	async save(manifest: BatchManifest): Promise<void> {
		mkdirSync(this.dir, {recursive: true});
		if (!this.db) this.db = new Low<BatchManifest>(new JSONFile<BatchManifest>(this.fileFor(manifest.name)), manifest);
		this.db.data = manifest;
		await this.db.write();
	}
}
