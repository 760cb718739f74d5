import assert from 'node:assert/strict';
import {type ChildProcess, spawn} from 'node:child_process';
import path from 'node:path';
import {setTimeout as sleep} from 'node:timers/promises';

/** The binary from the sources, with tsx by its file URL (so it also starts from a folder outside the repository). */
export const CLI = ['--import', import.meta.resolve('tsx'), path.resolve(import.meta.dirname, '../../src/cli.tsx')];

export type Proc = {child: ChildProcess; stdout: () => string; stderr: () => string; exited: Promise<number | null>};

/** The CLI in a process of its own, its output collected as it comes. */
export function startCli(args: string[], env: NodeJS.ProcessEnv, cwd: string): Proc {
	const child = spawn(process.execPath, [...CLI, ...args], {cwd, env, stdio: ['ignore', 'pipe', 'pipe']});
	let out = '';
	let err = '';
	child.stdout!.on('data', (chunk: Buffer) => (out += chunk.toString()));
	child.stderr!.on('data', (chunk: Buffer) => (err += chunk.toString()));
	const exited = new Promise<number | null>((resolve) => child.on('close', (code) => resolve(code)));
	return {child, stdout: () => out, stderr: () => err, exited};
}

/** Awaits a condition (never a fixed sleep), failing with what the processes said when it does not come. */
export async function until(what: string, condition: () => boolean, context: () => string, timeoutMs = 60_000): Promise<void> {
	const deadline = Date.now() + timeoutMs;
	while (!condition()) {
		if (Date.now() > deadline) assert.fail(`timed out waiting for ${what}\n${context().slice(-4000)}`);
		await sleep(50);
	}
}
