import assert from 'node:assert/strict';
import {readdirSync, readFileSync} from 'node:fs';
import path from 'node:path';
import {describe, it} from 'node:test';
import {fileURLToPath} from 'node:url';
import ts from 'typescript';

/*
 * The core knows no face: the folders below take plain option objects and core types (util/streams.ts)
 * and import nothing from the command line (src/commands/), the TUI (src/tui/), the entry points, Ink,
 * React or meow, not even a type. Every import form counts: static, `import type`, re-exports,
 * dynamic `import()`, `require()` and `typeof import()`.
 * Not listed: src/html (reportPage.ts still takes its agreement data's type from commands/reportAgreement.ts).
 */

const SRC = path.join(path.dirname(fileURLToPath(import.meta.url)), '..', 'src');
const CORE = ['llm', 'app', 'batch', 'queue', 'episode', 'domain', 'report', 'store', 'kb', 'pipeline', 'situated', 'util', 'export', 'mock', 'universe', 'present', 'html', 'lang'];
const FACE_DIRS = ['commands', 'tui'].map((dir) => path.join(SRC, dir));
const FACE_FILES = ['cli.tsx', 'main.ts'].map((file) => path.join(SRC, file));
const FACE_PACKAGES = new Set(['ink', 'react', 'meow']);

/** Every module specifier a source text imports, in any form. */
function importsOf(text: string): string[] {
	return ts.preProcessFile(text, true, true).importedFiles.map((file) => file.fileName);
}

/** Why importing `specifier` from `file` breaks the rule, or null. */
function faceImport(file: string, specifier: string): string | null {
	if (specifier.startsWith('.')) {
		const target = path.resolve(path.dirname(file), specifier);
		if (FACE_DIRS.some((dir) => target === dir || target.startsWith(`${dir}${path.sep}`))) return `${specifier} (${path.relative(SRC, target)})`;
		if (FACE_FILES.some((face) => target.replace(/\.js$/, '') === face.replace(/\.tsx?$/, ''))) return `${specifier} (an entry point)`;
		return null;
	}
	// 'react/jsx-runtime', 'ink-text-input' and '@scope/...' forms: the package is the first segment (or two).
	const parts = specifier.split('/');
	const name = specifier.startsWith('@') ? parts.slice(0, 2).join('/') : parts[0]!;
	if (FACE_PACKAGES.has(name) || name.startsWith('ink-')) return specifier;
	return null;
}

function sourceFiles(dir: string): string[] {
	return readdirSync(dir, {withFileTypes: true}).flatMap((entry) => {
		const full = path.join(dir, entry.name);
		if (entry.isDirectory()) return sourceFiles(full);
		return entry.isFile() && /\.tsx?$/.test(entry.name) ? [full] : [];
	});
}

describe('architecture: the core imports no face', () => {
	it('reads every form of import (a parser that missed one would pass everything)', () => {
		const text = [
			"import type {IO} from '../commands/types.js';",
			"export {x} from '../tui/view/x.js';",
			"const tui = await import('../tui/App.js');",
			"const meow = require('meow');",
			"type Box = typeof import('ink');",
			"import {jsx} from 'react/jsx-runtime';",
			"import {ok} from '../util/errors.js';",
		].join('\n');
		const file = path.join(SRC, 'app', 'planted.ts');
		const found = importsOf(text).map((specifier) => faceImport(file, specifier));
		assert.deepEqual(found, ['../commands/types.js (commands/types.js)', '../tui/view/x.js (tui/view/x.js)', '../tui/App.js (tui/App.js)', 'meow', 'ink', 'react/jsx-runtime', null]);
		assert.equal(faceImport(path.join(SRC, 'batch', 'x.ts'), '../cli.js'), '../cli.js (an entry point)');
		// A core folder whose name begins like a face folder is not the face.
		assert.equal(faceImport(path.join(SRC, 'app', 'x.ts'), '../commandsLike/x.js'), null);
	});

	for (const dir of CORE) {
		it(`src/${dir} imports nothing from src/commands, src/tui, the entry points, ink, react or meow`, () => {
			const files = sourceFiles(path.join(SRC, dir));
			assert.ok(files.length > 0, `src/${dir} has no source files`);
			let imports = 0;
			const problems: string[] = [];
			for (const file of files) {
				for (const specifier of importsOf(readFileSync(file, 'utf8'))) {
					imports++;
					const why = faceImport(file, specifier);
					if (why) problems.push(`${path.relative(SRC, file)} imports ${why}`);
				}
			}
			assert.ok(imports > 0, `no imports were read in src/${dir}`);
			assert.deepEqual(problems, [], `the core takes plain options; move the flag handling to src/commands/:\n${problems.join('\n')}`);
		});
	}
});
