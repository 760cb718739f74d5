import assert from 'node:assert/strict';
import {readSession} from '../src/store/sessionStore.js';
import {readFileSync, rmSync, writeFileSync} from 'node:fs';
import path from 'node:path';
import {after, before, describe, it} from 'node:test';
import {Session} from '../src/domain/session.js';
import {parseJson, runCli} from './helpers/cli.js';
import {episodeHarness, type Harness} from './helpers/episodeHarness.js';
import type {FakeRequest} from './helpers/fakeOpenAI.js';
import {scriptedModel} from './helpers/scriptedModel.js';

/*
 * `rejudge` over HTTP: a dialogue is played once against the loopback server, then judged again by
 * other judge models. The original file must not change, the copy must share the dialogue and carry
 * only new judge calls, and reruns must skip finished copies and retry failed ones.
 */

let h: Harness;
let originalId = '';
let originalFile = '';
const script = scriptedModel();
/** Models whose judge calls get a 503 (to exercise failure and retry). */
const down = new Set<string>();

before(async () => {
	h = await episodeHarness();
	h.fake.setHandler((request: FakeRequest) => (down.has(String(request.body.model)) && request.stage?.startsWith('judge') ? {status: 503, body: {error: {message: 'judge down'}}} : script(request)));
	const run = await runCli(['run', '--persona', 'my-tamil-hindu-a55-f', '--template', 'culinary.dietary-rules.02', '--tier', 'standard', '--sessions-dir', h.sessionsDir, '--json'], {env: h.env, cwd: h.cwd});
	assert.equal(run.code, 0, run.stderr);
	const out = parseJson<{sessionId: string; path: string}>(run.stdout);
	originalId = out.sessionId;
	originalFile = out.path;
});
after(() => h.close());

const cli = (...argv: string[]) => runCli([...argv, '--sessions-dir', h.sessionsDir], {env: h.env, cwd: h.cwd});
const load = (id: string) => readSession(path.join(h.sessionsDir, `${id}.json`));

