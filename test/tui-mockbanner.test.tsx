import assert from 'node:assert/strict';
import {describe, it} from 'node:test';
import {MockBanner} from '../src/tui/components/MockBanner.js';
import {mockRolesOf} from '../src/tui/view/status.js';
import {formatSession} from '../src/present/text.js';
import {renderTui} from './helpers/tuiRender.js';
import type {Session} from '../src/domain/session.js';
import {ModelRole} from '../src/domain/session.js';

/** A session with these roles on the mock (the rest on a real endpoint). */
function withMock(mock: readonly string[], assistant: 'llm' | 'human' = 'llm'): Session {
	const role = (name: string) => ({provider: mock.includes(name) ? 'mock' : 'openai', model: mock.includes(name) ? 'mock' : 'm', baseURL: null});
	return {config: {assistant, mock: mock.length > 0, judgeMode: 'separate', maxTurns: 5, prompts: {}, roles: Object.fromEntries(ModelRole.options.map((name) => [name, role(name)]))}} as unknown as Session;
}

describe('the mock banner', () => {
	it('is worded from the roles that actually ran on the mock (report/setups.ts mockKind)', async () => {
		assert.deepEqual(mockRolesOf(withMock(['judge'])), {kind: 'partly', roles: ['judge']});
		assert.equal(mockRolesOf(withMock(['generator', 'validator', 'simulator', 'assistant', 'judge'])).kind, 'all');
		// A human assistant makes no model call: every model role on the mock is all of it.
		assert.equal(mockRolesOf(withMock(['generator', 'validator', 'simulator', 'judge'], 'human')).kind, 'all');
		// Issue 24: only generator and validator on the mock is not an "OFFLINE MOCK" session.
		assert.deepEqual(mockRolesOf(withMock(['generator', 'validator'])), {kind: 'partly', roles: ['generator', 'validator']});
		const partly = renderTui(<MockBanner mock={mockRolesOf(withMock(['judge']))} width={160} />, {columns: 160});
		try {
			const frame = await partly.waitFor((f) => f.includes('MOCK'), 'the banner');
			assert.match(frame, /PARTLY OFFLINE MOCK · judge ran on the mock provider · the scores come from a rubric \(mock:rubric\), not a model judge/);
			assert.doesNotMatch(frame, /no model endpoint configured/);
		} finally {
			partly.unmount();
		}
		const all = renderTui(<MockBanner mock={{kind: 'all', roles: []}} width={160} />, {columns: 160});
		try {
			assert.match(await all.waitFor((f) => f.includes('MOCK'), 'the banner'), /OFFLINE MOCK PROVIDER · no model endpoint .* every role ran on the mock/);
		} finally {
			all.unmount();
		}
	});

	it('keeps "not measurements" at 100 and 60 columns (a shorter wording, not a cut one)', async () => {
		for (const columns of [100, 60]) {
			const view = renderTui(<MockBanner mock={{kind: 'all', roles: []}} width={columns} />, {columns});
			try {
				const frame = await view.waitFor((f) => f.includes('MOCK'), 'the banner');
				assert.match(frame, /not measurements/, `at ${columns} columns`);
				assert.doesNotMatch(frame, /…/);
			} finally {
				view.unmount();
			}
		}
	});

	it('replay --print labels a generator-and-validator-only mock session as partly mock', () => {
		const session = withMock(['generator', 'validator']);
		const text = formatSession({...session, id: 's', status: 'completed', seed: {id: 'x', tier: 'standard'}, persona: {identity: 'i', regionName: 'r', age: 'a', gender: 'g'}, template: {id: 't', title: 'T'}, config: {...session.config, language: 'english', mode: 'eval', models: {assistant: 'm'}}, evidence: null, blueprint: null, shards: null, turns: [], judge: null, termination: null, error: null, steps: [], calls: []} as unknown as Session);
		assert.match(text, /PARTLY MOCK \(generator, validator\)/);
		assert.doesNotMatch(text, /OFFLINE MOCK(?! ·)/);
	});
});
