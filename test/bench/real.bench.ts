/**
 * Real-model benchmark (`npm run bench:real`): prints figures, asserts nothing.
 *
 * Runs the same small batch twice against the llama-server and model `npm run real:setup`
 * installed, once with `schemaFidelity: "portable"` (string length limits left out of every schema,
 * as before issue 24) and once with `"enforced"` (every keyword zod writes: llama.cpp's grammar then
 * enforces the limits), with the response cache off, and prints per role: structured calls, the
 * share valid on the first attempt, re-asks, failed calls by cause, completion tokens per second of
 * call time, and per run: wall time per episode and episodes completed out of N.
 *
 * Settings (env): BENCH_REAL_N episodes per fidelity (default 3), BENCH_REAL_TURNS user turns
 * (default 2), BENCH_REAL_MODEL serve | test (default serve: the better small model; test: the tiny
 * one), BENCH_REAL_STAGES real | mock (default real: the generator and validator run on the model
 * too; their blueprints carry most of the length limits), BENCH_REAL_FIDELITY (default
 * portable,enforced), BENCH_REAL_THREADS (llama-server -t, default 1).
 */
import {existsSync, mkdtempSync, readdirSync, rmSync, writeFileSync} from 'node:fs';
import {tmpdir} from 'node:os';
import path from 'node:path';
import {findInstall, forPurpose, startServer} from '../../scripts/real/lib.js';
import type {CallRecord, ModelRole, Session} from '../../src/domain/session.js';
import {readSession} from '../../src/store/sessionStore.js';
import {runCli} from '../helpers/cli.js';

const N = Number(process.env['BENCH_REAL_N'] ?? 3);
const turns = process.env['BENCH_REAL_TURNS'] ?? '2';
const purpose = process.env['BENCH_REAL_MODEL'] === 'test' ? 'test' : 'serve';
const realStages = (process.env['BENCH_REAL_STAGES'] ?? 'real') === 'real';
const fidelities = (process.env['BENCH_REAL_FIDELITY'] ?? 'portable,enforced').split(',') as Array<'portable' | 'enforced'>;
const found = findInstall();
if (!found.ok) {
	process.stderr.write(`bench:real: ${found.reason}\n`);
	process.exit(1);
}
const install = forPurpose(found.install, purpose);
const work = mkdtempSync(path.join(tmpdir(), 'cc-bench-real-'));
const server = await startServer(install, {maxTokens: 2048, threads: Number(process.env['BENCH_REAL_THREADS'] ?? 1)});
process.stdout.write(`bench:real: ${install.model.name} (${install.model.id}) on llama-server ${server.baseURL} (${server.args.join(' ')})\n`);
process.stdout.write(`  ${N} episode(s) per fidelity, --max-turns ${turns}, judge combined, generator and validator ${realStages ? 'on the model' : 'on the mock'}, cache off\n\n`);

type Row = {role: ModelRole; structured: number; firstTry: number; reasks: number; failed: Record<string, number>; completionTokens: number; callMs: number};

