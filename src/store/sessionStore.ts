import {existsSync, readdirSync, rmSync, statSync} from 'node:fs';
import path from 'node:path';
import {type Adapter, Low} from 'lowdb';
import {SESSION_VERSION, Session, violationId} from '../domain/session.js';
import {type DiskSession, type JournalPatch, type JournalStart, LinePool, applyPatch, decodeSession, diffSession, encodeSession} from './sessionCodec.js';
import {type JournalOptions, JournalAppender, describeDamage, readJournal} from './journal.js';
import {type Lock, acquireLock} from './lock.js';
import {SESSION_INDEX_VERSION, SessionIndex, SessionSummary, familyScores} from '../domain/sessionSummary.js';
import {setupOf} from '../domain/setup.js';
import {shortHash} from '../util/hash.js';
import {removeStaleTemps, writeFileAtomic} from '../util/atomicWrite.js';
import {readBoundedText} from '../util/boundedRead.js';
import {UserError, zodProblems} from '../util/errors.js';
import {SessionTooLarge, storing} from '../util/storageError.js';

export {SessionTooLarge} from '../util/storageError.js';
import {unknownMessage} from '../util/suggest.js';
import {ensureDir} from '../util/ensureDir.js';

export type StoreOptions = {
	/** Hears about stale locks taken over (a process that died holding a session), healed journals, temp files removed. */
	readonly onNotice?: (message: string) => void;
	/** Largest a session may grow on disk (journal or snapshot). @default MAX_SESSION_BYTES */
	readonly maxSessionBytes?: number;
};

/**
 * Largest a session may grow on disk (journal or snapshot): 64 MB. With the reply-size limits of the
 * model layer a session stays far below it (a long best-of-N episode is a few MB); it stops a
 * runaway one before it fills the disk or outgrows what a report can read.
 */
export const MAX_SESSION_BYTES = 64 * 1024 * 1024;

/** A lowdb adapter writing through writeFileAtomic: byte counts checked, storage failures named, temp files that say who wrote them. */
class AtomicDataFile<T> implements Adapter<T> {
	constructor(
		private readonly file: string,
		private readonly stringify: (data: T) => string,
	) {}

	async read(): Promise<T | null> {
		return null; // the store reads sessions itself (readSession), bounded and validated
	}

	async write(data: T): Promise<void> {
		writeFileAtomic(this.file, this.stringify(data));
	}
}

const SESSION_JOURNAL: JournalOptions = {what: 'session journal', afterTorn: 'stop', maxBytes: 512 * 1024 * 1024};

/** Session ids become file names: a safe pattern, so a manifest naming "../x" cannot write outside the folder. */
export const SAFE_ID = /^[A-Za-z0-9][A-Za-z0-9._-]{0,199}$/;

/** Largest session file read (a larger one is refused with a message, never read into memory). */
const MAX_FILE_BYTES = 512 * 1024 * 1024;

/** Characters written to session and batch files by this process (for the storage benchmark). */
export const writeStats = {chars: 0};

/** `written`: pool lines already in the journal (a failed append leaves some to go with the next patch). */
type OpenSession = {readonly lock: Lock; readonly pool: LinePool; last: Session; journal: string; appender: JournalAppender; written: number};

/**
 * Sessions in a folder, one per episode: `<id>.json` (compact JSON, format version 2, requests
 * stored as line numbers into the session's line pool: see sessionCodec.ts) once the episode has
 * ended or waits for a person, and `<id>.journal.jsonl` while it runs (each save appends what
 * changed; a line cut off by a crash is dropped on reading). One writer per session (`<id>.lock`).
 * Nothing is kept in memory after a session is closed, ended or released, so a batch of any size
 * holds only the sessions in flight. A corrupt or foreign file is reported with its name and never
 * stops the others from loading.
 */
export class SessionStore {
	private readonly open = new Map<string, OpenSession>();
	/** Sessions loaded from a path outside the folder are saved back where they came from. */
	private readonly loadedFrom = new Map<string, string>();
	private madeDir = false;

	constructor(
		readonly dir: string,
		private readonly options: StoreOptions = {},
	) {}

	fileFor(id: string): string {
		return this.loadedFrom.get(id) ?? path.join(this.dir, `${id}.json`);
	}

	journalFor(id: string): string {
		const file = this.fileFor(id);
		return `${file.slice(0, -'.json'.length)}.journal.jsonl`;
	}

