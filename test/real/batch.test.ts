/**
 * A 4-seed batch against a real llama-server that is killed (SIGKILL) once the first episode is done:
 * the batch must stop after the set-up breaker instead of starting every item against a dead
 * server, print a resume command that carries every flag the batch needs, and, with the server back
 * on the same port, finish from that command; then `report --batch` reads the four sessions. The
 * simulator and assistant are real; generator, validator and judge run on the mock (the judge's
 * 4,000-token prompt would add minutes per episode and is covered by episodes.test.ts).
 */
import assert from 'node:assert/strict';
import {after, before, describe, it} from 'node:test';
import {type RunningServer, startServer} from '../../scripts/real/lib.js';
import {MODEL_FAILURES, cli, describe as describeSessions, install, modelArgs, realCalls, realServer, resetRetries, sessionsIn, skip, workspace} from './harness.js';

/** The words after "Continue with: cultureconverse" in the batch's closing lines, as argv. */
function resumeArgv(stderr: string): string[] | null {
	const line = /[Cc]ontinue with: (?:npx )?cultureconverse ([^\n]+?)(?: \(items with an error flag[^\n]*)?$/m.exec(stderr)?.[1];
	return line ? (line.match(/'[^']*'|"[^"]*"|\S+/g) ?? []).map((word) => word.replace(/^['"]|['"]$/g, '')) : null;
}

describe('real llama-server: a batch whose server dies', {skip}, () => {
	let server: RunningServer;
	const ws = workspace();
	const batch = ['batch', '--name', 'kill', '--persona', 'bn-malay-muslim-a18-f', '--tier', 'standard', '--sample', '4', '--max-turns', '1', '--judge-mode', 'combined', '--parallel', '1', '--stop-after', '2'];
	// One at a time: once the server is gone the next two items fail and the breaker stops the fourth from starting.
	const models = (target: RunningServer) => [...modelArgs(target, ws), '--judge-model', 'mock'];
	let first = {code: -1, stdout: '', stderr: ''};
	before(async () => {
		server = await realServer();
	});
	after(() => server?.stop());

	it('stops after the set-up breaker once the server is gone, and says how to continue', {timeout: 1_800_000}, async () => {
		const running = cli([...batch, ...models(server)], ws);
		// Kill the server as soon as one episode is finished (the others are in flight or waiting).
		for (;;) {
			if (sessionsIn(ws.sessions).some((session) => session.status === 'completed')) break;
			const settled = await Promise.race([running.then(() => true), new Promise<false>((resolve) => setTimeout(() => resolve(false), 100))]);
			if (settled) break;
		}
		await server.kill();
		first = await running;
		const sessions = sessionsIn(ws.sessions);
		assert.ok(sessions.some((session) => session.status === 'completed'), first.stderr);
		// Issue 24 item 5 (durability engineer): network failures count toward --stop-after, so nothing more starts.
		assert.match(first.stderr, /Stopped: 2 items in a row failed the same way \(network/, first.stderr);
		// Nothing starts after the breaker: the items that ran are the ones that finished before the server
		// went (one, or two when the next finished while it was being killed) and the two that failed.
		const completed = sessions.filter((session) => session.status === 'completed').length;
		assert.equal(sessions.filter((session) => session.status === 'error').length, 2, describeSessions(sessions));
		assert.equal(sessions.length, completed + 2, `only the items begun before the breaker have sessions: ${describeSessions(sessions)}`);
		assert.ok(sessions.every((session) => session.status !== 'running'), 'no session is left running');
	});

	it('finishes from the printed command once the server is back, and reports the four sessions', {timeout: 1_800_000}, async () => {
		server = await startServer(install(), {port: server.port, maxTokens: 700});
		const restarted = new Date().toISOString();
		const printed = resumeArgv(first.stderr);
		assert.ok(printed, `a resume command is printed:\n${first.stderr}`);
		// Issue 24 item 5 (durability engineer): the printed command carries the model flags (it printed only --name).
		const carries = printed.includes('--base-url') || printed.includes('--config') || printed.includes('--model');
		const argv = carries ? printed : [...printed, ...models(server)];
		const second = await cli(argv, ws);
		const sessions = sessionsIn(ws.sessions);
		assert.ok(second.code === 0 || second.code === 3, `${second.stderr}\n${describeSessions(sessions)}`);
		// Every item finished: completed, or failed for good in a way that is the tiny model's (a cut reply, off-schema after the re-asks).
		assert.equal(sessions.length, 4, describeSessions(sessions));
		assert.ok(sessions.every((session) => session.status === 'completed' || (session.status === 'error' && MODEL_FAILURES.has(session.error?.kind ?? ''))), describeSessions(sessions));
		const completed = sessions.filter((session) => session.status === 'completed').length;
		assert.ok(completed >= 1, describeSessions(sessions));
		// --include-mock: the judge ran on the mock, so the report would leave every session out.
		const report = await cli(['report', '--batch', 'kill', '--include-mock', '--json'], ws);
		assert.equal(report.code, 0, report.stderr);
		const body = JSON.parse(report.stdout) as {overall: {n: number; errors: number} | null; setups: unknown; cells: unknown; notes: unknown};
		assert.ok(body.overall, `one cell: ${JSON.stringify({setups: body.setups, cells: body.cells, notes: body.notes}).slice(0, 4000)}`);
		assert.equal(body.overall.n, completed, 'the report scores the completed sessions');
		assert.equal(body.overall.errors, 4 - completed, 'and counts the others as errors');
		// Resets while the server was being killed are real; those on the server that stayed up are the keep-alive defect.
		assert.deepEqual(resetRetries(realCalls(sessions).filter((call) => call.startedAt >= restarted)), [], 'no ECONNRESET retries (issue 24 item 1, transport engineer)');
		assert.ok(carries, `the printed resume command carries the model flags: ${printed.join(' ')}`);
	});
});
