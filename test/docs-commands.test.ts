import assert from 'node:assert/strict';
import {readdirSync, readFileSync} from 'node:fs';
import path from 'node:path';
import {describe, it} from 'node:test';
import {COMMANDS} from '../src/commands/registry.js';
import {runCli} from './helpers/cli.js';
import {tempDir} from './helpers/tmp.js';

/*
 * The manual runs as written (issue 22, item 8). Every command example in README.md and docs/*.md
 * (shell blocks and inline code) is extracted; each must say `npx cultureconverse` (a bare
 * `cultureconverse` is not on PATH after `npm ci`), name a real command and only options that command
 * takes (checked by the CLI's own flag check: the line with --help appended exits 0, an unknown command
 * or option exits 2). The offline examples that need no saved state are then run as written, in a
 * fresh folder on the mock. docs/reference.md lists every command's options: it is checked here
 * against the commands' own flag specs (the source of --help), both ways.
 */

const REPO = path.resolve(import.meta.dirname, '..');
const DOCS = ['README.md', ...readdirSync(path.join(REPO, 'docs')).filter((name) => name.endsWith('.md')).map((name) => `docs/${name}`)];

type Example = {readonly file: string; readonly line: number; readonly text: string};

/** Every `npx cultureconverse ...` in the docs, cut at a comment, a pipe, `&&` or the end of inline code; and every bare one. */
function examples(): {found: Example[]; bare: Example[]} {
	const found: Example[] = [];
	const bare: Example[] = [];
	for (const file of DOCS) {
		const lines = readFileSync(path.join(REPO, file), 'utf8').split('\n');
		let fence = false;
		lines.forEach((raw, index) => {
			if (/^\s*```/.test(raw)) {
				fence = !fence;
				return;
			}
			// Shell blocks: the whole line; prose: only inline code.
			const spans = fence ? [raw] : [...raw.matchAll(/`([^`]+)`/g)].map((match) => match[1]!);
			for (const span of spans) {
				for (const match of span.matchAll(/(?<![\w/.-])(npx )?cultureconverse( [^#|;`]*)?/g)) {
					const text = match[0].split('&&')[0]!.trim();
					if (!match[2] || /^cultureconverse ·/.test(text)) continue; // the package's name, a captured title line
					if (!match[1]) {
						if (/^ (tui|run|replay|batch|report|sessions|view|kb|doctor|rejudge|export|crisp|templates|personas|domains|seeds?|stages|schema|worker|blueprint|shards|--)/.test(match[2])) bare.push({file, line: index + 1, text});
						continue;
					}
					found.push({file, line: index + 1, text});
				}
			}
		});
	}
	return {found, bare};
}

/** The arguments of an example: quotes honoured, placeholders (<id>, [--opt ...], ...) made concrete or left out. */
function argsOf(text: string): string[] {
	// `--flag ...` stands for a value the reader fills in: a placeholder value, so the flag is still checked.
	const withoutOptional = text.replace(/\[[^\]]*\]/g, ' ').replace(/(--[\w-]+)\s+(\.\.\.|…)/g, '$1 X').replace(/\.\.\./g, ' ').replace(/…/g, ' ');
	const tokens = [...withoutOptional.matchAll(/"([^"]*)"|'([^']*)'|(\S+)/g)].map((match) => match[1] ?? match[2] ?? match[3]!);
	return tokens.slice(2).map((token) => token.replace(/<[^>]+>/g, 'X')).filter((token) => token !== '' && token !== '\\');
}

/** Examples that run offline with no saved state, in a fresh folder: what a reader tries first. */
const RUNNABLE = /^npx cultureconverse (personas|templates|seed|domains|schema|sessions|kb stats|blueprint|run --seed|run --persona)\b/;

describe('every command example of the manual', () => {
	const {found, bare} = examples();

	it('says npx cultureconverse (a bare cultureconverse is not on PATH after npm ci)', () => {
		assert.ok(found.length > 50, `only ${found.length} examples found`);
		assert.deepEqual(bare.map((example) => `${example.file}:${example.line}: ${example.text}`), []);
	});

	it('names a real command with options it takes (the CLI\'s own check, with --help appended)', async () => {
		const problems: string[] = [];
		for (const example of found) {
			const args = argsOf(example.text);
			const result = await runCli([...args, '--help'], {cwd: tempDir('cc-docs-')});
			if (result.code !== 0) problems.push(`${example.file}:${example.line}: ${example.text}\n    ${result.stderr.trim()}`);
		}
		assert.deepEqual(problems, []);
	});

	it('runs the offline examples as written, in a fresh folder on the mock', async () => {
		const cwd = tempDir('cc-docs-run-');
		const ran: string[] = [];
		const problems: string[] = [];
		const runnable = found.filter((example) => RUNNABLE.test(example.text) && !/[<[]|\.\.\.|--(model|base-url|\w+-model)\b/.test(example.text));
		const seen = new Set<string>();
		for (const example of runnable) {
			const command = argsOf(example.text).slice(0, 2).join(' ');
			if (seen.has(command)) continue; // one of each: the suite's time is shared
			seen.add(command);
			const result = await runCli(argsOf(example.text), {cwd});
			ran.push(example.text);
			if (result.code !== 0) problems.push(`${example.file}:${example.line}: ${example.text} -> exit ${result.code}: ${result.stderr.trim().slice(0, 300)}`);
		}
		assert.deepEqual(problems, []);
		assert.ok(ran.length >= 5, `only ${ran.length} examples ran: ${ran.join('; ')}`);
	});
});

describe('the CLI\'s own help', () => {
	it('says npx cultureconverse in every usage line, as the manual does', async () => {
		const bareIn = (text: string) => text.split('\n').filter((line) => /(?<!npx )\bcultureconverse (?!·)\S/.test(line));
		const problems: string[] = [];
		const main = await runCli(['--help'], {cwd: tempDir('cc-help-')});
		problems.push(...bareIn(main.stdout).map((line) => `--help: ${line.trim()}`));
		for (const entry of COMMANDS) {
			const help = await runCli([entry.name, '--help'], {cwd: tempDir('cc-help-')});
			assert.equal(help.code, 0, `${entry.name} --help`);
			assert.match(help.stdout, /\$ npx cultureconverse /, `${entry.name} --help shows usage lines`);
			problems.push(...bareIn(help.stdout).map((line) => `${entry.name} --help: ${line.trim()}`));
		}
		assert.deepEqual(problems, []);
	});
});

/** The option names (`--name`) in the table rows of each `### <command>` section of docs/reference.md, and the sections that defer to the model options. */
function referenceSections(): Map<string, {options: Set<string>; modelOptions: boolean}> {
	const text = readFileSync(path.join(REPO, 'docs', 'reference.md'), 'utf8');
	const sections = new Map<string, {options: Set<string>; modelOptions: boolean}>();
	let current: {options: Set<string>; modelOptions: boolean} | undefined;
	for (const line of text.split('\n')) {
		const heading = /^#{2,3} (.*)$/.exec(line);
		if (heading) {
			current = {options: new Set(), modelOptions: false};
			sections.set(heading[1]!.trim(), current);
			continue;
		}
		if (!current) continue;
		// The row's option is the first in its cell; a `(--no-name)` after it is the same option turned off.
		const option = line.startsWith('| `-') ? /`(?:-\w`?, `?)?--([\w-]+)/.exec(line) : null;
		if (option) current.options.add(option[1]!);
		if (/^And the \[model options\]/.test(line)) current.modelOptions = true;
	}
	return sections;
}

const kebab = (name: string) => name.replace(/[A-Z]/g, (letter) => `-${letter.toLowerCase()}`);

describe('docs/reference.md: every command with every option', () => {
	it('lists each command\'s options exactly, as its --help does', async () => {
		const sections = referenceSections();
		const model = sections.get('Model options');
		assert.ok(model && model.options.size > 10, 'a Model options section');
		const problems: string[] = [];
		for (const entry of COMMANDS) {
			const section = sections.get(entry.name);
			if (!section) {
				problems.push(`no section for ${entry.name}`);
				continue;
			}
			const command = await entry.load();
			const listed = new Set([...section.options, ...(section.modelOptions ? model.options : [])]);
			const real = new Set([...Object.keys(command.flags).map(kebab), 'help']);
			for (const name of real) if (!listed.has(name)) problems.push(`${entry.name}: --${name} is not listed`);
			for (const name of listed) if (!real.has(name)) problems.push(`${entry.name}: --${name} is listed but the command does not take it`);
		}
		assert.deepEqual(problems, []);
	});
});