	/**
	 * Saves the session's latest state. The first save of a session by this store takes its lock and
	 * starts a journal with the whole session; later saves append what changed. A session that has
	 * ended (completed, error) or waits for a person is written as its snapshot and released.
	 */
	async save(session: Session): Promise<string> {
		if (!SAFE_ID.test(session.id)) throw new UserError(`Session id '${session.id.slice(0, 80)}' is not a safe file name (letters, digits, '.', '_' and '-').`);
		const file = this.fileFor(session.id);
		if (!this.madeDir) {
			const dir = path.dirname(file);
			ensureDir(dir);
			const removed = removeStaleTemps(dir);
			if (removed.length > 0) this.options.onNotice?.(`removed ${removed.length} temp file(s) that an interrupted run left in ${dir}`);
			this.madeDir = true;
		}
		const limit = this.options.maxSessionBytes ?? MAX_SESSION_BYTES;
		let state = this.open.get(session.id);
		if (!state) {
			const lock = acquireLock(`${file.slice(0, -'.json'.length)}.lock`, `session ${session.id}`, (previous) => this.options.onNotice?.(`took over the lock of session ${session.id} left by process ${previous.pid} on ${previous.host} (no longer running)`));
			try {
				const pool = new LinePool();
				const journal = this.journalFor(session.id);
				const start: JournalStart = {t: 'start', format: 'cultureconverse.session-journal', version: 2, session: encodeSession(session, pool)};
				const text = `${JSON.stringify(start)}\n`;
				if (text.length > limit) throw new SessionTooLarge(session.id, Buffer.byteLength(text), limit);
				writeStats.chars += text.length;
				// Whole or not at all: a reader (a listing, a report) never meets a journal cut before its first
				// line. Held open while the episode runs: one write per step, not an open and a close as well.
				state = {lock, pool, last: session, journal, appender: JournalAppender.create(journal, text), written: pool.lines.length};
				this.open.set(session.id, state);
			} catch (error) {
				lock.release();
				throw error;
			}
		} else {
			const diff = diffSession(state.last, session, state.pool);
			if (diff) {
				// A failed append leaves `last` as the file has it, so the next save's patch covers this
				// one's changes again, and the pool lines it added go with it (`written` did not move).
				const {lines: _added, ...changes} = diff;
				const lines = state.pool.lines.slice(state.written);
				const text = `${JSON.stringify({...changes, ...(lines.length > 0 ? {lines} : {})} satisfies JournalPatch)}\n`;
				const bytes = state.appender.bytes + Buffer.byteLength(text);
				if (bytes > limit) throw new SessionTooLarge(session.id, bytes, limit);
				state.appender.append(text);
				state.written = state.pool.lines.length;
				writeStats.chars += text.length;
			}
			state.last = session;
		}
		if (session.status === 'completed' || session.status === 'error' || session.status === 'awaiting_assistant') await this.settle(session.id);
		return file;
	}

	/**
	 * Writes the session's snapshot, removes its journal and releases it: what an ended episode, one
	 * waiting for a person, and a front end leaving an episode do. A session never saved by this
	 * store is left alone.
	 */
	async settle(id: string): Promise<void> {
		const state = this.open.get(id);
		if (!state) return;
		const file = this.fileFor(id);
		// The journal's pool: lines and calls encoded as the episode ran are reused, not encoded again.
		const disk = encodeSession(state.last, state.pool);
		// Atomic (temp file + rename, through lowdb with a checked adapter), compact JSON.
		const limit = this.options.maxSessionBytes ?? MAX_SESSION_BYTES;
		const stringify = (data: DiskSession) => {
			const text = JSON.stringify(data);
			if (text.length > limit) throw new SessionTooLarge(id, Buffer.byteLength(text), limit);
			writeStats.chars += text.length;
			return text;
		};
		// A snapshot that cannot be written leaves the journal (the session reads whole from it) and the
		// session open here, so a later settle or release still closes it.
		await new Low<DiskSession>(new AtomicDataFile<DiskSession>(file, stringify), disk).write();
		// A release() during the write above (a front end leaving as the episode ended) has closed the
		// journal and released the lock already: neither is done twice.
		const released = this.open.get(id) !== state;
		state.appender.close();
		storing(state.journal, 'remove', () => rmSync(state.journal, {force: true}));
		if (!released) {
			state.lock.release();
			this.open.delete(id);
		}
	}

