import assert from 'node:assert/strict';
import {readSession} from '../src/store/sessionStore.js';
import {readFileSync} from 'node:fs';
import {after, before, describe, it} from 'node:test';
import {Session} from '../src/domain/session.js';
import {safeText} from '../src/util/terminalText.js';
import {parseJson, runCli} from './helpers/cli.js';
import {episodeHarness, type Harness} from './helpers/episodeHarness.js';
import {scriptedModel} from './helpers/scriptedModel.js';

/*
 * `run --human` as a person plays it: blind by default (the chat only, as the model under test would
 * see it), `--reveal` shows the hidden state and says so in the session. Canaries planted in private
 * and oracle state must not reach a blind player's terminal.
 */

const CANARY = {private: 'CANARY-PRIV-HUMAN-5d1e', oracle: 'CANARY-ORC-HUMAN-a7c3'};
const SEED = 'my-tamil-hindu-a55-f:culinary.dietary-rules.02';

let h: Harness;
before(async () => {
	h = await episodeHarness();
	h.fake.setHandler(scriptedModel({canary: CANARY}));
});
after(() => h.close());

const replies = (count: number, text = 'Let us plan the meals together.') => Array(count).fill(`${text}\n.`).join('\n');

async function play(args: string[], stdin: string) {
	const result = await runCli(['run', '--seed', SEED, '--tier', 'standard', '--human', '--sessions-dir', h.sessionsDir, ...args], {env: h.env, cwd: h.cwd, stdin});
	const id = /Episode (\S+)/.exec(result.stdout)?.[1];
	assert.ok(id, result.stdout + result.stderr);
	const session = readSession(`${h.sessionsDir}/${id}.json`);
	return {...result, session};
}

describe('run --human: a blind seat by default', () => {
	it('shows the chat and nothing hidden, to the judged end', async () => {
		const {code, stdout, stderr, session} = await play([], replies(6));
		assert.equal(code, 0, stderr);
		assert.equal(session.status, 'completed');
		const seen = stdout + stderr;
		for (const canary of Object.values(CANARY)) assert.ok(!seen.includes(canary), `${canary} reached the blind player`);
		assert.doesNotMatch(seen, /\[PRIVATE\]|\[ORACLE\]|ADVANCE_NEXT|CONTINUE_CURRENT|helpfulness/);
		assert.match(stdout, /USER t=0/);
		assert.match(stdout, /Let us plan the meals together\./);
		assert.match(stdout, /replay \S+ --print/, 'says where the hidden state and the scores are');
		assert.equal(session.sawHidden, undefined);
		assert.ok(session.turns.filter((turn) => turn.source === 'human').every((turn) => turn.sawHidden === undefined));
	});

	it('--reveal shows the hidden state, marks the session and every reply, and reports it apart', async () => {
		const {code, stdout, session} = await play(['--reveal'], replies(6));
		assert.equal(code, 0);
		assert.match(stdout, /\[PRIVATE\]/);
		assert.ok(stdout.includes(CANARY.oracle));
		assert.equal(session.sawHidden, true);
		const human = session.turns.filter((turn) => turn.source === 'human');
		assert.ok(human.length > 0 && human.every((turn) => turn.sawHidden === true));
		const listed = parseJson<Array<{id: string; assistantModel: string}>>((await runCli(['sessions', '--sessions-dir', h.sessionsDir, '--json'], {env: h.env, cwd: h.cwd})).stdout);
		assert.equal(listed.find((row) => row.id === session.id)?.assistantModel, 'human (saw hidden)');
		assert.ok(listed.some((row) => row.assistantModel === 'human'), 'the blind session is plain human');
	});

	it('refuses --reveal without --human', async () => {
		const result = await runCli(['run', '--seed', SEED, '--reveal', '--sessions-dir', h.sessionsDir], {env: h.env, cwd: h.cwd});
		assert.equal(result.code, 2);
		assert.match(result.stderr, /--reveal .* --human/);
	});
});

describe('terminal control sequences in model or human text', () => {
	it('are stripped by safeText, keeping text, newlines and wide characters', () => {
		assert.equal(safeText('a\u001B]0;evil title\u0007b'), 'ab');
		assert.equal(safeText('x\u001B[2Jy\u001B[31mred\u001B[0m'), 'xyred');
		assert.equal(safeText('link \u001B]8;;http://x\u001B\\here\u001B]8;;\u001B\\'), 'link here');
		assert.equal(safeText('c1 \u009B31m.'), 'c1 .');
		assert.equal(safeText('one\r\ntwo\tend ☕ தமிழ்'), 'one\ntwo\tend ☕ தமிழ்');
	});

	it('never reach the terminal from replay --print', async () => {
		const {session} = await play([], replies(6, 'Plan \u001B]0;pwned title\u0007the meals \u001B[2Jtogether.'));
		const printed = await runCli(['replay', session.id, '--print', '--sessions-dir', h.sessionsDir], {env: h.env, cwd: h.cwd});
		assert.equal(printed.code, 0, printed.stderr);
		assert.match(printed.stdout, /Plan the meals together\./);
		assert.doesNotMatch(printed.stdout, /\u001B\]|pwned|\u0007|\u001B\[2J/);
	});
});