/** The cause of a failed call, from its record's error text (the kinds of llm/types.ts FailureKind). */
function cause(call: CallRecord): string {
	const error = call.error ?? '';
	if (/invalid output/.test(error)) return 'invalid_output';
	if (/truncated/.test(error)) return 'truncated';
	if (/context/i.test(error)) return 'context_length';
	if (/timed? ?out/i.test(error)) return 'timeout';
	if (/network|ECONN|socket/i.test(error)) return 'network';
	if (/empty/.test(error)) return 'empty';
	return error.split(/[:(]/)[0]?.trim().slice(0, 30) || 'other';
}

function rows(calls: readonly CallRecord[]): Row[] {
	const byRole = new Map<ModelRole, Row>();
	for (const call of calls) {
		if (call.provider !== 'openai' || call.cached) continue;
		const row = byRole.get(call.role) ?? {role: call.role, structured: 0, firstTry: 0, reasks: 0, failed: {}, completionTokens: 0, callMs: 0};
		if (call.responseFormat !== 'text') {
			row.structured++;
			if (call.ok && call.validationRetries === 0) row.firstTry++;
			row.reasks += call.validationRetries;
		}
		if (!call.ok) row.failed[cause(call)] = (row.failed[cause(call)] ?? 0) + 1;
		row.completionTokens += call.tokens.completion;
		row.callMs += call.latencyMs;
		byRole.set(call.role, row);
	}
	return [...byRole.values()];
}

const pct = (part: number, whole: number) => (whole === 0 ? '-' : `${Math.round((100 * part) / whole)}%`);
const results: Array<{fidelity: string; completed: number; n: number; wallS: number; rows: Row[]; blueprintAttempts: number[]}> = [];
try {
	for (const fidelity of fidelities) {
		const dir = path.join(work, fidelity);
		const config = path.join(work, `${fidelity}.config.json`);
		writeFileSync(
			config,
			JSON.stringify({
				schemaFidelity: fidelity,
				cache: false,
				// A long per-attempt timeout: a blueprint takes minutes on a loaded 2-core machine, and a timed-out attempt starts again from nothing.
				roles: Object.fromEntries(
					Object.entries({generator: {maxTokens: 2048, temperature: 0.2}, validator: {maxTokens: 600, temperature: 0}, simulator: {maxTokens: 300, temperature: 0.3}, assistant: {maxTokens: 900, temperature: 0}, judge: {maxTokens: 900, temperature: 0}}).map(([role, settings]) => [role, {...settings, timeoutMs: 900_000, extraBody: {repeat_penalty: 1.15}}]),
				),
			}),
		);
		const started = Date.now();
		const argv = ['batch', '--name', `bench-${fidelity}`, '--persona', 'my-malay-muslim-a35-f', '--sample', String(N), '--max-turns', turns, '--judge-mode', 'combined', '--parallel', '2', '--stop-after', '0', '--json', '--base-url', server.baseURL, '--model', server.modelId, '--config', config, ...(realStages ? [] : ['--generator-model', 'mock', '--validator-model', 'mock'])];
		const result = await runCli(argv, {cwd: work, env: {CULTURECONVERSE_HOME: path.join(work, 'home'), CULTURECONVERSE_SESSIONS_DIR: dir}});
		const wallS = (Date.now() - started) / 1000;
		const sessions: Session[] = (existsSync(dir) ? readdirSync(dir) : [])
			.filter((file) => /^[^.].*\.json$/.test(file))
			.map((file) => readSession(path.join(dir, file)));
		if (sessions.length === 0) process.stderr.write(`bench:real: the ${fidelity} batch left no sessions (exit ${result.code}):\n${result.stderr.slice(-2000)}\n`);
		results.push({fidelity, completed: sessions.filter((session) => session.status === 'completed').length, n: N, wallS, rows: rows(sessions.flatMap((session) => session.calls)), blueprintAttempts: sessions.map((session) => session.blueprint?.meta.attempts.length ?? 0)});
	}
} finally {
	await server.stop();
	rmSync(work, {recursive: true, force: true});
}

for (const result of results) {
	process.stdout.write(`schemaFidelity ${result.fidelity}: ${result.completed}/${result.n} episodes completed, ${(result.wallS / result.n).toFixed(0)} s wall per episode (${result.wallS.toFixed(0)} s in all, 2 in flight); blueprint generations per episode ${result.blueprintAttempts.join(', ') || '-'}\n`);
	process.stdout.write('  role        structured  valid 1st try  re-asks  failed calls (by cause)        tokens/s (completion / call time)\n');
	for (const row of result.rows) {
		const failed = Object.entries(row.failed).map(([kind, count]) => `${kind} ${count}`).join(', ') || '0';
		process.stdout.write(`  ${row.role.padEnd(10)}  ${String(row.structured).padStart(10)}  ${pct(row.firstTry, row.structured).padStart(13)}  ${String(row.reasks).padStart(7)}  ${failed.padEnd(30)}  ${row.callMs > 0 ? (row.completionTokens / (row.callMs / 1000)).toFixed(1) : '-'}\n`);
	}
	process.stdout.write('\n');
}
process.stdout.write('Figures exclude cached and mock calls; "valid 1st try" counts structured calls whose first reply validated; tokens/s includes prompt processing and queueing inside each call.\n');
process.stdout.write(`${JSON.stringify({bench: 'real', model: install.model.id, results})}\n`);