	/** Stops writing a session without a snapshot (an interrupted episode keeps its journal, resumable). */
	release(id: string): void {
		const state = this.open.get(id);
		if (!state) return;
		try {
			state.appender.close();
		} finally {
			state.lock.release();
			this.open.delete(id);
		}
	}

	/** Sessions this store is writing now (for tests and leak checks). */
	get openCount(): number {
		return this.open.size;
	}

	/** True when a session with exactly this id is saved (no prefix matching, unlike resolve). */
	exists(id: string): boolean {
		return existsSync(this.fileFor(id)) || existsSync(this.journalFor(id));
	}

	/** Resolves a session id or a path to a file, with near matches for unknown ids. */
	resolve(idOrPath: string): string {
		if (idOrPath.endsWith('.json') || idOrPath.endsWith('.jsonl') || idOrPath.includes('/') || idOrPath.includes(path.sep)) {
			const file = path.resolve(idOrPath);
			// A running session has only its journal so far: its `.json` path names it too.
			if (!existsSync(file) && !(file.endsWith('.json') && existsSync(`${file.slice(0, -'.json'.length)}.journal.jsonl`))) throw new UserError(`No session file at ${file}.`);
			return file;
		}
		if (this.exists(idOrPath)) return this.fileFor(idOrPath);
		const ids = [...new Set(this.files().map((candidate) => idOfFile(candidate)))];
		const prefix = ids.filter((id) => id.startsWith(idOrPath));
		if (prefix.length === 1) return this.fileFor(prefix[0]!);
		throw new UserError(unknownMessage('session', idOrPath, ids, `Sessions live in ${this.dir} (--sessions-dir).`));
	}

	async load(idOrPath: string): Promise<Session> {
		const file = this.resolve(idOrPath);
		const session = readSession(file);
		const canonical = path.join(path.dirname(file), `${session.id}.json`);
		if (path.dirname(path.resolve(file)) !== path.resolve(this.dir)) this.loadedFrom.set(session.id, canonical);
		return session;
	}

	/**
	 * Every readable session, newest first, plus one problem line per unreadable file, and per file
	 * that repeats another's session id (a copy: counted once, under its own name). Unchanged files
	 * are answered from the folder's index; the index is rewritten only when something changed.
	 */
	list(): {sessions: SessionSummary[]; problems: Array<{file: string; message: string}>; reread: number} {
		const problems: Array<{file: string; message: string}> = [];
		const index = readIndex(this.indexFile());
		const next: SessionIndex['entries'] = {};
		const byId = new Map<string, SessionSummary>();
		let reread = 0;
		for (const file of this.files()) {
			const name = path.basename(file);
			let stat;
			try {
				stat = statSync(file);
			} catch {
				continue; // deleted between readdir and stat
			}
			const key = {ino: stat.ino, size: stat.size, mtimeMs: stat.mtimeMs};
			let entry = index.entries[name];
			if (!entry || entry.ino !== key.ino || entry.size !== key.size || entry.mtimeMs !== key.mtimeMs) {
				reread++;
				try {
					const canonical = file.endsWith('.journal.jsonl') ? `${file.slice(0, -'.journal.jsonl'.length)}.json` : file;
					entry = {...key, summary: summarize(readSession(file), canonical), problem: null};
				} catch (error) {
					entry = {...key, summary: null, problem: error instanceof Error ? error.message : String(error)};
				}
			}
			next[name] = entry;
			if (!entry.summary) {
				problems.push({file, message: entry.problem ?? 'unreadable'});
				continue;
			}
			// The path a row is read from now (the folder may have moved since the index was written).
			const summary = {...entry.summary, path: path.join(this.dir, `${idOfFile(file)}.json`)};
			const seen = byId.get(summary.id);
			if (!seen) {
				byId.set(summary.id, summary);
				continue;
			}
			// A snapshot and a journal of one session: the newer state wins. Any other file with the same id is a copy.
			const sameSession = idOfFile(file) === summary.id && idOfFile(seen.path) === summary.id;
			if (sameSession) {
				if (summary.updatedAt > seen.updatedAt) byId.set(summary.id, summary);
				continue;
			}
			const [kept, copy] = idOfFile(file) === summary.id ? [summary, seen] : [seen, summary];
			byId.set(summary.id, kept);
			// The message names the copy itself: it is what a user deletes.
			const copyFile = copy === summary ? file : seen.path;
			problems.push({file: copyFile, message: `${copyFile}: a copy of session ${summary.id} (kept: ${path.basename(kept.path)}); counted once`});
		}
		if (reread > 0 || Object.keys(next).length !== Object.keys(index.entries).length) writeIndex(this.indexFile(), {format: 'cultureconverse.session-index', version: SESSION_INDEX_VERSION, entries: next});
		const sessions = [...byId.values()].sort((a, b) => b.createdAt.localeCompare(a.createdAt) || b.id.localeCompare(a.id));
		return {sessions, problems, reread};
	}

