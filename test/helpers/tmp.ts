import {cpSync, mkdtempSync, rmSync} from 'node:fs';
import {tmpdir} from 'node:os';
import path from 'node:path';
import {after} from 'node:test';

/** A fresh temporary folder, removed when the test file finishes. */
export function tempDir(prefix = 'cc-test-'): string {
	const dir = mkdtempSync(path.join(tmpdir(), prefix));
	after(() => rmSync(dir, {recursive: true, force: true}));
	return dir;
}

/** A private copy of the shipped kb/ folder that a test may break on purpose. */
export function copyKb(): string {
	const dir = tempDir('cc-kb-');
	cpSync(path.resolve(import.meta.dirname, '../../kb'), path.join(dir, 'kb'), {recursive: true});
	return path.join(dir, 'kb');
}

/** A small shipped KB (the labelled eval fixture) and an empty user KB folder, for import tests. */
export function importLocation(prefix = 'cc-kb-import-'): {shippedDir: string; userDir: string} {
	const root = tempDir(prefix);
	const shippedDir = path.join(root, 'kb');
	cpSync(path.resolve(import.meta.dirname, '../fixtures/kb-eval'), shippedDir, {recursive: true});
	return {shippedDir, userDir: path.join(root, 'home', 'kb')};
}
