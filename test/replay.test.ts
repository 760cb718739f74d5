import assert from 'node:assert/strict';
import {readSession} from '../src/store/sessionStore.js';
import {copyFileSync, mkdirSync, readFileSync} from 'node:fs';
import path from 'node:path';
import {describe, it} from 'node:test';
import {Session} from '../src/domain/session.js';
import {sessionAtStep} from '../src/episode/replay.js';
import {oracleView, privateView, publicView} from '../src/episode/views.js';
import {parseJson, runCli} from './helpers/cli.js';
import {tempDir} from './helpers/tmp.js';

async function offlineSession(args: string[] = []): Promise<{session: Session; cwd: string; env: NodeJS.ProcessEnv}> {
	const cwd = tempDir('cc-replay-');
	const env = {CULTURECONVERSE_HOME: path.join(cwd, 'home')};
	const replies = Array(6).fill('Let us plan it step by step.\n.').join('\n');
	const result = await runCli(['run', '--seed', 'th-chinese-a35-f:economic.money-customs.02', '--json', ...args], {cwd, env, stdin: replies});
	assert.equal(result.code, 0, result.stderr);
	const out = parseJson<{path: string}>(result.stdout);
	return {session: readSession(out.path), cwd, env};
}

describe('sessionAtStep', () => {
	it('rebuilds every past state from the step marks: panes grow monotonically', async () => {
		const {session} = await offlineSession();
		const total = session.steps.length;
		assert.deepEqual(sessionAtStep(session, total), session);
		const empty = sessionAtStep(session, 0);
		assert.equal(empty.blueprint, null);
		assert.equal(empty.turns.length, 0);
		assert.equal(empty.calls.length, 0);
		let previousTurns = 0;
		let previousScored = 0;
		for (let n = 0; n <= total; n++) {
			const past = sessionAtStep(session, n);
			assert.ok(past.turns.length >= previousTurns, `turns shrink at ${n}`);
			const scored = Object.values(past.judge?.scores ?? {}).filter((score) => score !== null).length;
			assert.ok(scored >= previousScored);
			previousTurns = past.turns.length;
			previousScored = scored;
			assert.ok(past.calls.every((call) => call.step <= n));
			// Views are pure functions of any past state.
			publicView(past);
			privateView(past);
			oracleView(past);
		}
		const afterBlueprint = sessionAtStep(session, session.stageSteps.blueprint!);
		assert.ok(afterBlueprint.blueprint && afterBlueprint.evidence && !afterBlueprint.shards);
		const beforeEnd = sessionAtStep(session, session.termination!.step - 1);
		assert.equal(beforeEnd.termination, null);
		assert.equal(beforeEnd.judge, null);
		assert.equal(sessionAtStep(session, session.judge!.steps.honesty!).judge?.scores.harmlessness, null);
	});

	it('shows a human episode as awaiting the assistant at the steps where it waited', async () => {
		const {session} = await offlineSession(['--human']);
		assert.equal(session.status, 'completed');
		const opened = session.steps.find((step) => step.kind === 'user')!.n;
		const answered = session.steps.find((step) => step.kind === 'assistant')!.n;
		assert.equal(sessionAtStep(session, opened).status, 'awaiting_assistant');
		assert.equal(sessionAtStep(session, answered).status, 'running');
		assert.equal(sessionAtStep(session, opened - 1).status, 'running');
	});
});

describe('replay assistant and foreign paths', () => {
	it('--replay-from plays back another session\'s assistant turns against a fresh simulation', async () => {
		const {session, cwd, env} = await offlineSession();
		const result = await runCli(['run', '--seed', session.seed.id, '--replay-from', session.id, '--json'], {cwd, env});
		assert.equal(result.code, 0, result.stderr);
		const replayed = readSession(parseJson<{path: string}>(result.stdout).path);
		assert.equal(replayed.config.assistant, 'replay');
		assert.equal(replayed.config.replayFrom, session.id);
		const text = (s: Session) => s.turns.filter((turn) => turn.role === 'assistant').map((turn) => turn.content);
		assert.deepEqual(text(replayed), text(session).slice(0, text(replayed).length));
		assert.ok(replayed.turns.filter((turn) => turn.role === 'assistant').every((turn) => turn.source === 'replay'));
	});

	it('resumes a session file outside --sessions-dir in place', async () => {
		const cwd = tempDir('cc-foreign-');
		const env = {CULTURECONVERSE_HOME: path.join(cwd, 'home')};
		const first = await runCli(['run', '--seed', 'kr-secular-a55-m:domestic.household-roles.01', '--human', '--json'], {cwd, env});
		const out = parseJson<{sessionId: string; path: string}>(first.stdout);
		const elsewhere = path.join(cwd, 'archive');
		mkdirSync(elsewhere);
		const moved = path.join(elsewhere, `${out.sessionId}.json`);
		copyFileSync(out.path, moved);
		const resumed = await runCli(['run', '--resume', moved, '--json'], {cwd, env, stdin: Array(6).fill('Fine.\n.').join('\n')});
		assert.equal(resumed.code, 0, resumed.stderr);
		assert.equal(parseJson<{path: string; status: string}>(resumed.stdout).path, moved);
		assert.equal(readSession(moved).status, 'completed');
		assert.equal(readSession(out.path).status, 'awaiting_assistant', 'the original copy is untouched');
	});
});
