import path from 'node:path';
import {summaryOf} from './registry.js';
import {sessionsDirFromFlags} from './runtimeFlags.js';
import {esc} from '../html/escape.js';
import {TABLE_SCRIPT, page} from '../html/page.js';
import {BatchStore} from '../store/batchStore.js';
import {SessionStore} from '../store/sessionStore.js';
import {writeFileAtomic} from '../util/atomicWrite.js';
import {ExitCode, UserError} from '../util/errors.js';
import {fixed} from '../present/numbers.js';
import {writeViewerPages} from './reportHtml.js';
import {selectSessions} from './sessions.js';
import {openHidden} from '../app/hiddenAccess.js';
import {summaryGuarded} from '../episode/blindness.js';
import {comparePage} from '../html/comparePage.js';
import {mockNotes} from '../present/mockNote.js';
import {mockKind} from '../report/setups.js';
import {type Command, write, writeJson} from './types.js';

export const viewCommand: Command = {
	name: 'view',
	summary: summaryOf('view'),
	usage: 'view <session-id|path|batch-name> --html DIR [--compare <other-session>] [--reveal] [--sessions-dir DIR] [--json]',
	flags: {
		html: {type: 'string', description: 'Folder to write the pages to (one <session id>.html per session; a batch also gets index.html)'},
		sessionsDir: {type: 'string', description: 'Folder of session files (default ./sessions)'},
		json: {type: 'boolean', description: 'Print what was written as JSON'},
		compare: {type: 'string', description: 'Another session of the same seed: also write compare-<a>-<b>.html, the two chats side by side, aligned by turn'},
		reveal: {type: 'boolean', description: 'Also show sessions still being played blind by a person (recorded on each as sawHidden; without it a single such session is refused and a batch\'s get the chat only)'},
	},
	async run({args, flags, io}) {
		const target = args[0];
		if (!target) throw new UserError('Give a session id, a session file or a batch name: `npx cultureconverse view <id|batch> --html DIR`.');
		if (typeof flags['html'] !== 'string') throw new UserError('view writes static pages: give --html DIR (the folder to write them to).');
		const dir = path.resolve(io.cwd, flags['html']);
		const reveal = Boolean(flags['reveal']);
		const store = new SessionStore(sessionsDirFromFlags(flags, io));
		const batches = new BatchStore(store.dir);
		let files: string[];
		let index: string | null = null;
		let compare: {name: string; html: string} | null = null;
		if (!target.includes('/') && !target.endsWith('.json') && batches.exists(target)) {
			const {chosen} = selectSessions({...flags, batch: target}, io);
			if (chosen.length === 0) throw new UserError(`Batch ${target} has no saved session yet.`);
			files = chosen.map((s) => s.path);
			// Sessions still played blind: marked with --reveal, else their pages carry the chat only (sessionPage).
			const blind = chosen.filter(summaryGuarded);
			if (reveal) for (const s of blind) await openHidden(store, await store.load(s.path), {view: 'view-html', reveal, what: 'its page'});
			else if (blind.length > 0) io.stderr.write(`cultureconverse: ${blind.length} session(s) of ${target} are still played blind (${blind.map((s) => s.id).join(', ')}): their pages show the chat only (--reveal shows all, recorded on them)\n`);
			const rows = chosen.map((s) => `<tr><td><a href="${esc(encodeURIComponent(s.id))}.html">${esc(s.id)}</a></td><td>${esc(s.personaId)}</td><td>${esc(s.templateId)}</td><td>${esc(s.tier)}</td><td>${esc(s.language)}</td><td class="num" data-sort="${s.threeH ?? -1}">${esc(fixed(s.threeH))}</td><td class="num" data-sort="${s.tdq ?? -1}">${esc(fixed(s.tdq))}</td><td>${s.clean === null ? '–' : s.clean ? 'yes' : 'no'}</td><td>${esc(s.errorFlag ?? s.termination ?? s.status)}</td></tr>`).join('');
			// The batch's own mock notice, worded from the roles that ran on the mock (the most of any session here).
			const kinds = chosen.map(mockKind).filter((kind) => kind.kind !== 'none');
			const worst = kinds.find((kind) => kind.kind === 'all') ?? kinds[0];
			const banner = worst ? `<div class="banner">${esc(`${kinds.length} of ${chosen.length} session(s): ${mockNotes(worst)[0]}`)}</div>` : '';
			index = page({title: `Batch ${target}`, body: `<h1>Batch ${esc(target)}</h1>${banner}<p><input type="search" placeholder="Filter" data-filter="sessions"> <span class="muted"><span data-count="sessions">${chosen.length}</span> of ${chosen.length}</span></p><table id="sessions" class="sortable"><thead><tr><th>id</th><th>persona</th><th>template</th><th>tier</th><th>language</th><th class="num">3H</th><th class="num">TDQ</th><th>clean</th><th>termination</th></tr></thead><tbody>${rows}</tbody></table>`, script: TABLE_SCRIPT});
		} else {
			const file = store.resolve(target);
			const session = await openHidden(store, await store.load(file), {view: 'view-html', reveal, what: 'its page'});
			files = [file];
			if (typeof flags['compare'] === 'string') {
				const otherFile = store.resolve(flags['compare']);
				const other = await openHidden(store, await store.load(otherFile), {view: 'view-html', reveal, what: 'its page'});
				if (other.seed.id !== session.seed.id) throw new UserError(`${session.id} and ${other.id} are of different seeds (${session.seed.id}, ${other.seed.id}): a comparison needs the same seed.`);
				files.push(otherFile);
				compare = {name: `compare-${session.id}-${other.id}.html`, html: comparePage(session, other)};
			}
		}
		const pages = writeViewerPages(files, dir, index ? {back: 'index.html'} : {});
		if (index) writeFileAtomic(path.join(dir, 'index.html'), index);
		if (compare) writeFileAtomic(path.join(dir, compare.name), compare.html);
		if (flags['json']) writeJson(io, {dir, pages, index: index ? path.join(dir, 'index.html') : null, compare: compare ? path.join(dir, compare.name) : null});
		else write(io, `Wrote ${pages} session page(s)${index ? ' and index.html' : ''}${compare ? ` and ${compare.name}` : ''} to ${dir}`);
		return ExitCode.ok;
	},
};
