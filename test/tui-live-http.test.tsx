import assert from 'node:assert/strict';
import {writeFileSync} from 'node:fs';
import path from 'node:path';
import {after, before, beforeEach, describe, it} from 'node:test';
import {App} from '../src/tui/App.js';
import {startFakeOpenAI, type FakeOpenAI} from './helpers/fakeOpenAI.js';
import {scriptedModel, type ScriptOptions} from './helpers/scriptedModel.js';
import {tuiFixture, type TuiFixture} from './helpers/tuiFixture.js';
import {renderTui, type TuiHandle} from './helpers/tuiRender.js';

/*
 * The episode screen against a loopback OpenAI-compatible server: real streaming, 429 retries,
 * failing roles and interrupting a call in flight, all of which the offline mock cannot show.
 */

let fake: FakeOpenAI;
let fx: TuiFixture;
before(async () => {
	fake = await startFakeOpenAI();
	fx = tuiFixture({OPENAI_BASE_URL: fake.baseURL, OPENAI_API_KEY: 'sk-test-tui'});
	writeFileSync(path.join(fx.dir, 'cultureconverse.config.json'), JSON.stringify({retry: {maxAttempts: 3, baseDelayMs: 5, maxDelayMs: 10}, cache: false}));
});
after(async () => {
	await fake.close();
	fx.close();
});
beforeEach(() => fake.reset());

// The first status line: its turn segment, whole or shortened on a narrow or busy line ('t=1/4').
const statusLine = (frame: string) => frame.split('\n').find((line) => line.includes(' │ turn ') || / │ t=[\d–]+\/\d+ │/.test(line)) ?? '';
const idle = (frame: string) => /(next: |your reply as the assistant|✓ done|✗ )/.test(statusLine(frame));

async function open(script: ScriptOptions): Promise<{tui: TuiHandle; services: ReturnType<TuiFixture['services']>; id: string}> {
	fake.setHandler(scriptedModel(script));
	const services = fx.services({model: 'fake-model'});
	const engine = await services.startEpisode({persona: 'my-tamil-hindu-a55-f', template: 'culinary.dietary-rules.02', tier: 'standard'});
	const tui = renderTui(<App services={services} initial={{kind: 'live', engine, back: null}} />);
	await tui.waitFor((f) => f.includes('next: retrieve evidence'), 'the first frame');
	return {tui, services, id: engine.session.id};
}

async function stepTo(tui: TuiHandle, n: number): Promise<string> {
	for (let at = 1; at <= n; at++) {
		await tui.press('n');
		await tui.waitFor((f) => f.includes(`│ step ${at} │`) && idle(f), `step ${at}`, 20_000);
	}
	return tui.frame();
}

