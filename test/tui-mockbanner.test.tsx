import assert from 'node:assert/strict';
import {describe, it} from 'node:test';
import {MockBanner} from '../src/tui/components/MockBanner.js';
import {mockRolesOf} from '../src/tui/view/status.js';
import {renderTui} from './helpers/tuiRender.js';
import type {Session} from '../src/domain/session.js';

/** A session's config with these roles on the mock (the rest on a real endpoint). */
function config(mock: readonly string[], assistant: 'llm' | 'human' = 'llm'): Session {
	const role = (name: string) => ({provider: mock.includes(name) ? 'mock' : 'openai', model: mock.includes(name) ? 'mock' : 'm'});
	return {config: {assistant, roles: Object.fromEntries(['generator', 'validator', 'simulator', 'assistant', 'judge'].map((name) => [name, role(name)]))}} as unknown as Session;
}

describe('the mock banner', () => {
	it('names the mock roles of a partly mock session instead of saying no endpoint is configured', async () => {
		assert.deepEqual(mockRolesOf(config(['judge'])), {roles: ['judge'], all: false});
		assert.deepEqual(mockRolesOf(config(['generator', 'validator', 'simulator', 'assistant', 'judge'])).all, true);
		// A human assistant makes no model call: every model role on the mock is all of it.
		assert.deepEqual(mockRolesOf(config(['generator', 'validator', 'simulator', 'judge'], 'human')).all, true);
		const partly = renderTui(<MockBanner {...mockRolesOf(config(['judge']))} />, {columns: 160});
		try {
			const frame = await partly.waitFor((f) => f.includes('MOCK'), 'the banner');
			assert.match(frame, /PARTLY OFFLINE MOCK · judge ran on the mock provider · scores are deterministic filler/);
			assert.doesNotMatch(frame, /no model endpoint configured/);
		} finally {
			partly.unmount();
		}
		const all = renderTui(<MockBanner roles={[]} all />, {columns: 160});
		try {
			assert.match(await all.waitFor((f) => f.includes('MOCK'), 'the banner'), /OFFLINE MOCK PROVIDER · no model endpoint configured/);
		} finally {
			all.unmount();
		}
	});
});
