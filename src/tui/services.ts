import {Writable} from 'node:stream';
import {modelFlagsOf, resumeEpisode, startEpisode} from '../app/episodes.js';
import {userInfo} from 'node:os';
import path from 'node:path';
import {SituatedItem} from '../domain/situated.js';
import {latestById, readJsonl} from '../situated/jsonl.js';
import {regionNamer, upgradeItem} from '../situated/legacy.js';
import {errorMessage} from '../util/errors.js';
import {createRuntime, episodeRoles, resolveRoles} from '../app/runtime.js';
import {episodeOptionsFromFlags, seedFromFlags} from '../commands/episodeOptions.js';
import {modelOptionsFromFlags, roleModelFlags} from '../commands/modelFlags.js';
import {runtimeOptionsFromFlags, sessionsDirFromFlags} from '../commands/runtimeFlags.js';
import {openHidden} from '../app/hiddenAccess.js';
import {blindSafeSummary} from '../episode/blindness.js';
import {sessionPage} from '../html/sessionPage.js';
import {writeFileAtomic} from '../util/atomicWrite.js';
import {mkdirSync} from 'node:fs';
import {type Scores, ratingsFile, ratingsOf, saveRatings} from '../store/ratingStore.js';
import type {Flags, IO} from '../commands/types.js';
import {type HiddenView, ModelRole, type RoleSettings, type Session} from '../domain/session.js';
import type {EpisodeEngine} from '../episode/engine.js';
import {SessionStore} from '../store/sessionStore.js';
import type {Universe} from '../universe/load.js';

/*
 * What the TUI needs from the rest of the program, in one narrow interface: it starts, resumes and
 * loads episodes through the same functions as `run` and `replay`, and adds nothing to them. Tests
 * build the real thing against temporary folders and the offline mock.
 */

export type NoticeListener = (text: string) => void;

export type TuiServices = {
	readonly universe: Universe;
	/** Flags from the command line (episode options and model flags). */
	readonly flags: Flags;
	readonly sessionsDir: string;
	/** The environment (for $EDITOR / $VISUAL). */
	readonly env: NodeJS.ProcessEnv;
	/** The model every role would use with these flags; throws a UserError when they cannot work. */
	resolveRoles(flags: Flags): Readonly<Record<ModelRole, RoleSettings>>;
	/** A new episode from flags (--persona, --template, --tier, --lang, --mode, --human, --<role>-model ...). */
	startEpisode(flags: Flags): Promise<EpisodeEngine>;
	/** A live engine for a saved, unfinished session, with the models it was started with. */
	resumeEpisode(session: Session): Promise<EpisodeEngine>;
	/** Every session of the folder (a session still played blind shows no judge figure: episode/blindness.ts). */
	listSessions(): ReturnType<SessionStore['list']>;
	loadSession(idOrPath: string): Promise<Session>;
	/**
	 * The session about to be shown with its hidden state, after the person said yes: a session still
	 * played blind is marked on its file first (sawHidden, the view and the step), so resuming keeps it.
	 */
	revealSaved(session: Session, view: HiddenView): Promise<Session>;
	/** Writes the session's HTML viewer page to <sessions>/html/<id>.html; returns the path. */
	writePage(session: Session): string;
	/** Situated items of `crisp build` (<sessions>/crisp/items.jsonl), or why the file could not be read. */
	listItems(): {items: SituatedItem[]; file: string; problem: string | null};
	/** Who rates sessions in this TUI (--rater, $CULTURECONVERSE_RATER, else the login name). */
	readonly rater: string;
	/** Where ratings go: <sessions>/ratings.jsonl, the file `report agreement --ratings` reads. */
	readonly ratingsFile: string;
	/** The rater's saved scores for a session; throws a UserError when the ratings file does not parse. */
	ratingsOf(sessionId: string): Scores;
	/** Replaces the rater's scores for a session; returns how many were saved. */
	rate(sessionId: string, scores: Scores): number;
	/** Warnings the runtime would print to stderr (index rebuilds, embedder fallback): shown in the TUI instead. */
	onNotice(listener: NoticeListener): () => void;
};