describe('episode screen over HTTP', () => {
	it('streams the assistant reply token by token into Public, and shows no mock banner', async () => {
		const {tui} = await open({stage: {assistant: () => ({stream: ['Start ', 'with ', 'one ', 'shared ', 'vegetarian ', 'dish.'], pauseMs: 800})}});
		try {
			let frame = await stepTo(tui, 3);
			assert.doesNotMatch(frame, /OFFLINE MOCK/);
			assert.match(frame, /gen fake-model|gen gpt-5-mini/);
			await tui.press('n');
			frame = await tui.waitFor((f) => f.includes('ASSISTANT · t=0 (streaming…)'), 'the streaming reply');
			assert.match(frame, /Start with one shared vegetarian dish\.▌/, 'the tokens so far, with a cursor');
			assert.match(statusLine(frame), /▶ assistant replies \(t=0\)…/);
			frame = await tui.waitFor((f) => idle(f) && f.includes('│ step 4 │'), 'the finished turn');
			assert.match(frame, /ASSISTANT · t=0\s/);
			assert.doesNotMatch(frame, /streaming…/);
		} finally {
			tui.unmount();
		}
	});

	it('shows a 429 retry in the status line while it waits, then carries on', async () => {
		let simulatorCalls = 0;
		const {tui} = await open({
			stage: {
				simulator: () => (simulatorCalls++ === 0 ? {status: 429, headers: {'retry-after': '1'}, body: {error: {message: 'slow down', type: 'rate_limit'}}} : undefined),
			},
		});
		try {
			await stepTo(tui, 4);
			await tui.press('n');
			const frame = await tui.waitFor((f) => f.includes('retrying simulator (429, 1.0 s)'), 'the retry in the status line');
			assert.match(statusLine(frame), /▶ user replies \(t=1\)…/);
			const after = await tui.waitFor((f) => idle(f) && f.includes('│ step 5 │'), 'the step after the retry', 20_000);
			assert.doesNotMatch(after, /retrying simulator/);
			assert.match(after, /USER · t=1/);
			await tui.settle();
			await tui.press('i');
			const inspector = await tui.waitFor((f) => f.includes('Inspector ·'), 'the inspector');
			assert.match(inspector, /simulator\s+simulator\s+fake-model\s+simulator\s+×2/, 'the call shows two attempts');
			assert.match(inspector, /attempt 1: HTTP 429 \(waited/);
		} finally {
			tui.unmount();
		}
	});

	it('shows SIMULATOR_ERROR in the status line and the inspector without crashing, and stays usable', async () => {
		const {tui} = await open({stage: {simulator: () => ({status: 500, body: {error: {message: 'upstream exploded', type: 'server_error'}}})}});
		try {
			await stepTo(tui, 4);
			await tui.press('n');
			let frame = await tui.waitFor((f) => f.includes('✗ SIMULATOR_ERROR'), 'the error state', 20_000);
			assert.match(frame, /simulator call failed/);
			assert.match(frame, /SIMULATOR_ERROR at step 5/, 'the Oracle pane shows the error record');
			await tui.settle();
			await tui.press('i');
			frame = await tui.waitFor((f) => f.includes('Inspector ·'), 'the inspector');
			assert.match(frame, /ERROR 500, 500, 500/, 'every attempt\'s status, not only the last');
			await tui.press('G');
			await tui.press('\u001B');
			await tui.waitFor((f) => !f.includes('Inspector ·'), 'closed');
			await tui.settle();
			await tui.press('n');
			frame = await tui.waitFor((f) => f.includes('✗ SIMULATOR_ERROR'), 'n on a finished episode is harmless');
		} finally {
			tui.unmount();
		}
	});

	it('interrupts a call in flight with x (nothing recorded, resumable), and asks before quitting mid-step', async () => {
		const {tui, services, id} = await open({stage: {assistant: () => ({stream: ['Thinking ', 'about ', 'it'], pauseMs: 20000})}});
		try {
			await stepTo(tui, 3);
			await tui.press('n');
			await tui.waitFor((f) => f.includes('(streaming…)'), 'the reply streaming');
			await tui.press('x');
			let frame = await tui.waitFor((f) => idle(f) && f.includes('next: assistant replies (t=0)'), 'the interrupted step');
			assert.match(frame, /│ step 3 │/, 'the interrupted step was not recorded');
			assert.doesNotMatch(frame, /streaming…/);
			const saved = await services.loadSession(id);
			assert.equal(saved.steps.length, 3);
			assert.equal(saved.status, 'running');
			await tui.settle();
			await tui.press('n');
			await tui.waitFor((f) => f.includes('(streaming…)'), 'streaming again');
			await tui.press('q');
			frame = await tui.waitFor((f) => f.includes('A step is in flight. Quit anyway?'), 'the quit question');
			await tui.settle();
			await tui.press('n');
			await tui.waitFor((f) => !f.includes('Quit anyway?'), 'n keeps going');
			await tui.settle();
			await tui.press('q');
			await tui.waitFor((f) => f.includes('Quit anyway?'), 'asked again');
			await tui.settle();
			await tui.press('y');
			await tui.exited;
			const after = await services.loadSession(id);
			assert.equal(after.steps.length, 3, 'quitting mid-step records nothing');
		} finally {
			tui.unmount();
		}
	});

	it('auto-run (a) keeps stepping on its own; a again stops it after the step in flight', async () => {
		const {tui, services, id} = await open({stage: {assistant: () => ({stream: ['One ', 'moment ', 'please.'], pauseMs: 700})}});
		try {
			await tui.settle();
			await tui.press('a');
			let frame = await tui.waitFor((f) => f.includes('(streaming…)'), 'auto-run reaches the assistant turn', 20_000);
			assert.match(frame, /AUTO on/);
			assert.match(statusLine(frame), /│ (step 4 ▶|s4) │/, 'blueprint, shards and the opening ran without a key; step 4 (the one whose calls are s4) runs');
			await tui.press('a');
			frame = await tui.waitFor((f) => f.includes('auto off') && idle(f), 'the step in flight finished', 20_000);
			assert.match(statusLine(frame), /│ step 4 │/);
			await new Promise((resolve) => setTimeout(resolve, 300));
			assert.match(statusLine(tui.frame()), /│ step 4 │/, 'no step after auto-run was turned off');
			assert.equal((await services.loadSession(id)).steps.length, 4);
		} finally {
			tui.unmount();
		}
	});
});
