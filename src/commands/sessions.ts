import path from 'node:path';
import {summaryOf} from './registry.js';
import {sessionsDirFromFlags} from './runtimeFlags.js';
import {SessionStatus} from '../domain/session.js';
import {type SessionSummary, statusLabel} from '../domain/sessionSummary.js';
import {formatSession} from '../present/text.js';
import {BatchStore} from '../store/batchStore.js';
import {SessionStore, rawSessionText} from '../store/sessionStore.js';
import {escapeJsonControls} from '../util/outsideText.js';
import {tierFlag} from '../universe/seeds.js';
import {UserError} from '../util/errors.js';
import {unknownMessage} from '../util/suggest.js';
import {renderTable} from '../util/table.js';
import {type Command, type Flags, type FlagSpec, type IO, write, writeJson} from './types.js';
import {fixed} from '../present/numbers.js';
import {openHidden} from '../app/hiddenAccess.js';
import {blindSafeSummary} from '../episode/blindness.js';
import {regionCode} from './flagValues.js';


/** Which saved sessions a command works on; shared by sessions, report and export. */
export const sessionFilterFlags = {
	region: {type: 'string', description: 'Only this region, e.g. KR'},
	persona: {type: 'string', description: 'Only personas whose id starts with this, e.g. my-tamil or my-tamil-hindu-a55-f'},
	template: {type: 'string', description: 'Only templates whose id starts with this, e.g. culinary or culinary.dietary-rules'},
	tier: {type: 'string', description: 'Only seeds of this tier: standard, contextual or normative'},
	sessionsDir: {type: 'string', description: 'Folder of session files (default ./sessions)'},
} as const satisfies Record<string, FlagSpec>;

export const sessionsCommand: Command = {
	name: 'sessions',
	summary: summaryOf('sessions'),
	usage: 'sessions [--status S] [--region R] [--persona P] [--template T] [--tier T] [--limit N] [--sessions-dir DIR] [--json]',
	flags: {
		status: {type: 'string', description: 'Only sessions with this status: running, awaiting_assistant, completed, error'},
		...sessionFilterFlags,
		limit: {type: 'number', description: 'At most this many, newest first (0 = all; default all)'},
		json: {type: 'boolean', description: 'Print JSON'},
	},
	async run({flags, io}) {
		const store = new SessionStore(sessionsDirFromFlags(flags, io));
		const filter = sessionFilter(flags);
		const {sessions, problems} = store.list();
		// A session still played blind shows no judge figure in any listing (episode/blindness.ts).
		const matching = sessions.filter((session) => matchesFilter(session, filter)).map(blindSafeSummary);
		const limit = typeof flags['limit'] === 'number' ? flags['limit'] : 0;
		if (!Number.isInteger(limit) || limit < 0) throw new UserError(`--limit must be a whole number of 0 or more, not ${String(flags['limit'])}.`);
		const rows = limit > 0 ? matching.slice(0, limit) : matching;
		for (const problem of problems) io.stderr.write(`cultureconverse: skipped ${problem.message}\n`);
		if (flags['json']) {
			writeJson(io, rows);
			return 0;
		}
		if (rows.length === 0) {
			write(io, sessions.length === 0 ? `No sessions in ${store.dir}. Start one with \`npx cultureconverse run\` or the TUI.` : `None of the ${sessions.length} sessions in ${store.dir} match.`);
			return 0;
		}
		if (rows.length < matching.length) io.stderr.write(`cultureconverse: showing the newest ${rows.length} of ${matching.length} matching sessions\n`);
		write(io, renderTable(rows, [
			{header: 'ID', value: (s) => s.id},
			{header: 'STATUS', value: statusLabel},
			{header: 'PERSONA', value: (s) => s.personaId, max: 30},
			{header: 'TEMPLATE', value: (s) => s.templateId, max: 34},
			{header: 'TIER', value: (s) => s.tier},
			{header: 'LANG', value: (s) => s.language},
			{header: '3H', value: (s) => fixed(s.threeH), align: 'right'},
			{header: 'TDQ', value: (s) => fixed(s.tdq), align: 'right'},
			{header: 'CLEAN', value: (s) => (s.clean === null ? '–' : s.clean ? 'yes' : 'no')},
			{header: 'DATE', value: (s) => s.createdAt.slice(0, 16).replace('T', ' ')},
		]));
		return 0;
	},
};

export type SessionFilter = {status?: SessionStatus; region?: string; persona?: string; template?: string; tier?: string};