export function createServices(io: IO, flags: Flags, universe: Universe): TuiServices {
	const listeners = new Set<NoticeListener>();
	const notify = (text: string) => {
		for (const listener of listeners) listener(text);
	};
	// Nothing may write to the terminal under Ink: runtime warnings become notices.
	const stderr = new Writable({
		write(chunk: Buffer | string, _encoding, callback) {
			for (const text of chunk.toString().split('\n')) if (text.trim()) notify(text.replace(/^cultureconverse: /, '').trim());
			callback();
		},
	});
	const quietIo: IO = {...io, stderr};
	const store = new SessionStore(sessionsDirFromFlags(flags, io), {onNotice: notify});
	const ratings = ratingsFile(store.dir);
	const rater = raterName(flags, io.env);
	return {
		universe,
		flags,
		env: io.env,
		sessionsDir: store.dir,
		rater,
		listItems: () => {
			const file = path.join(store.dir, 'crisp', 'items.jsonl');
			try {
				return {items: latestById(readJsonl(file, SituatedItem, (raw) => upgradeItem(raw, regionNamer(universe))).records, (item) => item.id), file, problem: null};
			} catch (error) {
				// One line for the screen: the file's verdict and its first problem (`crisp build` prints them all).
				const [head, first] = errorMessage(error).split('\n').map((line) => line.trim().replace(/^- /, ''));
				return {items: [], file, problem: first ? `${head} ${first}` : head!};
			}
		},
		ratingsFile: ratings,
		ratingsOf: (sessionId) => ratingsOf(ratings, sessionId, rater),
		rate: (sessionId, scores) => saveRatings(ratings, sessionId, rater, scores),
		resolveRoles: (overrides) => resolveRoles(modelOptionsFromFlags({...flags, ...overrides}), io),
		async startEpisode(episodeFlags) {
			const merged = {...flags, ...episodeFlags};
			const options = episodeOptionsFromFlags(merged);
			// A set-up that cannot work (no model for a role, a refused key, a model the server lacks) stops here, before any call.
			const roles = episodeRoles(options.assistant ?? 'llm');
			const runtime = createRuntime({options: runtimeOptionsFromFlags(merged), io: quietIo, universe, roles});
			await runtime.check(roles);
			return startEpisode(runtime, seedFromFlags(runtime, merged), options);
		},
		async resumeEpisode(session) {
			const roles = episodeRoles(session.config.assistant);
			const runtime = createRuntime({options: runtimeOptionsFromFlags({...flags, ...roleModelFlags(modelFlagsOf(session))}), io: quietIo, universe, roles});
			await runtime.check(roles);
			return resumeEpisode(runtime, store.fileFor(session.id));
		},
		listSessions: () => {
			const listing = store.list();
			return {...listing, sessions: listing.sessions.map(blindSafeSummary)};
		},
		loadSession: (idOrPath) => store.load(idOrPath),
		revealSaved: (session, view) => openHidden(store, session, {view, reveal: true, what: 'the replay'}),
		writePage(session) {
			const dir = path.join(store.dir, 'html');
			mkdirSync(dir, {recursive: true});
			const file = path.join(dir, `${session.id}.html`);
			writeFileAtomic(file, sessionPage(session));
			return file;
		},
		onNotice(listener) {
			listeners.add(listener);
			return () => listeners.delete(listener);
		},
	};
}

function raterName(flags: Flags, env: NodeJS.ProcessEnv): string {
	const named = typeof flags['rater'] === 'string' ? flags['rater'] : env['CULTURECONVERSE_RATER'];
	if (named?.trim()) return named.trim();
	try {
		return userInfo().username || 'rater';
	} catch {
		return 'rater';
	}
}
