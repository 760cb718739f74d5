import {mkdtempSync, readdirSync, rmSync, writeFileSync} from 'node:fs';
import {tmpdir} from 'node:os';
import path from 'node:path';
import type {Session} from '../../src/domain/session.js';
import {readSession} from '../../src/store/sessionStore.js';
import {type CliResult, runCli} from './cli.js';

/**
 * Working folders for CLI tests against loopback servers: each folder has a config file (quick retries
 * merged with the test's own settings) and its own sessions; `home` is the workspace they share (KB
 * indexes built once, the capabilities record) unless a test names its own. `cleanup` removes them all.
 */
export function cliWorkspace(options: {prefix: string; retry?: {maxAttempts: number}}) {
	const dirs: string[] = [];
	const home = mkdtempSync(path.join(tmpdir(), `${options.prefix}home-`));
	dirs.push(home);
	const retry = {maxAttempts: options.retry?.maxAttempts ?? 2, baseDelayMs: 1, maxDelayMs: 5};
	return {
		home,
		/** A new working folder with `cultureconverse.config.json` holding `config` (after quick retries). */
		folder(config: Record<string, unknown> = {}): string {
			const dir = mkdtempSync(path.join(tmpdir(), options.prefix));
			dirs.push(dir);
			writeFileSync(path.join(dir, 'cultureconverse.config.json'), JSON.stringify({retry, ...config}));
			return dir;
		},
		/** The CLI in `dir`, its sessions in `dir/sessions`, the shared workspace unless `env` names another. */
		cli(dir: string, args: string[], env: NodeJS.ProcessEnv = {}): Promise<CliResult> {
			return runCli([...args, '--sessions-dir', path.join(dir, 'sessions')], {cwd: dir, env: {CULTURECONVERSE_HOME: home, ...env}});
		},
		/** Every session file (snapshot) in `dir/sessions`. */
		sessions(dir: string): Session[] {
			const folderPath = path.join(dir, 'sessions');
			return readdirSync(folderPath)
				.filter((file) => file.endsWith('.json') && !file.startsWith('.'))
				.map((file) => readSession(path.join(folderPath, file)));
		},
		cleanup(): void {
			for (const dir of dirs) rmSync(dir, {recursive: true, force: true});
		},
	};
}
