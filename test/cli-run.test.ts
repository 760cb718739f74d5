import assert from 'node:assert/strict';
import {readSession} from '../src/store/sessionStore.js';
import {readFileSync, writeFileSync} from 'node:fs';
import path from 'node:path';
import {describe, it} from 'node:test';
import {Session} from '../src/domain/session.js';
import {parseJson, runCli} from './helpers/cli.js';
import {tempDir} from './helpers/tmp.js';

type RunJson = {sessionId: string; path: string; status: string; scores: Record<string, number>; threeH: number; tdq: number; clean: boolean; mock: boolean; termination: {reason: string}};

function offline() {
	const cwd = tempDir('cc-run-');
	return {cwd, env: {CULTURECONVERSE_HOME: path.join(cwd, 'home')}};
}

describe('run (offline, mock provider)', () => {
	it('completes an episode, prints the summary JSON and saves a contract-valid session', async () => {
		const {cwd, env} = offline();
		const result = await runCli(['run', '--persona', 'vn-khmer-krom-a55-m', '--template', 'ritual.worship-places.01', '--tier', 'normative', '--json'], {cwd, env});
		assert.equal(result.code, 0, result.stderr);
		const out = parseJson<RunJson>(result.stdout);
		assert.equal(out.status, 'completed');
		assert.equal(out.mock, true);
		assert.equal(Object.keys(out.scores).length, 6);
		assert.ok(out.path.startsWith(path.join(cwd, 'sessions')));
		const session = readSession(out.path);
		assert.equal(session.config.mock, true);
		assert.ok(session.calls.every((call) => call.provider === 'mock'));
		assert.equal(session.seed.tier, 'normative');
	});

	it('prints a readable transcript with roles, shard progress and scores, and warns about the mock', async () => {
		const {cwd, env} = offline();
		const result = await runCli(['run', '--seed', 'kr-buddhist-a18-f:lifestyle.travel-mobility.02', '--lang', 'native'], {cwd, env});
		assert.equal(result.code, 0, result.stderr);
		assert.match(result.stderr, /Offline mock provider/);
		assert.match(result.stdout, /USER t=0 \[shard 1\/\d\]/);
		assert.match(result.stdout, /ASSISTANT t=0/);
		assert.match(result.stdout, /helpfulness\s+\d/);
		assert.match(result.stdout, /3H \d\.\d\d\s+TDQ \d\.\d\d/);
		assert.match(result.stdout, /[\uac00-\ud7a3]/, 'native Korean user turns');
	});

	it('--jsonl streams the engine events, one JSON object per line', async () => {
		const {cwd, env} = offline();
		const result = await runCli(['run', '--seed', 'id-minangkabau-muslim-a35-m:economic.job-seeking.01', '--jsonl'], {cwd, env});
		assert.equal(result.code, 0, result.stderr);
		const events = result.stdout.trim().split('\n').map((line) => JSON.parse(line) as {type: string});
		const types = new Set(events.map((event) => event.type));
		for (const type of ['episode_started', 'stage_done', 'user_turn', 'assistant_token', 'assistant_turn', 'judge_metric', 'step_done', 'episode_finished']) assert.ok(types.has(type), type);
		assert.equal(events.at(-1)?.type, 'episode_finished');
	});

	it('lets a person play the assistant from stdin (--human)', async () => {
		const {cwd, env} = offline();
		const replies = ['First, tell me who is coming.\n.', 'Then book the hall early.\n.', 'Bring a small gift.\n.', 'Confirm with your aunt.\n.', 'Enjoy the day.\n.', 'Anything else?\n.'].join('\n');
		const result = await runCli(['run', '--seed', 'ph-chinoy-a35-f:ritual.life-cycle.02', '--human', '--json'], {cwd, env, stdin: replies});
		assert.equal(result.code, 0, result.stderr);
		const out = parseJson<RunJson>(result.stdout);
		const session = readSession(out.path);
		assert.equal(session.config.assistant, 'human');
		assert.equal(session.config.models.assistant, 'human');
		const assistantTurns = session.turns.filter((turn) => turn.role === 'assistant');
		assert.equal(assistantTurns[0]?.content, 'First, tell me who is coming.');
		assert.ok(assistantTurns.every((turn) => turn.source === 'human'));
		assert.equal(out.status, 'completed');
	});

	it('leaves a human episode awaiting the assistant when stdin runs out, and resumes it', async () => {
		const {cwd, env} = offline();
		const first = await runCli(['run', '--seed', 'ph-chinoy-a35-f:ritual.life-cycle.02', '--human', '--json'], {cwd, env, stdin: 'Only one reply.\n.\n'});
		assert.equal(first.code, 0, first.stderr);
		const out = parseJson<RunJson>(first.stdout);
		assert.equal(out.status, 'awaiting_assistant');
		assert.match(first.stderr, /run --resume/);
		const second = await runCli(['run', '--resume', out.sessionId, '--json'], {cwd, env, stdin: Array(6).fill('Fine.\n.').join('\n')});
		assert.equal(parseJson<RunJson>(second.stdout).status, 'completed');
	});

	it('replays the session with --print, and lists it in `sessions`', async () => {
		const {cwd, env} = offline();
		const out = parseJson<RunJson>((await runCli(['run', '--seed', 'cn-uyghur-muslim-a18-m:culinary.table-manners.01', '--json'], {cwd, env})).stdout);
		const printed = await runCli(['replay', out.sessionId, '--print'], {cwd, env});
		assert.equal(printed.code, 0, printed.stderr);
		for (const label of ['[PUBLIC]', '[PRIVATE]', '[ORACLE]', 'Transcript', 'Ended:']) assert.ok(printed.stdout.includes(label), label);
		const listed = parseJson<Array<{id: string; status: string; threeH: number}>>((await runCli(['sessions', '--json'], {cwd, env})).stdout);
		assert.deepEqual(listed.map((row) => row.id), [out.sessionId]);
		// The listing's 3H is the mean of the raw scores; the run prints it rounded to three decimals.
		assert.ok(Math.abs(listed[0]!.threeH - out.threeH) < 5e-4, `${listed[0]!.threeH} vs ${out.threeH}`);
	});

	it('reports a corrupt or foreign session file by name without hiding the others', async () => {
		const {cwd, env} = offline();
		const good = parseJson<RunJson>((await runCli(['run', '--seed', 'sg-chinese-freethinker-a55-m:health.mental-health.01', '--json'], {cwd, env})).stdout);
		writeFileSync(path.join(cwd, 'sessions', 'broken.json'), '{"format": "cultureconverse.session", "version": 1, "id": ');
		writeFileSync(path.join(cwd, 'sessions', 'foreign.json'), JSON.stringify({hello: 'world'}));
		const listed = await runCli(['sessions', '--json'], {cwd, env});
		assert.equal(listed.code, 0);
		assert.deepEqual(parseJson<Array<{id: string}>>(listed.stdout).map((row) => row.id), [good.sessionId]);
		assert.match(listed.stderr, /broken\.json: not a readable session file/);
		assert.match(listed.stderr, /foreign\.json: not a cultureconverse session/);
		const replay = await runCli(['replay', 'broken', '--print'], {cwd, env});
		assert.equal(replay.code, 2);
		assert.match(replay.stderr, /broken\.json: not a readable session file/);
	});

	it('rejects bad run input with one clear line', async () => {
		const {cwd, env} = offline();
		const cases: Array<[string[], RegExp]> = [
			[['run'], /Give --seed/],
			[['run', '--persona', 'my-malay-muslim-a18-f', '--template', 'nope.nope.01'], /Unknown template 'nope\.nope\.01'/],
			[['run', '--seed', 'my-malay-muslim-a18-f:culinary.dietary-rules.01', '--lang', 'klingon'], /--lang must be english or native/],
			[['run', '--seed', 'my-malay-muslim-a18-f:culinary.dietary-rules.01', '--mode', 'gold', '--human'], /--human and --mode gold/],
			[['run', '--resume', 'no-such-session'], /Unknown session 'no-such-session'/],
			[['run', '--seed', 'my-malay-muslim-a18-f:culinary.dietary-rules.01', '--max-turns', '0'], /--max-turns must be/],
		];
		for (const [argv, pattern] of cases) {
			const result = await runCli(argv, {cwd, env});
			assert.equal(result.code, 2, argv.join(' '));
			assert.match(result.stderr, pattern);
		}
	});
});
