import {readFileSync} from 'node:fs';
import {sessionsDir} from '../app/runtime.js';
import {formatSession} from '../present/text.js';
import {SessionStore} from '../store/sessionStore.js';
import {UserError} from '../util/errors.js';
import {renderTable} from '../util/table.js';
import {type Command, type IO, write, writeJson} from './types.js';

const fmt = (value: number | null) => (value === null ? '–' : value.toFixed(2));

export const sessionsCommand: Command = {
	name: 'sessions',
	summary: 'List saved sessions (status, persona, template, tier, language, 3H, TDQ, clean, date)',
	usage: 'sessions [--status S] [--sessions-dir DIR] [--json]',
	flags: {
		status: {type: 'string', description: 'Only sessions with this status: running, awaiting_assistant, completed, error'},
		sessionsDir: {type: 'string', description: 'Folder of session files (default ./sessions)'},
		json: {type: 'boolean', description: 'Print JSON'},
	},
	async run({flags, io}) {
		const store = new SessionStore(sessionsDir(flags, io));
		const {sessions, problems} = store.list();
		const rows = typeof flags['status'] === 'string' ? sessions.filter((session) => session.status === flags['status']) : sessions;
		for (const problem of problems) io.stderr.write(`cultureconverse: skipped ${problem.message}\n`);
		if (flags['json']) {
			writeJson(io, rows);
			return 0;
		}
		if (rows.length === 0) {
			write(io, `No sessions in ${store.dir}. Start one with \`cultureconverse run\` or the TUI.`);
			return 0;
		}
		write(io, renderTable(rows, [
			{header: 'ID', value: (s) => s.id},
			{header: 'STATUS', value: (s) => s.errorFlag ?? s.status},
			{header: 'PERSONA', value: (s) => s.personaId, max: 30},
			{header: 'TEMPLATE', value: (s) => s.templateId, max: 34},
			{header: 'TIER', value: (s) => s.tier},
			{header: 'LANG', value: (s) => s.language},
			{header: '3H', value: (s) => fmt(s.threeH), align: 'right'},
			{header: 'TDQ', value: (s) => fmt(s.tdq), align: 'right'},
			{header: 'CLEAN', value: (s) => (s.clean === null ? '–' : s.clean ? 'yes' : 'no')},
			{header: 'DATE', value: (s) => s.createdAt.slice(0, 16).replace('T', ' ')},
		]));
		return 0;
	},
};

/** `replay <id> --print`: the transcript with all three partitions, for non-terminals (the TUI handles the rest). */
export async function printSession(io: IO, flags: Record<string, unknown>, idOrPath: string | undefined): Promise<number> {
	if (!idOrPath) throw new UserError('Give a session id or path (list them with `cultureconverse sessions`).');
	const store = new SessionStore(sessionsDir(flags as never, io));
	const session = await store.load(idOrPath);
	if (flags['json']) io.stdout.write(`${readFileSync(store.resolve(idOrPath), 'utf8').trimEnd()}\n`);
	else write(io, formatSession(session));
	return 0;
}
