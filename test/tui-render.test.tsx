import assert from 'node:assert/strict';
import {after, before, describe, it} from 'node:test';
import type {CallRecord, Session} from '../src/domain/session.js';
import {EpisodeEngine} from '../src/episode/engine.js';
import type {ModelGateway, ModelRequest, ModelResponse} from '../src/llm/types.js';
import {SessionStore} from '../src/store/sessionStore.js';
import {App} from '../src/tui/App.js';
import {renderStats} from '../src/tui/components/BlockView.js';
import {longSession} from './helpers/longSession.js';
import {testUniverse, tuiFixture, type TuiFixture} from './helpers/tuiFixture.js';
import {KEYS, renderTui} from './helpers/tuiRender.js';

/*
 * Rendering discipline on a long session (40 turns of 300 words): one streamed token or one line of
 * scrolling re-renders a few memoised blocks, never the whole transcript.
 */

let fx: TuiFixture;
let base: Session;
before(async () => {
	fx = tuiFixture();
	const engine = await fx.services().startEpisode({persona: 'my-tamil-hindu-a55-f', template: 'culinary.dietary-rules.02', tier: 'standard'});
	await engine.step();
	await engine.step();
	base = engine.session as Session;
});
after(() => fx.close());

/** A gateway whose assistant streams `words` tokens, one every `everyMs`. */
function slowAssistant(words: readonly string[], everyMs: number, session: Session): ModelGateway {
	return {
		settings: (role) => session.config.roles[role],
		onEvent: () => () => {},
		concurrency: () => ({limit: 4, max: 4}),
		async call<T>(request: ModelRequest<T>): Promise<ModelResponse<T>> {
			for (const word of words) {
				await new Promise((resolve) => setTimeout(resolve, everyMs));
				request.onToken?.(`${word} `);
			}
			const text = words.join(' ');
			const call: CallRecord = {id: 'slow', step: request.step, role: request.role, stage: request.stage, provider: 'mock', model: 'mock', prompt: request.prompt.id, promptHash: request.prompt.hash, responseFormat: 'text', startedAt: new Date().toISOString(), latencyMs: words.length * everyMs, attempts: 1, retries: [], validationRetries: 0, tokens: {prompt: 1, completion: 1, total: 2}, cached: false, ok: true, error: null, request: [...request.prompt.messages], response: text};
			return {value: text as T, text, call};
		},
	};
}

describe('rendering discipline on a long session', () => {
	it('one streamed token re-renders only the blocks in view, not the 39 turns of the transcript', async () => {
		const session = longSession(base);
		assert.equal(session.turns.length, 39);
		const services = fx.services();
		const gateway = slowAssistant(Array.from({length: 30}, (_, i) => `word${i}`), 15, session);
		const engine = new EpisodeEngine(session, {universe: testUniverse(), gateway, store: new SessionStore(fx.sessionsDir), evidence: async () => session.evidence!});
		const tui = renderTui(<App services={services} initial={{kind: 'live', engine, back: null}} />);
		try {
			await tui.waitFor((f) => f.includes('next: assistant replies (t=19)'), 'the long session');
			const perFrame: number[] = [];
			let last = renderStats.blocks;
			tui.stdout.onFrame = () => {
				perFrame.push(renderStats.blocks - last);
				last = renderStats.blocks;
			};
			await tui.press('n');
			await tui.waitFor((f) => f.includes('word29') && f.includes('│ step '), 'the streamed reply', 20_000);
			await tui.waitFor((f) => /next: user replies/.test(f), 'the end of the step', 20_000);
			tui.stdout.onFrame = null;
			const streamingFrames = perFrame.filter((count) => count > 0);
			assert.ok(streamingFrames.length >= 10, `frames while streaming: ${perFrame.join(',')}`);
			const worst = Math.max(...streamingFrames.slice(0, -2));
			assert.ok(worst <= 4, `at most a handful of blocks per token frame, got ${worst} (${perFrame.join(',')})`);
		} finally {
			tui.unmount();
		}
	});

	it('scrolling one line re-renders only the visible blocks; stepping a replay reuses unchanged turns', async () => {
		const session = longSession(base);
		const tui = renderTui(<App services={fx.services()} initial={{kind: 'replay', session, back: null}} />);
		try {
			await tui.waitFor((f) => f.includes('REPLAY step'), 'the replay');
			await tui.settle();
			const before = renderStats.blocks;
			const position = (f: string) => /Public\s+(\d+)-/.exec(f)?.[1];
			const at = position(tui.frame());
			await tui.press(KEYS.up);
			await tui.waitFor((f) => position(f) !== at, 'the Public pane one line up');
			await tui.settle();
			const scrolled = renderStats.blocks - before;
			assert.ok(scrolled > 0 && scrolled <= 4, `scrolling one line re-rendered ${scrolled} blocks`);
			const beforeStep = renderStats.blocks;
			await tui.press(KEYS.left);
			await tui.waitFor((f) => f.includes(`REPLAY step ${session.steps.length - 1}/`), 'one step back');
			await tui.settle();
			const stepped = renderStats.blocks - beforeStep;
			assert.ok(stepped <= 12, `one step back re-rendered ${stepped} blocks across three panes`);
		} finally {
			tui.unmount();
		}
	});
});
