import assert from 'node:assert/strict';
import {mkdirSync, writeFileSync} from 'node:fs';
import path from 'node:path';
import {describe, it} from 'node:test';
import {listPromptIds, promptPlaceholders, promptVersions, renderPrompt} from '../src/llm/prompts.js';
import {shortHash} from '../src/util/hash.js';
import {tempDir} from './helpers/tmp.js';

/** A prompts folder with the given files (path relative to the root -> text). */
function promptsRoot(files: Record<string, string>): string {
	const root = tempDir('cc-prompts-');
	for (const [file, text] of Object.entries(files)) {
		mkdirSync(path.dirname(path.join(root, file)), {recursive: true});
		writeFileSync(path.join(root, file), text);
	}
	return root;
}

const root = promptsRoot({
	'blueprint/system.md': '<!-- why: the generator must not see the oracle format -->\nYou write scenarios for {{persona}}.\nKeep {{SLOT}} markers as they are.\n',
	'blueprint/user.md': 'Template:\n{{template}}\n\nEvidence:\n{{evidence}}\n',
	'judge/honesty/system.md': 'Judge honesty.\n',
	'judge/honesty/user.md': '{{transcript}}',
	'assistant/system.md': 'You are a helpful assistant.',
});

describe('llm prompts', () => {
	it('renders system and user messages with named values', () => {
		const prompt = renderPrompt('blueprint', {persona: 'a Malay Muslim grandmother', template: 'Plan a meal for {{GUESTS}}', evidence: 'halal rules'}, {root});
		assert.equal(prompt.id, 'blueprint');
		assert.deepEqual(prompt.messages.map((message) => message.role), ['system', 'user']);
		assert.equal(prompt.messages[0]!.content, 'You write scenarios for a Malay Muslim grandmother.\nKeep {{SLOT}} markers as they are.');
		assert.equal(prompt.messages[1]!.content, 'Template:\nPlan a meal for {{GUESTS}}\n\nEvidence:\nhalal rules');
		assert.equal(prompt.hash, shortHash(JSON.stringify(prompt.messages)));
	});

	it('substitutes in one pass: placeholders inside values are never expanded', () => {
		const prompt = renderPrompt('judge/honesty', {transcript: 'user: {{persona}} and {{transcript}} and {{UPPER_SLOT}}'}, {root});
		assert.equal(prompt.messages[1]!.content, 'user: {{persona}} and {{transcript}} and {{UPPER_SLOT}}');
	});

	it('a placeholder without a value is an error naming the file and the placeholder', () => {
		assert.throws(
			() => renderPrompt('blueprint', {persona: 'x', template: 'y'}, {root}),
			(error: unknown) => error instanceof Error && error.message.includes(path.join(root, 'blueprint', 'user.md')) && error.message.includes('{{evidence}}'),
		);
		assert.throws(() => renderPrompt('blueprint', {persona: 'x', template: 'y', evidence: undefined as unknown as string}, {root}), /\{\{evidence\}\}/);
	});

	it('an explicit empty value is allowed; an unknown id is an error', () => {
		assert.equal(renderPrompt('judge/honesty', {transcript: ''}, {root}).messages[1]!.content, '');
		assert.throws(() => renderPrompt('judge/nothing', {}, {root}), /Prompt 'judge\/nothing' not found/);
		assert.throws(() => renderPrompt('../etc', {}, {root}), /not valid/);
	});

	it('rejects markers that are neither lower_snake variables nor UPPER_SNAKE slots', () => {
		const odd = promptsRoot({'odd/user.md': 'Hello {{nativeLanguage}}'});
		assert.throws(() => renderPrompt('odd', {nativeLanguage: 'x'}, {root: odd}), /\{\{nativeLanguage\}\} is neither/);
	});

	it('supports system-only prompts and nested ids', () => {
		assert.deepEqual(renderPrompt('assistant', {}, {root}).messages, [{role: 'system', content: 'You are a helpful assistant.'}]);
		assert.deepEqual(listPromptIds(root), ['assistant', 'blueprint', 'judge/honesty']);
		assert.deepEqual(promptPlaceholders('blueprint', {root}), ['evidence', 'persona', 'template']);
	});

	it('the shipped prompts load', () => {
		const versions = promptVersions();
		for (const id of Object.keys(versions)) assert.ok(promptPlaceholders(id).every((name) => /^[a-z][a-z0-9_]*$/.test(name)), id);
	});

	it('promptVersions hashes the raw files of every prompt and changes when a file changes', () => {
		const local = promptsRoot({'a/system.md': 'one', 'b/c/user.md': '{{x}}'});
		const before = promptVersions({root: local});
		assert.deepEqual(Object.keys(before), ['a', 'b/c']);
		assert.match(before['a']!, /^[0-9a-f]{12}$/);
		const changed = promptsRoot({'a/system.md': 'one!', 'b/c/user.md': '{{x}}'});
		const after = promptVersions({root: changed});
		assert.notEqual(after['a'], before['a']);
		assert.equal(after['b/c'], before['b/c']);
	});

	it('the rendered hash depends on the values', () => {
		assert.notEqual(renderPrompt('judge/honesty', {transcript: 'a'}, {root}).hash, renderPrompt('judge/honesty', {transcript: 'b'}, {root}).hash);
	});
});
