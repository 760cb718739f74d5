import assert from 'node:assert/strict';
import {mkdirSync, readFileSync, renameSync, rmSync, utimesSync, writeFileSync} from 'node:fs';
import path from 'node:path';
import {after, before, describe, it} from 'node:test';
import {Session} from '../src/domain/session.js';
import {SessionIndex} from '../src/domain/sessionSummary.js';
import {SessionStore} from '../src/store/sessionStore.js';
import {tuiFixture, type TuiFixture} from './helpers/tuiFixture.js';

let fx: TuiFixture;
let base: Session;
before(async () => {
	fx = tuiFixture();
	const engine = await fx.services().startEpisode({persona: 'th-isan-a35-f', template: 'culinary.dietary-rules.01', tier: 'standard'});
	await engine.runToEnd();
	base = engine.session;
});
after(() => fx.close());

/** A fresh folder of `count` copies of the finished session, each with its own id and date. */
function folderOf(count: number): {store: SessionStore; dir: string} {
	const dir = path.join(fx.dir, `sessions-${Math.random().toString(36).slice(2)}`);
	const store = new SessionStore(dir);
	mkdirSync(dir, {recursive: true});
	for (let i = 0; i < count; i++) {
		const id = `copy-${String(i).padStart(3, '0')}`;
		writeFileSync(path.join(dir, `${id}.json`), JSON.stringify({...base, id, createdAt: `2026-11-${String(10 + i).padStart(2, '0')}T10:00:00.000Z`}));
	}
	return {store, dir};
}

describe('sessions folder index', () => {
	it('answers an unchanged folder from the index, and re-reads only what changed', async () => {
		const {store, dir} = folderOf(0);
		for (let i = 0; i < 5; i++) await store.save({...base, id: `s${i}`, createdAt: `2026-11-0${i + 1}T10:00:00.000Z`});
		const first = store.list();
		assert.equal(first.reread, 5);
		assert.deepEqual(first.sessions.map((row) => row.id), ['s4', 's3', 's2', 's1', 's0'], 'newest first');
		const index = SessionIndex.parse(JSON.parse(readFileSync(path.join(dir, '.index.json'), 'utf8')));
		assert.deepEqual(Object.keys(index.entries).sort(), ['s0.json', 's1.json', 's2.json', 's3.json', 's4.json']);

		const second = store.list();
		assert.equal(second.reread, 0, 'nothing changed, nothing re-read');
		assert.deepEqual(second.sessions, first.sessions);

		// A save through the store (lowdb: temp file + rename) is seen at once, even at the same size.
		await new SessionStore(dir).save({...base, id: 's2', createdAt: '2026-11-03T10:00:00.000Z', status: 'error', error: {flag: 'JUDGE_ERROR', message: 'judge gave up', step: 9}});
		const third = store.list();
		assert.equal(third.reread, 1);
		assert.equal(third.sessions.find((row) => row.id === 's2')?.status, 'error');
		assert.equal(third.sessions.find((row) => row.id === 's2')?.errorFlag, 'JUDGE_ERROR');
	});

	it('notices an in-place edit that keeps the inode, and a deleted file', () => {
		const {store, dir} = folderOf(3);
		assert.equal(store.list().reread, 3);
		const file = path.join(dir, 'copy-001.json');
		const edited = {...JSON.parse(readFileSync(file, 'utf8')), status: 'running'};
		writeFileSync(file, JSON.stringify(edited));
		utimesSync(file, new Date(), new Date(Date.now() + 5000));
		rmSync(path.join(dir, 'copy-002.json'));
		const listed = store.list();
		assert.equal(listed.reread, 1);
		assert.deepEqual(listed.sessions.map((row) => [row.id, row.status]), [['copy-001', 'running'], ['copy-000', 'completed']]);
		const index = SessionIndex.parse(JSON.parse(readFileSync(path.join(dir, '.index.json'), 'utf8')));
		assert.deepEqual(Object.keys(index.entries).sort(), ['copy-000.json', 'copy-001.json'], 'the deleted file left the index');
	});

	it('keeps reporting a corrupt session file, and lists it once it is repaired', () => {
		const {store, dir} = folderOf(2);
		const file = path.join(dir, 'copy-000.json');
		const good = readFileSync(file, 'utf8');
		writeFileSync(file, good.slice(0, 200));
		for (let round = 0; round < 2; round++) {
			const listed = store.list();
			assert.deepEqual(listed.sessions.map((row) => row.id), ['copy-001']);
			assert.equal(listed.problems.length, 1);
			assert.match(listed.problems[0]!.message, /copy-000\.json: not a readable session file/);
		}
		writeFileSync(file, good);
		utimesSync(file, new Date(), new Date(Date.now() + 5000));
		assert.deepEqual(store.list().sessions.map((row) => row.id), ['copy-001', 'copy-000']);
	});

	it('rebuilds a damaged or foreign index without losing a session, and never lists the index itself', () => {
		const {store, dir} = folderOf(3);
		const expected = store.list().sessions;
		for (const damage of ['{"format": "cultureconverse.session-index", "version": 1, "entr', '{"format": "something-else", "version": 7, "entries": {}}', '']) {
			writeFileSync(path.join(dir, '.index.json'), damage);
			const listed = store.list();
			assert.equal(listed.reread, 3, `re-read everything after index damage ${JSON.stringify(damage.slice(0, 20))}`);
			assert.deepEqual(listed.sessions, expected);
			assert.deepEqual(listed.problems, []);
			SessionIndex.parse(JSON.parse(readFileSync(path.join(dir, '.index.json'), 'utf8')));
		}
		// A stale entry that lies about a file's content is not trusted once the file changes.
		const index = SessionIndex.parse(JSON.parse(readFileSync(path.join(dir, '.index.json'), 'utf8')));
		index.entries['copy-000.json']!.summary!.personaId = 'xx-forged';
		index.entries['copy-000.json']!.mtimeMs -= 1;
		writeFileSync(path.join(dir, '.index.json'), JSON.stringify(index));
		assert.equal(store.list().sessions.find((row) => row.id === 'copy-000')?.personaId, 'th-isan-a35-f');
	});

	it('gives each row the path it is at now, even when the folder moved', () => {
		const {store, dir} = folderOf(1);
		store.list();
		const moved = `${dir}-moved`;
		renameSync(dir, moved);
		const listed = new SessionStore(moved).list();
		assert.equal(listed.reread, 0, 'the index moved with the folder');
		assert.equal(listed.sessions[0]!.path, path.join(moved, 'copy-000.json'));
	});
});

