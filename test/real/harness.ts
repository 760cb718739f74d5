/**
 * Shared set-up of the real-server tests: the llama-server and tiny model `npm run real:setup`
 * installed (skipped with the reason when they are not there, or with CULTURECONVERSE_REAL=off), one
 * server per test file on a free loopback port, a workspace and config in a temporary folder, and
 * readers for what the tests assert on (sessions and their call records).
 */
import {readdirSync, readFileSync, writeFileSync} from 'node:fs';
import path from 'node:path';
import {type Install, type RunningServer, type ServeOptions, findInstall, forPurpose, startServer} from '../../scripts/real/lib.js';
import type {CallRecord, Session} from '../../src/domain/session.js';
import {readSession} from '../../src/store/sessionStore.js';
import {type CliResult, runCli} from '../helpers/cli.js';
import {tempDir} from '../helpers/tmp.js';

const found = process.env['CULTURECONVERSE_REAL'] === 'off' ? {ok: false as const, reason: 'CULTURECONVERSE_REAL=off'} : findInstall();

/** `describe(..., {skip})`: false when the real server can run, else the reason, shown by the test runner. */
export const skip: string | false = found.ok ? false : `real llama-server tests skipped: ${found.reason}`;

/** The install with the tests' model (the tiny one), or with the serve model (`purpose: 'serve'`). */
export function install(purpose: 'serve' | 'test' = 'test'): Install {
	if (!found.ok) throw new Error(found.reason);
	return forPurpose(found.install, purpose);
}

/**
 * A llama-server for a test file; the caller stops it (an `after` at suite level: one registered
 * inside a `before` hook would run as soon as that hook ends). Every server started is also stopped
 * when the test process exits, so none outlives a failed run.
 */
export async function realServer(options: ServeOptions & {purpose?: 'serve' | 'test'} = {}): Promise<RunningServer> {
	const server = await startServer(install(options.purpose), {maxTokens: 700, ...options});
	live.add(server);
	server.child.once('exit', () => live.delete(server));
	return server;
}

const live = new Set<RunningServer>();
process.once('exit', () => {
	for (const server of live) server.child.kill('SIGKILL');
});

/**
 * A workspace: a folder with a config file (per-role reply caps sized for a tiny model, a generous
 * per-attempt timeout, since a judge prompt of about 4,000 tokens takes minutes on a loaded 2-core
 * machine, the assistant's server honouring `n`) and a sessions folder. `roles` adds to or overrides
 * the roles' config, `top` sets top-level config fields (baseURL, model).
 */
export function workspace(options: {roles?: Record<string, Record<string, unknown>>; top?: Record<string, unknown>} = {}): {dir: string; sessions: string; config: string; env: NodeJS.ProcessEnv} {
	const dir = tempDir('cc-real-');
	const config = path.join(dir, 'cultureconverse.config.json');
	const timeoutMs = 600_000;
	const base: Record<string, Record<string, unknown>> = {
		// repeat_penalty (llama.cpp sampling): without it the tiny model sometimes never stops, and a cut reply fails the episode.
		simulator: {maxTokens: 300, temperature: 0.3, timeoutMs, extraBody: {repeat_penalty: 1.15}},
		assistant: {maxTokens: 900, supportsN: true, temperature: 0, timeoutMs, extraBody: {repeat_penalty: 1.15}},
		judge: {maxTokens: 700, temperature: 0, timeoutMs},
		generator: {maxTokens: 1500, timeoutMs},
		validator: {maxTokens: 700, timeoutMs},
	};
	const merged = Object.fromEntries(Object.entries(base).map(([role, value]) => [role, {...value, ...options.roles?.[role]}]));
	// Two retries with short backoff: a dead server is found out in seconds, not minutes.
	// Three re-asks: the tiny model's first structured reply is often off (and that is what they are for).
	writeFileSync(config, JSON.stringify({...options.top, validationRetries: 3, roles: merged, retry: {maxAttempts: 3, baseDelayMs: 200, maxDelayMs: 1000}}, null, '\t'));
	return {dir, sessions: path.join(dir, 'sessions'), config, env: {CULTURECONVERSE_HOME: path.join(dir, 'home'), CULTURECONVERSE_SESSIONS_DIR: path.join(dir, 'sessions')}};
}

/** The flags that point every role at the server (generator and validator on the mock unless `realStages`). */
export function modelArgs(server: Pick<RunningServer, 'baseURL' | 'modelId'>, ws: {config: string}, options: {realStages?: boolean} = {}): string[] {
	return ['--base-url', server.baseURL, '--model', server.modelId, '--config', ws.config, ...(options.realStages ? [] : ['--generator-model', 'mock', '--validator-model', 'mock'])];
}

/** The CLI in this process, in the workspace. */
export function cli(argv: string[], ws: {dir: string; env: NodeJS.ProcessEnv}, options: {signal?: AbortSignal} = {}): Promise<CliResult> {
	return runCli(argv, {cwd: ws.dir, env: ws.env, signal: options.signal});
}

/** Every session saved in a sessions folder (snapshots and journals). */
export function sessionsIn(dir: string): Session[] {
	let files: string[] = [];
	try {
		files = readdirSync(dir).filter((file) => /\.(json|journal\.jsonl)$/.test(file) && !file.startsWith('.'));
	} catch {
		return [];
	}
	return files.map((file) => readSession(path.join(dir, file)));
}

/** Calls that went to the real server (not the mock). */
export function realCalls(sessions: readonly Session[]): CallRecord[] {
	return sessions.flatMap((session) => session.calls).filter((call) => call.provider === 'openai');
}

/**
 * Retries caused by a reset connection (issue 24 item 1: llama-server closes the connection after a
 * streamed reply while advertising keep-alive, and a reused socket fails). Zero once the transport fix
 * (retry once on a fresh connection, or drop the socket after an event stream) is merged.
 */
export function resetRetries(calls: readonly CallRecord[]): string[] {
	return calls.flatMap((call) => call.retries.filter((retry) => /ECONNRESET|socket hang up/i.test(retry.reason)).map((retry) => `${call.stage}: ${retry.reason}`));
}

/**
 * Failures that are the model's, not the tool's or the server's: a tiny model may cut a reply, write
 * off-schema after every re-ask or answer in the wrong language. A real-server test may end in one of
 * these (and then checks what the tool did about it); never in a network, parameter or internal error.
 */
export const MODEL_FAILURES: ReadonlySet<string> = new Set(['truncated', 'invalid_output', 'empty']);

/** Each session's id, status and error, for a failure message. */
export function describe(sessions: readonly Session[]): string {
	return sessions.map((session) => `${session.id}: ${session.status}${session.error ? ` ${session.error.flag}: ${session.error.message}` : ''}`).join('\n');
}

export function readJson<T>(file: string): T {
	return JSON.parse(readFileSync(file, 'utf8')) as T;
}
