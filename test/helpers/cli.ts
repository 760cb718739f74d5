import {PassThrough} from 'node:stream';
import {main, type MainOptions} from '../../src/main.js';
import type {IO} from '../../src/commands/types.js';

export type CliResult = {code: number; stdout: string; stderr: string};

/** Runs the CLI in-process with captured streams; env defaults keep tests offline and out of the repo. */
export async function runCli(argv: string[], options: {env?: NodeJS.ProcessEnv; cwd?: string; stdin?: string; tty?: boolean; main?: MainOptions; signal?: AbortSignal} = {}): Promise<CliResult> {
	const stdout = new PassThrough() as PassThrough & {isTTY?: boolean; columns?: number};
	const stderr = new PassThrough();
	const stdin = new PassThrough() as PassThrough & {isTTY?: boolean};
	if (options.tty) {
		stdout.isTTY = true;
		stdin.isTTY = true;
		stdout.columns = 160;
	}
	let out = '';
	let err = '';
	stdout.on('data', (chunk: Buffer) => (out += chunk.toString('utf8')));
	stderr.on('data', (chunk: Buffer) => (err += chunk.toString('utf8')));
	// A non-terminal stdin with nothing to say is an ended stream, as when a command is piped.
	if (options.stdin !== undefined) stdin.end(options.stdin);
	else if (!options.tty) stdin.end();
	const io: IO = {stdout, stderr, stdin, env: {...testEnv(), ...options.env}, cwd: options.cwd ?? process.cwd(), signal: options.signal};
	const code = await main(argv, io, options.main);
	await new Promise((resolve) => setImmediate(resolve));
	return {code, stdout: out, stderr: err};
}

/** Environment for tests: no real endpoint, hash embeddings, a throwaway workspace unless a test sets one. */
export function testEnv(): NodeJS.ProcessEnv {
	return {
		PATH: process.env['PATH'],
		HOME: process.env['HOME'],
		CULTURECONVERSE_EMBEDDER: 'hash',
		CULTURECONVERSE_HOME: process.env['CC_TEST_HOME'] ?? '/tmp/cultureconverse-test-home',
	};
}

export function parseJson<T = unknown>(text: string): T {
	return JSON.parse(text) as T;
}