	private indexFile(): string {
		return path.join(this.dir, INDEX_FILE);
	}

	/**
	 * Session files in the folder: regular files only (a symlink counts when it leads to a regular
	 * file), never devices, pipes or folders.
	 */
	private files(): string[] {
		if (!existsSync(this.dir)) return [];
		const out: string[] = [];
		for (const entry of readdirSync(this.dir, {withFileTypes: true})) {
			if (entry.name.startsWith('.') || !(entry.name.endsWith('.json') || entry.name.endsWith('.journal.jsonl'))) continue;
			const file = path.join(this.dir, entry.name);
			if (entry.isFile()) out.push(file);
			else if (entry.isSymbolicLink()) {
				try {
					if (statSync(file).isFile()) out.push(file);
				} catch {
					// a dangling link
				}
			}
		}
		return out;
	}
}

/** The session id a file name stands for (`x.json`, `x.journal.jsonl`). */
function idOfFile(file: string): string {
	const name = path.basename(file);
	return name.endsWith('.journal.jsonl') ? name.slice(0, -'.journal.jsonl'.length) : name.slice(0, -'.json'.length);
}

const INDEX_FILE = '.index.json';

function readIndex(file: string): SessionIndex {
	try {
		return SessionIndex.parse(JSON.parse(readBoundedText(file, {what: 'session index', maxBytes: 256 * 1024 * 1024})));
	} catch {
		// Missing, damaged or from another version: it is derived data, so start over.
		return {format: 'cultureconverse.session-index', version: SESSION_INDEX_VERSION, entries: {}};
	}
}

function writeIndex(file: string, index: SessionIndex): void {
	try {
		writeFileAtomic(file, JSON.stringify(index));
	} catch {
		// A read-only sessions folder still lists; it just re-reads every file each time.
	}
}

/**
 * Reads one session: a snapshot (`.json`, version 1 or 2) or a running session's journal
 * (`.journal.jsonl`), whichever the path names; for a snapshot whose journal exists beside it, the
 * newer of the two. Every failure names the file.
 */
export function readSession(file: string): Session {
	if (file.endsWith('.journal.jsonl')) return validate(foldJournal(file), file);
	const journal = `${file.slice(0, -'.json'.length)}.journal.jsonl`;
	if (!existsSync(file) && existsSync(journal)) return validate(foldJournal(journal), journal);
	const snapshot = validate(readRaw(file), file);
	if (existsSync(journal)) {
		try {
			const running = validate(foldJournal(journal), journal);
			if (running.steps.length > snapshot.steps.length || running.updatedAt > snapshot.updatedAt) return running;
		} catch {
			// A journal that cannot be read leaves the snapshot.
		}
	}
	return snapshot;
}

/**
 * The session's file as `replay --json` prints it: the snapshot as saved, or for a running session
 * (only its journal exists so far) the snapshot its journal folds into, in the same disk format.
 */
export function rawSessionText(file: string): string {
	const snapshot = file.endsWith('.journal.jsonl') ? `${file.slice(0, -'.journal.jsonl'.length)}.json` : file;
	const journal = `${snapshot.slice(0, -'.json'.length)}.journal.jsonl`;
	if (existsSync(snapshot) && !existsSync(journal)) return readBoundedText(snapshot, {what: 'session file', maxBytes: MAX_FILE_BYTES, followLinks: true}).trimEnd();
	return JSON.stringify(encodeSession(readSession(snapshot)));
}

/** @deprecated the name before journals: reads one session (see readSession). */
export const readSessionFile = readSession;

function readRaw(file: string): unknown {
	// Bounded and type-checked (a folder, a FIFO or a device named *.json is an error, never a hang).
	const text = readBoundedText(file, {what: 'session file', maxBytes: MAX_FILE_BYTES, followLinks: true});
	try {
		return JSON.parse(text);
	} catch (error) {
		throw new UserError(`${file}: not a readable session file (${truncate((error as Error).message, 200)})`);
	}
}

