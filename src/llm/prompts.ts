import {existsSync, readdirSync, readFileSync} from 'node:fs';
import path from 'node:path';
import type {ChatMessage} from '../domain/session.js';
import {shortHash} from '../util/hash.js';
import {packageRoot} from '../util/paths.js';
import type {RenderedPrompt} from './types.js';

/*
 * A prompt is a folder prompts/<id>/ holding system.md and/or user.md (see prompts/README.md).
 * Variables are {{lower_snake_case}}; {{UPPER_CASE}} slots belong to templates and pass through.
 */

const PART_FILES = [
	{role: 'system', file: 'system.md'},
	{role: 'user', file: 'user.md'},
] as const;

/** A prompt variable: `{{name}}` with a lower_snake_case name. Anything else in braces is left alone. */
const PLACEHOLDER = /\{\{([a-z][a-z0-9_]*)\}\}/g;
const ID = /^[a-z0-9][a-z0-9_-]*(?:\/[a-z0-9][a-z0-9_-]*)*$/;

export type PromptOptions = {
	/** Folder holding the prompts. @default `<package root>/prompts` */
	readonly root?: string;
};

type PromptFile = {readonly role: ChatMessage['role']; readonly file: string; readonly raw: string; readonly body: string};

/** Prompt files never change during a run, so each is read once per process. */
const fileCache = new Map<string, readonly PromptFile[]>();

export function promptsRoot(options: PromptOptions = {}): string {
	return options.root ?? path.join(packageRoot(), 'prompts');
}

/**
 * Renders prompt `id` with `values`. Substitution is a single pass over the file text, so a value
 * that itself contains `{{...}}` (templates carry `{{UPPER_SLOTS}}`) is inserted verbatim and never
 * expanded. A placeholder without a value is an error naming the file, never an empty string.
 *
 * @example
 * renderPrompt('judge/honesty', {context, transcript})
 */
export function renderPrompt(id: string, values: Readonly<Record<string, string>>, options: PromptOptions = {}): RenderedPrompt {
	const messages: ChatMessage[] = loadPrompt(id, options).map((part) => ({
		role: part.role,
		content: part.body.replace(PLACEHOLDER, (_match, name: string) => {
			const value = Object.hasOwn(values, name) ? values[name] : undefined;
			if (typeof value !== 'string') throw new Error(`Prompt ${part.file}: placeholder {{${name}}} has no value (given: ${Object.keys(values).join(', ') || 'none'}).`);
			return value;
		}),
	}));
	return {id, messages, hash: shortHash(JSON.stringify(messages))};
}

/** The lower_snake_case placeholders a prompt uses (for checks and docs). */
export function promptPlaceholders(id: string, options: PromptOptions = {}): string[] {
	const names = new Set<string>();
	for (const part of loadPrompt(id, options)) for (const match of part.body.matchAll(PLACEHOLDER)) names.add(match[1]!);
	return [...names].sort();
}

const versionCache = new Map<string, Readonly<Record<string, string>>>();

/**
 * Prompt id -> hash of its raw files, for every prompt under the root (recorded with each session).
 * Computed once per process and root: it walked prompts/ for every episode.
 */
export function promptVersions(options: PromptOptions = {}): Record<string, string> {
	const root = promptsRoot(options);
	const known = versionCache.get(root);
	if (known) return {...known};
	const versions: Record<string, string> = {};
	for (const id of listPromptIds(root)) versions[id] = shortHash(loadPrompt(id, options).map((part) => `${part.role}\0${part.raw}`).join('\0'));
	versionCache.set(root, versions);
	return {...versions};
}

/** Ids of every folder under `root` that holds a system.md or user.md, sorted. */
export function listPromptIds(root: string): string[] {
	if (!existsSync(root)) return [];
	const ids: string[] = [];
	const walk = (dir: string, prefix: string) => {
		const entries = readdirSync(dir, {withFileTypes: true});
		if (prefix && entries.some((entry) => entry.isFile() && PART_FILES.some((part) => part.file === entry.name))) ids.push(prefix);
		for (const entry of entries) if (entry.isDirectory() && !entry.name.startsWith('.')) walk(path.join(dir, entry.name), prefix ? `${prefix}/${entry.name}` : entry.name);
	};
	walk(root, '');
	return ids.sort();
}

function loadPrompt(id: string, options: PromptOptions): readonly PromptFile[] {
	if (!ID.test(id)) throw new Error(`Prompt id '${id}' is not valid (lower-case folder names separated by '/').`);
	const dir = path.join(promptsRoot(options), ...id.split('/'));
	const cached = fileCache.get(dir);
	if (cached) return cached;
	const parts: PromptFile[] = [];
	for (const {role, file} of PART_FILES) {
		const full = path.join(dir, file);
		if (!existsSync(full)) continue;
		const raw = readFileSync(full, 'utf8');
		const body = stripNotes(raw);
		const odd = [...body.matchAll(/\{\{([^{}]*)\}\}/g)].map((match) => match[1]!).filter((name) => !/^[a-z][a-z0-9_]*$/.test(name) && !/^[A-Z][A-Z0-9_]*$/.test(name));
		// A {{camelCase}} marker would otherwise reach the model unfilled without a word.
		if (odd.length > 0) throw new Error(`Prompt ${full}: {{${odd[0]}}} is neither a prompt variable (lower_snake_case) nor a template slot (UPPER_SNAKE_CASE).`);
		parts.push({role, file: full, raw, body});
	}
	if (parts.length === 0) throw new Error(`Prompt '${id}' not found: expected ${path.join(dir, 'system.md')} and/or user.md.`);
	fileCache.set(dir, parts);
	return parts;
}

/**
 * Drops leading `<!-- ... -->` notes (for prompt authors, never sent to a model) and surrounding
 * blank lines.
 */
export function stripNotes(raw: string): string {
	let text = raw.replace(/^\uFEFF/, '');
	for (;;) {
		const match = /^\s*<!--[\s\S]*?-->/.exec(text);
		if (!match) break;
		text = text.slice(match[0].length);
	}
	return text.trim();
}