describe('the sessions command: filters and limit', () => {
	it('filters by status, region, persona and template prefix and tier, newest first, with a limit', async () => {
		const {runCli} = await import('./helpers/cli.js');
		const dir = path.join(fx.dir, 'sessions-filters');
		mkdirSync(dir, {recursive: true});
		const rows: Array<[string, string, string, string, Session['status']]> = [
			['a', 'th-isan-a35-f', 'TH', 'culinary.dietary-rules.01', 'completed'],
			['b', 'my-tamil-hindu-a55-f', 'MY', 'culinary.hosting.02', 'completed'],
			['c', 'my-tamil-hindu-a18-m', 'MY', 'ritual.auspicious-timing.01', 'error'],
			['d', 'my-malay-muslim-a35-f', 'MY', 'culinary.dietary-rules.02', 'running'],
		];
		rows.forEach(([id, personaId, region, templateId, status], i) => {
			writeFileSync(path.join(dir, `${id}.json`), JSON.stringify({...base, id, status, createdAt: `2026-11-0${i + 1}T10:00:00.000Z`, persona: {...base.persona, id: personaId, region}, template: {...base.template, id: templateId}}));
		});
		const ids = async (...args: string[]) => {
			const result = await runCli(['sessions', '--sessions-dir', dir, '--json', ...args], {env: fx.env, cwd: fx.dir});
			assert.equal(result.code, 0, result.stderr);
			return (JSON.parse(result.stdout) as Array<{id: string}>).map((row) => row.id);
		};
		assert.deepEqual(await ids(), ['d', 'c', 'b', 'a']);
		assert.deepEqual(await ids('--region', 'my'), ['d', 'c', 'b']);
		assert.deepEqual(await ids('--persona', 'my-tamil'), ['c', 'b']);
		assert.deepEqual(await ids('--template', 'culinary.dietary-rules'), ['d', 'a']);
		assert.deepEqual(await ids('--status', 'completed', '--region', 'MY'), ['b']);
		assert.deepEqual(await ids('--tier', 'standard', '--limit', '2'), ['d', 'c']);
		assert.deepEqual(await ids('--tier', 'normative'), []);

		const text = await runCli(['sessions', '--sessions-dir', dir, '--limit', '1'], {env: fx.env, cwd: fx.dir});
		assert.match(text.stderr, /showing the newest 1 of 4 matching sessions/);
		const none = await runCli(['sessions', '--sessions-dir', dir, '--persona', 'jp-'], {env: fx.env, cwd: fx.dir});
		assert.match(none.stdout, /None of the 4 sessions in .* match\./);
		const file = path.join(dir, 'a.json');
		for (const command of [['sessions'], ['run', '--seed', 'th-isan-a35-f:culinary.dietary-rules.01']]) {
			const notFolder = await runCli([...command, '--sessions-dir', file], {env: fx.env, cwd: fx.dir});
			assert.equal(notFolder.code, 2);
			assert.match(notFolder.stderr, /The sessions folder .*a\.json is a file, not a folder/);
		}
		for (const [args, pattern] of [[['--status', 'done'], /Unknown status 'done'/], [['--region', 'XX'], /Unknown region 'XX'/], [['--tier', 'hard'], /Unknown tier 'hard'/], [['--limit', '-1'], /--limit must be a whole number/]] as const) {
			const bad = await runCli(['sessions', '--sessions-dir', dir, ...args], {env: fx.env, cwd: fx.dir});
			assert.equal(bad.code, 2, args.join(' '));
			assert.match(bad.stderr, pattern);
		}
	});
});
