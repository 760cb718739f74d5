import assert from 'node:assert/strict';
import {readdirSync, readFileSync} from 'node:fs';
import path from 'node:path';
import {after, before, describe, it} from 'node:test';
import type {IO, TuiRequest} from '../src/commands/types.js';
import type {Session} from '../src/domain/session.js';
import {dialogueOpen, hiddenGuarded, markHiddenSeen} from '../src/episode/blindness.js';
import {readSession, summarize} from '../src/store/sessionStore.js';
import {parseJson, runCli} from './helpers/cli.js';
import {episodeHarness, type Harness} from './helpers/episodeHarness.js';
import {scriptedModel} from './helpers/scriptedModel.js';

/*
 * Blindness held by the session (issue 22, item 1): a session a person plays blind, quit at their
 * turn, is refused by every route that would show its private or oracle state unless --reveal, which
 * records the view (route and step) on the session; resuming keeps the mark; reports list it apart.
 * Canaries planted in private and oracle state (served by a loopback OpenAI-compatible server) must
 * not reach any refused output.
 */

const CANARY = {private: 'CANARY-PRIV-BLIND-61ab', oracle: 'CANARY-ORC-BLIND-9e2d'};
const SEED = 'my-tamil-hindu-a55-f:culinary.dietary-rules.02';

let h: Harness;
before(async () => {
	h = await episodeHarness();
	h.fake.setHandler(scriptedModel({canary: CANARY}));
});
after(() => h.close());

const cli = (args: string[], options: {stdin?: string; tty?: boolean; openTui?: (io: IO, request: TuiRequest) => Promise<number>} = {}) =>
	runCli([...args, '--sessions-dir', h.sessionsDir], {env: h.env, cwd: h.cwd, stdin: options.stdin, tty: options.tty, main: options.openTui ? {openTui: options.openTui} : undefined});

/** A human-seat session quit at the person's second turn (one reply written, then no more stdin). */
async function quitAtMyTurn(): Promise<Session> {
	const result = await cli(['run', '--seed', SEED, '--tier', 'standard', '--human'], {stdin: 'We could start with the meals.\n.\n'});
	const id = /Episode (\S+)/.exec(result.stdout)?.[1];
	assert.ok(id, result.stdout + result.stderr);
	const session = readSession(path.join(h.sessionsDir, `${id}.json`));
	assert.equal(session.status, 'awaiting_assistant', result.stderr);
	return session;
}

const file = (id: string) => path.join(h.sessionsDir, `${id}.json`);
const noCanary = (text: string, what: string) => {
	for (const canary of Object.values(CANARY)) assert.ok(!text.includes(canary), `${canary} reached ${what}`);
};

