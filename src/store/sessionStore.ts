import {existsSync, mkdirSync, readdirSync, readFileSync, statSync} from 'node:fs';
import path from 'node:path';
import {type Adapter, Low} from 'lowdb';
import {JSONFile} from 'lowdb/node';
import {ModelRole, Session, violationId} from '../domain/session.js';
import {SessionIndex, type SessionSetup, SessionSummary} from '../domain/sessionSummary.js';
import {shortHash} from '../util/hash.js';
import {writeFileAtomic} from '../util/atomicWrite.js';
import {UserError, zodProblems} from '../util/errors.js';
import {unknownMessage} from '../util/suggest.js';

export type StoreOptions = {
	/** Adapter factory; JSONFile (atomic tmp + rename writes) unless a test injects Memory. */
	readonly adapter?: (file: string) => Adapter<Session>;
};

/**
 * Sessions as one lowdb JSON file each in a folder. A corrupt or foreign file is reported with its
 * name and never stops the others from loading.
 */
export class SessionStore {
	private readonly dbs = new Map<string, Low<Session>>();
	/** Sessions loaded from a path outside the folder are saved back where they came from. */
	private readonly loadedFrom = new Map<string, string>();

	constructor(
		readonly dir: string,
		private readonly options: StoreOptions = {},
	) {}

	fileFor(id: string): string {
		return this.loadedFrom.get(id) ?? path.join(this.dir, `${id}.json`);
	}

	async save(session: Session): Promise<string> {
		const file = this.fileFor(session.id);
		mkdirSync(path.dirname(file), {recursive: true});
		let db = this.dbs.get(file);
		if (!db) {
			db = new Low<Session>(this.adapter(file), session);
			this.dbs.set(file, db);
		}
		db.data = session;
		await db.write();
		return file;
	}

	/** True when a session with exactly this id is saved (no prefix matching, unlike resolve). */
	exists(id: string): boolean {
		return existsSync(this.fileFor(id));
	}

	/** Resolves a session id or a path to a file, with near matches for unknown ids. */
	resolve(idOrPath: string): string {
		if (idOrPath.endsWith('.json') || idOrPath.includes('/') || idOrPath.includes(path.sep)) {
			const file = path.resolve(idOrPath);
			if (!existsSync(file)) throw new UserError(`No session file at ${file}.`);
			return file;
		}
		const file = this.fileFor(idOrPath);
		if (existsSync(file)) return file;
		const ids = this.files().map((candidate) => path.basename(candidate, '.json'));
		const prefix = ids.filter((id) => id.startsWith(idOrPath));
		if (prefix.length === 1) return this.fileFor(prefix[0]!);
		throw new UserError(unknownMessage('session', idOrPath, ids, `Sessions live in ${this.dir} (--sessions-dir).`));
	}

	async load(idOrPath: string): Promise<Session> {
		const file = this.resolve(idOrPath);
		const session = readSessionFile(file);
		this.loadedFrom.set(session.id, file);
		const db = new Low<Session>(this.adapter(file), session);
		this.dbs.set(file, db);
		return session;
	}

	/**
	 * Every readable session, newest first, plus one problem line per unreadable file. Unchanged files
	 * are answered from the folder's index; the index is rewritten only when something changed.
	 */
	list(): {sessions: SessionSummary[]; problems: Array<{file: string; message: string}>; reread: number} {
		const sessions: SessionSummary[] = [];
		const problems: Array<{file: string; message: string}> = [];
		const index = readIndex(this.indexFile());
		const next: SessionIndex['entries'] = {};
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
					entry = {...key, summary: summarize(readSessionFile(file), file), problem: null};
				} catch (error) {
					entry = {...key, summary: null, problem: error instanceof Error ? error.message : String(error)};
				}
			}
			next[name] = entry;
			if (entry.summary) sessions.push({...entry.summary, path: file});
			else problems.push({file, message: entry.problem ?? 'unreadable'});
		}
		if (reread > 0 || Object.keys(next).length !== Object.keys(index.entries).length) writeIndex(this.indexFile(), {format: 'cultureconverse.session-index', version: 4, entries: next});
		sessions.sort((a, b) => b.createdAt.localeCompare(a.createdAt) || b.id.localeCompare(a.id));
		return {sessions, problems, reread};
	}

	private indexFile(): string {
		return path.join(this.dir, INDEX_FILE);
	}

	private files(): string[] {
		if (!existsSync(this.dir)) return [];
		return readdirSync(this.dir, {withFileTypes: true})
			.filter((entry) => (entry.isFile() || entry.isSymbolicLink()) && entry.name.endsWith('.json') && !entry.name.startsWith('.'))
			.map((entry) => path.join(this.dir, entry.name));
	}

	private adapter(file: string): Adapter<Session> {
		return this.options.adapter?.(file) ?? new JSONFile<Session>(file);
	}
}

const INDEX_FILE = '.index.json';

function readIndex(file: string): SessionIndex {
	try {
		return SessionIndex.parse(JSON.parse(readFileSync(file, 'utf8')));
	} catch {
		// Missing, damaged or from another version: it is derived data, so start over.
		return {format: 'cultureconverse.session-index', version: 4, entries: {}};
	}
}

function writeIndex(file: string, index: SessionIndex): void {
	try {
		writeFileAtomic(file, JSON.stringify(index));
	} catch {
		// A read-only sessions folder still lists; it just re-reads every file each time.
	}
}

/** Reads and validates one session file; every failure names the file. */
export function readSessionFile(file: string): Session {
	let raw: unknown;
	try {
		raw = JSON.parse(readFileSync(file, 'utf8'));
	} catch (error) {
		throw new UserError(`${file}: not a readable session file (${(error as Error).message})`);
	}
	if (!raw || typeof raw !== 'object' || (raw as {format?: unknown}).format !== 'cultureconverse.session') {
		throw new UserError(`${file}: not a cultureconverse session (missing "format": "cultureconverse.session")`);
	}
	const version = (raw as {version?: unknown}).version;
	if (version !== 1) throw new UserError(`${file}: session format version ${String(version)} is not supported by this build (expected 1)`);
	const parsed = Session.safeParse(raw);
	if (!parsed.success) {
		const problems = zodProblems(parsed.error);
		throw new UserError(`${file}: session does not match the schema: ${problems.slice(0, 5).join('; ')}${problems.length > 5 ? ` (and ${problems.length - 5} more)` : ''}`);
	}
	return parsed.data;
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
		threeH: session.judge?.threeH ?? null,
		tdq: session.judge?.tdq ?? null,
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
	};
}

/** The session's setup and its key (see SessionSetup). */
export function setupOf(session: Session): {setup: SessionSetup; setupKey: string} {
	const roles = session.config.roles;
	const setup: SessionSetup = {
		assistant: session.config.assistant,
		models: Object.fromEntries(ModelRole.options.map((role) => [role, `${roles[role].provider}:${roles[role].model}`])),
		endpoints: Object.fromEntries(ModelRole.options.map((role) => [role, roles[role].baseURL])),
		judgeMode: session.config.judgeMode,
		maxTurns: session.config.maxTurns,
		bestOf: session.config.bestOf ?? null,
		promptsHash: shortHash(JSON.stringify(Object.entries(session.config.prompts).sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0)))),
		sawHidden: session.config.sawHidden ?? false,
		mockRoles: ModelRole.options.filter((role) => roles[role].provider === 'mock'),
		modelChanged: (session.config.modelChanges?.length ?? 0) > 0,
	};
	return {setup, setupKey: shortHash(JSON.stringify(setup))};
}