/** Filter flags, validated: an unknown status, region or tier is an error, never an empty list. */
export function sessionFilter(flags: Flags): SessionFilter {
	const text = (name: string) => (typeof flags[name] === 'string' ? (flags[name] as string) : undefined);
	const status = text('status');
	if (status !== undefined && !SessionStatus.safeParse(status).success) throw new UserError(unknownMessage('status', status, SessionStatus.options));
	const given = text('region');
	const region = given === undefined ? undefined : regionCode(given);
	return {status: status as SessionStatus | undefined, region, persona: text('persona'), template: text('template'), tier: tierFlag(flags['tier'])};
}

export function matchesFilter(session: SessionSummary, filter: SessionFilter): boolean {
	return (
		(!filter.status || session.status === filter.status) &&
		(!filter.region || session.region === filter.region) &&
		(!filter.persona || session.personaId.startsWith(filter.persona)) &&
		(!filter.template || session.templateId.startsWith(filter.template)) &&
		(!filter.tier || session.tier === filter.tier)
	);
}

/**
 * A batch item whose session cannot be counted: the batch has it started or done, but its file is
 * gone or cannot be read. Reports list these (a damaged file used to vanish from `report --batch`
 * without a trace); the next `batch` run of the name sets such files aside and runs them again.
 */
export type LostSession = {readonly id: string; readonly batchStatus: string; readonly reason: 'missing' | 'unreadable'; readonly problem: string | null};

/**
 * The saved sessions a command works on (report, export): the filter flags, then `--batch NAME`.
 * Unreadable files are named on stderr and left out; `total` is how many sessions the folder holds;
 * `lost` are the batch's sessions that are missing or unreadable (empty without --batch).
 */
export function selectSessions(flags: Flags, io: IO): {store: SessionStore; chosen: SessionSummary[]; total: number; lost: LostSession[]} {
	const store = new SessionStore(sessionsDirFromFlags(flags, io));
	const filter = sessionFilter(flags);
	const {sessions, problems} = store.list();
	for (const problem of problems) io.stderr.write(`cultureconverse: skipped ${problem.message}\n`);
	let chosen = sessions.filter((session) => matchesFilter(session, filter));
	const lost: LostSession[] = [];
	if (typeof flags['batch'] === 'string') {
		const items = new BatchStore(store.dir).load(flags['batch']).items;
		// Re-judged copies are not in the manifest, but their dialogues are the batch's: they belong to it.
		const ids = new Set(items.map((item) => item.sessionId));
		chosen = chosen.filter((session) => ids.has(session.id) || (session.rejudgeOf !== null && ids.has(session.rejudgeOf)));
		const readable = new Set(sessions.map((session) => session.id));
		const unreadable = new Map(problems.map((problem) => [sessionIdOfFile(problem.file), problem.message]));
		for (const item of items) {
			if (item.status === 'pending' || readable.has(item.sessionId)) continue;
			const problem = unreadable.get(item.sessionId) ?? null;
			lost.push({id: item.sessionId, batchStatus: item.errorFlag ?? item.status, reason: problem === null ? 'missing' : 'unreadable', problem});
		}
	}
	return {store, chosen, total: sessions.length, lost};
}

/** The session id a file in the sessions folder is named for (`x.json`, `x.journal.jsonl`). */
function sessionIdOfFile(file: string): string {
	const name = path.basename(file);
	return name.endsWith('.journal.jsonl') ? name.slice(0, -'.journal.jsonl'.length) : name.replace(/\.json$/, '');
}

/** `replay <id> --print`: the transcript with all three partitions, for non-terminals (the TUI handles the rest). */
export async function printSession(io: IO, flags: Record<string, unknown>, idOrPath: string | undefined): Promise<number> {
	if (!idOrPath) throw new UserError('Give a session id or path (list them with `npx cultureconverse sessions`).');
	const store = new SessionStore(sessionsDirFromFlags(flags as never, io));
	const json = Boolean(flags['json']);
	// Every partition is printed: a session still played blind is refused, or marked first with --reveal.
	const session = await openHidden(store, await store.load(idOrPath), {view: json ? 'replay-json' : 'replay-print', reveal: Boolean(flags['reveal']), what: json ? 'its session file' : 'the printed transcript'});
	// A running session has only its journal: printed as the snapshot it folds into. Raw C1 controls escaped.
	if (json) io.stdout.write(`${escapeJsonControls(rawSessionText(store.resolve(idOrPath)))}\n`);
	else write(io, formatSession(session));
	return 0;
}
