/* Services for TUI tests: the real ones, on the offline mock, in throwaway folders. */

import {mkdtempSync, rmSync} from 'node:fs';
import {tmpdir} from 'node:os';
import path from 'node:path';
import {PassThrough} from 'node:stream';
import type {Flags, IO} from '../../src/commands/types.js';
import {createServices, type TuiServices} from '../../src/tui/services.js';
import {loadUniverse, type Universe} from '../../src/universe/load.js';

let universe: Universe | undefined;
export const testUniverse = () => (universe ??= loadUniverse());

export type TuiFixture = {
	readonly dir: string;
	readonly sessionsDir: string;
	readonly env: NodeJS.ProcessEnv;
	readonly io: IO;
	services(flags?: Flags): TuiServices;
	close(): void;
};

/** Temp sessions and workspace folders, hash embeddings, no endpoint (so every role is the mock). */
export function tuiFixture(extraEnv: NodeJS.ProcessEnv = {}): TuiFixture {
	const dir = mkdtempSync(path.join(tmpdir(), 'cc-tui-'));
	const sessionsDir = path.join(dir, 'sessions');
	const env: NodeJS.ProcessEnv = {PATH: process.env['PATH'], CULTURECONVERSE_EMBEDDER: 'hash', CULTURECONVERSE_HOME: path.join(dir, 'home'), ...extraEnv};
	const io: IO = {stdout: new PassThrough(), stderr: new PassThrough(), stdin: new PassThrough(), env, cwd: dir};
	return {
		dir,
		sessionsDir,
		env,
		io,
		services: (flags = {}) => createServices(io, {sessionsDir, ...flags}, testUniverse()),
		close: () => rmSync(dir, {recursive: true, force: true}),
	};
}