/**
 * A journal folded into a session: its start line, then every patch. What a crash or a full disk
 * left (a cut last line, a cut line another save was appended to) is dropped by the journal module,
 * and nothing after a torn line is applied (each patch builds on the state before it): those steps
 * run again on resume. `onNotice` hears what was dropped.
 */
function foldJournal(file: string, onNotice?: (message: string) => void): unknown {
	const read = readJournal(file, {...SESSION_JOURNAL, followLinks: true});
	if (read.damage.length > 1 || read.unused > 0 || read.damage.some((one) => one.kind !== 'cut_tail')) onNotice?.(describeDamage(file, read));
	let disk: DiskSession | null = null;
	for (const {value: raw, line} of read.lines) {
		const value = raw as JournalStart | JournalPatch;
		if (value.t === 'start') disk = value.session;
		else if (value.t === 'patch' && disk) disk = applyPatch(disk, value);
		else if (!disk) throw new UserError(`${file}: a session journal must start with the whole session`);
		else throw new UserError(`${file}:${line}: not a session journal line of this version`);
	}
	if (!disk) throw new UserError(`${file}: an empty session journal (the session never finished its first save)`);
	return disk;
}

function validate(raw: unknown, file: string): Session {
	if (!raw || typeof raw !== 'object' || (raw as {format?: unknown}).format !== 'cultureconverse.session') {
		throw new UserError(`${file}: not a cultureconverse session (missing "format": "cultureconverse.session")`);
	}
	const version = (raw as {version?: unknown}).version;
	let candidate: unknown;
	if (version === 1) candidate = {...(raw as object), version: SESSION_VERSION};
	else if (version === 2) {
		try {
			candidate = decodeSession(raw as DiskSession);
		} catch (error) {
			throw new UserError(`${file}: ${(error as Error).message}`);
		}
	} else throw new UserError(`${file}: session format version ${String(version)} is not supported by this build (expected 1 or 2)`);
	const parsed = Session.safeParse(candidate);
	if (!parsed.success) {
		const problems = zodProblems(parsed.error);
		throw new UserError(`${file}: session does not match the schema: ${problems.slice(0, 5).map((problem) => truncate(problem, 200)).join('; ')}${problems.length > 5 ? ` (and ${problems.length - 5} more)` : ''}`);
	}
	return parsed.data;
}

function truncate(text: string, max: number): string {
	return text.length > max ? `${text.slice(0, max - 1)}…` : text;
}

export function summarize(session: Session, file: string): SessionSummary {
	return {
		id: session.id,
		path: file,
		status: session.status,
		createdAt: session.createdAt,
		updatedAt: session.updatedAt,
		seedId: session.seed.id,
		personaId: session.persona.id,
		identity: session.persona.identity,
		region: session.persona.region,
		templateId: session.template.id,
		tier: session.seed.tier,
		split: session.seed.split,
		language: session.config.language,
		mode: session.config.mode,
		assistant: session.config.assistant,
		// A person who saw the hidden state is not a blind human baseline: reported as a model of its own.
		assistantModel: session.sawHidden && session.config.assistant === 'human' ? 'human (saw hidden)' : session.config.models.assistant,
		turns: session.turns.length,
		// From the raw scores: the judge's stored 3H and TDQ are rounded to three decimals.
		...familyScores(session.judge),
		clean: session.judge?.clean ?? null,
		scores: session.judge?.scores ?? null,
		judgeModel: session.config.models.judge,
		judgeMode: session.config.judgeMode,
		rejudgeOf: session.config.rejudgeOf ?? null,
		errorFlag: session.error?.flag ?? null,
		termination: session.termination?.reason ?? null,
		mock: session.config.mock,
		age: session.persona.age,
		gender: session.persona.gender,
		trial: session.config.trial ?? 1,
		rejudgeRepeat: session.config.rejudgeRepeat ?? null,
		// Content-addressed: the variants of a seed run from one shared blueprint carry the same id.
		blueprintId: session.blueprint ? shortHash(JSON.stringify([session.blueprint.public, session.blueprint.private, session.blueprint.oracle])) : null,
		violationIds: [...new Set((session.judge?.violations ?? []).flatMap((violation) => {
			const id = violationId(violation);
			return id ? [id] : [];
		}))],
		...setupOf(session),
		identityId: session.persona.identityId,
	};
}