describe('a session played blind holds its blindness', () => {
	it('is refused by replay --print, replay --print --json, view --html and a replay on a terminal, with nothing marked', async () => {
		const session = await quitAtMyTurn();
		assert.ok(hiddenGuarded(session));
		const tuiCalls: TuiRequest[] = [];
		const routes: Array<[string, string[], {tty?: boolean}]> = [
			['replay --print', ['replay', session.id, '--print'], {}],
			['replay --print --json', ['replay', session.id, '--print', '--json'], {}],
			['view --html', ['view', session.id, '--html', path.join(h.cwd, 'pages')], {}],
			['replay on a terminal', ['replay', session.id], {tty: true}],
		];
		for (const [what, args, options] of routes) {
			const result = await cli(args, {...options, openTui: async (_io, request) => (tuiCalls.push(request), 0)});
			assert.equal(result.code, 2, `${what}: ${result.stdout}${result.stderr}`);
			assert.match(result.stderr, /played blind by a person and its dialogue is still open/, what);
			assert.match(result.stderr, /npx cultureconverse tui --resume/, `${what} says how to continue blind`);
			assert.match(result.stderr, /--reveal/, `${what} says how to show it anyway`);
			noCanary(result.stdout + result.stderr, what);
		}
		assert.equal(tuiCalls.length, 0, 'the screen was never taken over');
		assert.deepEqual(readdirSync(h.cwd).filter((name) => name === 'pages'), [], 'no page written');
		assert.equal(readSession(file(session.id)).sawHidden, undefined, 'refusing marks nothing');
		// The listing shows the row, with no hidden text and no judge figure.
		const listed = await cli(['sessions', '--json']);
		noCanary(listed.stdout, 'sessions --json');
		const row = parseJson<Array<{id: string; threeH: number | null; assistantModel: string}>>(listed.stdout).find((entry) => entry.id === session.id);
		assert.deepEqual([row?.threeH, row?.assistantModel], [null, 'human']);
	});

	it('--reveal shows it and records the route and the step first; resuming keeps the mark; reports list it apart', async () => {
		const session = await quitAtMyTurn();
		const printed = await cli(['replay', session.id, '--print', '--reveal']);
		assert.equal(printed.code, 0, printed.stderr);
		assert.ok(printed.stdout.includes(CANARY.private) || printed.stdout.includes(CANARY.oracle), 'the hidden state is shown');
		const marked = readSession(file(session.id));
		assert.equal(marked.sawHidden, true);
		assert.deepEqual(marked.hiddenViews?.map((seen) => [seen.view, seen.step]), [['replay-print', session.steps.length]]);
		// Now that it is marked, no route refuses it (nothing more to protect) and no second mark is written.
		const again = await cli(['replay', session.id, '--print']);
		assert.equal(again.code, 0);
		assert.equal(readSession(file(session.id)).hiddenViews?.length, 1);
		// Resuming keeps the mark, and every reply written after it says so.
		const resumed = await cli(['run', '--resume', session.id], {stdin: Array(6).fill('Thanks, that helps.\n.').join('\n')});
		assert.equal(resumed.code, 0, resumed.stderr);
		const done = readSession(file(session.id));
		assert.equal(done.status, 'completed');
		assert.equal(done.sawHidden, true);
		const human = done.turns.filter((turn) => turn.source === 'human');
		assert.ok(human.at(-1)!.sawHidden === true && human[0]!.sawHidden === undefined, 'replies after the view are marked, the one before is not');
		const summary = summarize(done, file(done.id));
		assert.equal(summary.assistantModel, 'human (saw hidden)');
		assert.equal(summary.setup.sawHidden, true, 'the setup identity keeps it in its own cell');
	});

	it('view --html of a batch of such sessions gives their pages the chat only; a single one with --reveal is marked', async () => {
		const session = await quitAtMyTurn();
		const out = path.join(h.cwd, 'pages-revealed');
		const result = await cli(['view', session.id, '--html', out, '--reveal']);
		assert.equal(result.code, 0, result.stderr);
		assert.ok(readFileSync(path.join(out, `${session.id}.html`), 'utf8').includes('Oracle'), 'the whole page');
		assert.deepEqual(readSession(file(session.id)).hiddenViews?.map((seen) => seen.view), ['view-html']);
	});

	it('decides in one place: the dialogue is open until it ends, an error-caused end stays open (a retry continues it)', async () => {
		const session = await quitAtMyTurn();
		assert.ok(dialogueOpen(session));
		const errored = {...session, status: 'error' as const, termination: {reason: 'simulator_error' as const, by: 'engine' as const, atTurn: 1, shard: 0, shardsPassed: 0, detail: '', step: 5}};
		assert.ok(hiddenGuarded(errored), 'an error-caused end can be retried: still guarded');
		const ended = {...session, termination: {...errored.termination, reason: 'all_shards_passed' as const}};
		assert.ok(!hiddenGuarded(ended), 'after the dialogue ended nothing can change a reply');
		assert.equal(markHiddenSeen(ended, 'tui-replay'), ended, 'and nothing is recorded');
		const llm = {...session, config: {...session.config, assistant: 'llm' as const}};
		assert.ok(!hiddenGuarded(llm));
	});
});