describe('rejudge', () => {
	it('judges a copy of the dialogue with another judge, leaving the original untouched', async () => {
		const before = readFileSync(originalFile, 'utf8');
		const requestsBefore = h.fake.chatRequests().length;
		const result = await cli('rejudge', originalId, '--judge-model', 'judge-b', '--json');
		assert.equal(result.code, 0, result.stderr);
		assert.equal(readFileSync(originalFile, 'utf8'), before, 'the original file is byte for byte the same');
		const out = parseJson<{judge: string; sessions: Array<{kind: string; copy: string}>; agreement: Array<{metric: string; n: number}>}>(result.stdout);
		assert.equal(out.judge, 'judge-b');
		assert.equal(out.sessions[0]!.kind, 'judged');
		const original = load(originalId);
		const copy = load(out.sessions[0]!.copy);
		assert.equal(copy.id, `${originalId}.rj-judge-b-separate`);
		assert.equal(copy.status, 'completed');
		assert.equal(copy.config.rejudgeOf, originalId);
		assert.equal(copy.config.models.judge, 'judge-b');
		assert.deepEqual(copy.turns, original.turns, 'the same dialogue');
		const dialogueCalls = (session: Session) => session.calls.filter((call) => !call.stage.startsWith('judge'));
		assert.deepEqual(dialogueCalls(copy), dialogueCalls(original));
		const judgeCalls = copy.calls.filter((call) => call.stage.startsWith('judge'));
		assert.equal(judgeCalls.length, 6);
		assert.ok(judgeCalls.every((call) => call.model === 'judge-b'));
		// Only the judge was asked: no simulator, assistant or generator call went out.
		const made = h.fake.chatRequests().slice(requestsBefore);
		assert.equal(made.length, 6);
		assert.ok(made.every((request) => request.stage?.startsWith('judge:') && request.body.model === 'judge-b'));
		assert.ok(out.agreement.every((row) => row.n === 1));
		assert.equal(parseJson<{usage: {calls: number}}>(result.stdout).usage.calls, 6, 'the spend counts the six judge calls');
	});

	it('skips a finished copy on a rerun, and refuses the judge the session already had', async () => {
		const requestsBefore = h.fake.chatRequests().length;
		const again = await cli('rejudge', originalId, '--judge-model', 'judge-b', '--json');
		assert.equal(again.code, 0, again.stderr);
		assert.equal(parseJson<{sessions: Array<{kind: string}>}>(again.stdout).sessions[0]!.kind, 'already');
		assert.equal(h.fake.chatRequests().length, requestsBefore, 'no call made');
		const same = await cli('rejudge', originalId, '--json');
		const outcome = parseJson<{sessions: Array<{kind: string; why: string}>}>(same.stdout).sessions[0]!;
		assert.equal(outcome.kind, 'skipped');
		assert.match(outcome.why, /judged by .* already/);
		const copyOfCopy = await cli('rejudge', `${originalId}.rj-judge-b-separate`, '--judge-model', 'judge-c', '--json');
		assert.match(parseJson<{sessions: Array<{why: string}>}>(copyOfCopy.stdout).sessions[0]!.why, /itself a re-judged copy/);
	});

	it('reports a judge that fails with exit 3, and makes that copy again on the next run', async () => {
		down.add('judge-d');
		const failed = await cli('rejudge', originalId, '--judge-model', 'judge-d', '--judge-mode', 'combined');
		assert.equal(failed.code, 3);
		assert.match(failed.stderr, /failed .* → .*\.rj-judge-d-combined/);
		assert.equal(load(`${originalId}.rj-judge-d-combined`).status, 'error');
		down.delete('judge-d');
		const retried = await cli('rejudge', originalId, '--judge-model', 'judge-d', '--judge-mode', 'combined', '--json');
		assert.equal(retried.code, 0, retried.stderr);
		const copy = load(`${originalId}.rj-judge-d-combined`);
		assert.equal(copy.status, 'completed');
		assert.equal(copy.error, null);
		assert.equal(copy.config.judgeMode, 'combined');
	});

	it('--repeat asks the same judge again, past the response cache, to measure judge noise', async () => {
		const config = path.join(h.cwd, 'cached.config.json');
		writeFileSync(config, JSON.stringify({retry: {maxAttempts: 3, baseDelayMs: 2, maxDelayMs: 10}, cache: true}));
		const judged = async (...extra: string[]) => {
			const before = h.fake.chatRequests().length;
			const result = await cli('rejudge', originalId, '--judge-model', 'judge-e', '--config', config, '--json', ...extra);
			assert.equal(result.code, 0, result.stderr);
			return {made: h.fake.chatRequests().length - before, out: parseJson<{sessions: Array<{kind: string; copy: string}>}>(result.stdout)};
		};
		assert.equal((await judged()).made, 6);
		rmSync(path.join(h.sessionsDir, `${originalId}.rj-judge-e-separate.json`));
		assert.equal((await judged()).made, 0, 'the same judge on the same dialogue is answered from the cache');
		const second = await judged('--repeat', '2');
		assert.equal(second.made, 6, 'repeat 2 is cached apart: the judge is asked again');
		const copy = load(second.out.sessions[0]!.copy);
		assert.equal(copy.id, `${originalId}.rj-judge-e-separate-r2`);
		assert.equal(copy.config.rejudgeRepeat, 2);
		const same = await cli('rejudge', originalId, '--repeat', '2', '--json');
		assert.equal(parseJson<{sessions: Array<{kind: string}>}>(same.stdout).sessions[0]!.kind, 'judged', 'the original judge may repeat itself');
	});

	it('copies stay out of plain reports and exports, and --by judge compares the judges', async () => {
		const plain = await cli('report', '--json');
		assert.equal(plain.code, 0, plain.stderr);
		const report = parseJson<{overall: {n: number}; notes: string[]}>(plain.stdout);
		assert.equal(report.overall.n, 1);
		assert.match(report.notes.join('\n'), /5 re-judged copies left out/);
		const byJudge = parseJson<{rows: Array<{slice: {judge: string}; n: number}>}>((await cli('report', '--by', 'judge', '--json')).stdout);
		assert.deepEqual(byJudge.rows.map((row) => [row.slice.judge, row.n]).sort(), [['fake-model (repeat 2)', 1], ['fake-model', 1], ['judge-b', 1], ['judge-d (combined)', 1], ['judge-e (repeat 2)', 1], ['judge-e', 1]], 'a repeat of the same judge is its own row, so no dialogue counts twice in one');
		const list = await cli('sessions');
		assert.match(list.stdout, new RegExp(`${originalId.replace(/[.]/g, '\\.')}\\.rj-judge-b-separate\\s+completed \\(rj\\)`));
		const sft = await cli('export', 'sft', '--mode', 'any', '--split', 'any');
		assert.match(sft.stderr, /re-judged copy 5/);
	});
});
