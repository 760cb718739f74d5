import {mkdtempSync, rmSync, writeFileSync} from 'node:fs';
import {tmpdir} from 'node:os';
import path from 'node:path';
import {PassThrough} from 'node:stream';
import {createRuntime, type Runtime} from '../../src/app/runtime.js';
import {runtimeOptionsFromFlags} from '../../src/commands/runtimeFlags.js';
import type {IO} from '../../src/commands/types.js';
import {loadUniverse, type Universe} from '../../src/universe/load.js';
import {startFakeOpenAI, type FakeOpenAI} from './fakeOpenAI.js';

let universe: Universe | undefined;
export const sharedUniverse = () => (universe ??= loadUniverse());

/** Model names the harness server offers: the default one and the other judges and assistants tests switch to. */
export const HARNESS_MODELS = ['fake-model', 'judge-b', 'judge-c', 'judge-d', 'judge-e', 'judge-z', 'other-judge', 'other', 'judge-1', 'judge-2', 'judge-x', 'sim-y', 'model-a', 'gpt-5-nano'];

/** The API key tests use; it must never appear in any file the harness writes. */
export const TEST_API_KEY = 'sk-test-7c1f-never-on-disk';

export type Harness = {
	fake: FakeOpenAI;
	cwd: string;
	home: string;
	sessionsDir: string;
	env: NodeJS.ProcessEnv;
	io: IO;
	runtime: (flags?: Record<string, unknown>) => Runtime;
	/** Stops the server and removes the folders (call from a top-level `after`). */
	close: () => Promise<void>;
};

/**
 * A loopback OpenAI-compatible server, a temp working folder with a config file that keeps retries
 * fast, and runtimes built exactly as the CLI builds them (real openai client over HTTP).
 */
export async function episodeHarness(): Promise<Harness> {
	// The models the server offers, as GET /v1/models lists them (the preflight checks every role's model against it).
	const fake = await startFakeOpenAI({models: HARNESS_MODELS});
	// Not tempDir(): its cleanup hook would fire as soon as a `before` hook that created it returns.
	const cwd = mkdtempSync(path.join(tmpdir(), 'cc-engine-'));
	const home = path.join(cwd, '.cultureconverse');
	const sessionsDir = path.join(cwd, 'sessions');
	writeFileSync(path.join(cwd, 'cultureconverse.config.json'), JSON.stringify({model: 'fake-model', retry: {maxAttempts: 3, baseDelayMs: 2, maxDelayMs: 10}, cache: false, roles: {assistant: {timeoutMs: 5000}}}));
	const env: NodeJS.ProcessEnv = {OPENAI_BASE_URL: fake.baseURL, OPENAI_API_KEY: TEST_API_KEY, CULTURECONVERSE_EMBEDDER: 'hash', CULTURECONVERSE_HOME: home, PATH: process.env['PATH']};
	const io: IO = {stdout: new PassThrough(), stderr: new PassThrough(), stdin: new PassThrough(), env, cwd};
	return {
		fake,
		cwd,
		home,
		sessionsDir,
		env,
		io,
		runtime: (flags = {}) => createRuntime({options: runtimeOptionsFromFlags({sessionsDir, ...flags} as never), io, universe: sharedUniverse()}),
		close: async () => {
			await fake.close();
			rmSync(cwd, {recursive: true, force: true});
		},
	};
}
