import {existsSync} from 'node:fs';
import path from 'node:path';
import {fileURLToPath} from 'node:url';

let root: string | undefined;

/**
 * The package root (holds package.json, kb/, prompts/), found from this module whether run from src/
 * or dist/. Found once per process: it was walked for every prompt rendered (2% of a batch's CPU).
 */
export function packageRoot(): string {
	return (root ??= findRoot());
}

function findRoot(): string {
	let dir = path.dirname(fileURLToPath(import.meta.url));
	for (;;) {
		if (existsSync(path.join(dir, 'package.json')) && existsSync(path.join(dir, 'kb'))) return dir;
		const parent = path.dirname(dir);
		if (parent === dir) throw new Error('cultureconverse: cannot find the package root (package.json next to kb/)');
		dir = parent;
	}
}

/**
 * The workspace folder for user data (imported KB entries, generated templates, built indexes, the
 * response cache). Defaults to `.cultureconverse/` in the working directory.
 */
export function workspaceDir(env: NodeJS.ProcessEnv = process.env, cwd = process.cwd()): string {
	return path.resolve(cwd, env['CULTURECONVERSE_HOME'] ?? '.cultureconverse');
}
