#!/usr/bin/env node
// Thin launcher: the compiled entry lives in dist/ (built by `npm ci` through the prepare script).
import {existsSync} from 'node:fs';
import {fileURLToPath} from 'node:url';

const entry = new URL('../dist/cli.js', import.meta.url);
if (!existsSync(fileURLToPath(entry))) {
	console.error('cultureconverse: dist/cli.js is missing. Run `npm run build` (or `npm ci`) in the project folder first.');
	process.exit(70);
}
await import(entry.href);
