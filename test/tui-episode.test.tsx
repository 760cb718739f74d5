import assert from 'node:assert/strict';
import {after, before, describe, it} from 'node:test';
import {App} from '../src/tui/App.js';
import {ErrorBoundary} from '../src/tui/components/ErrorBoundary.js';
import type {Screen} from '../src/tui/appState.js';
import {tuiFixture, type TuiFixture} from './helpers/tuiFixture.js';
import {KEYS, renderTui, type TuiHandle} from './helpers/tuiRender.js';

const PERSONA = 'my-tamil-hindu-a55-f';
const TEMPLATE = 'culinary.dietary-rules.02';

let fx: TuiFixture;
before(() => {
	fx = tuiFixture();
});
after(() => fx.close());

async function liveApp(flags: Record<string, unknown> = {}, size: {columns?: number; rows?: number} = {}) {
	const services = fx.services();
	const engine = await services.startEpisode({persona: PERSONA, template: TEMPLATE, tier: 'standard', ...flags});
	const initial: Screen = {kind: 'live', engine, back: null};
	return {engine, tui: renderTui(<App services={services} initial={initial} />, size)};
}

/** True when the status line shows no step in flight. */
const idle = (frame: string) => /(next: |your reply as the assistant|✓ done|✗ )/.test(frame.split('\n').find((line) => line.includes(' │ turn ')) ?? '');

/** Waits until the status line shows step `n` done and nothing in flight. */
const atStep = (tui: TuiHandle, n: number) => tui.waitFor((f) => f.includes(`│ step ${n} │`) && idle(f), `step ${n} done`);

/** Presses n and waits until the status line shows the engine idle at `next`. */
async function step(tui: TuiHandle, next: string): Promise<string> {
	await tui.press('n');
	return tui.waitFor((f) => f.includes(next) && idle(f), next);
}

describe('episode screen, best-of-N', () => {
	it('shows the candidates of the latest assistant turn, their ratings and which one was said, in the Oracle pane', async () => {
		const {tui} = await liveApp({bestOf: 2}, {columns: 200, rows: 60});
		try {
			await tui.waitFor((f) => f.includes('next: retrieve evidence'), 'the first frame');
			for (let n = 1; n <= 4; n++) {
				await tui.press('n');
				await atStep(tui, n);
			}
			const frame = await tui.waitFor((f) => f.includes('Best-of-2 candidates (assistant t=0'), 'the candidates block');
			assert.match(frame, /▶ #\d score \d \(said\)/);
			assert.match(frame, /\[rubric\] criteria met: /);
		} finally {
			tui.unmount();
		}
	});
});

describe('episode screen, live on the offline mock', () => {
	it('steps with n to the judged end, each pane filling as it goes', async () => {
		const {engine, tui} = await liveApp();
		try {
			let frame = await tui.waitFor((f) => f.includes('next: retrieve evidence'), 'the first frame');
			assert.match(frame, /OFFLINE MOCK PROVIDER/);
			assert.match(frame, /Public/);
			assert.match(frame, /Private/);
			assert.match(frame, /Oracle/);
			assert.match(frame, /\(no messages yet\)/);

			frame = await step(tui, 'next: write the shards');
			assert.match(frame, /Success criteria/, 'Oracle shows the criteria once the blueprint exists');
			assert.match(frame, /KB evidence/);

			frame = await step(tui, 'next: user opens');
			assert.match(frame, new RegExp(`shard 1/${engine.session.shards!.length}\\b`), 'the status line counts the shards the session has');
			assert.match(frame, /▶ Shard 1\/\d: /, 'Private shows the current shard');

			frame = await step(tui, 'next: assistant replies (t=0)');
			assert.match(frame, /USER · t=0/);
			assert.ok(frame.includes(engine.session.turns[0]!.content.slice(0, 30)), 'Public shows the opening message');

			frame = await step(tui, 'next: user replies (t=1)');
			assert.match(frame, /ASSISTANT · t=0/);

			frame = await step(tui, 'next: assistant replies (t=1)');
			assert.match(frame, /USER · t=1/);
			assert.match(frame, /Simulator decisions/);
			assert.match(frame, /t=1 (ADVANCE_NEXT|CONTINUE_CURRENT|END_FAILED)/, 'Private shows the decision');

			for (let i = 0; i < 40 && engine.session.status !== 'completed'; i++) {
				const steps = engine.session.steps.length;
				await tui.press('n');
				await tui.waitFor((f) => f.includes(`│ step ${steps + 1} │`) && idle(f), `step ${steps + 1}`);
			}
			frame = await tui.waitFor((f) => f.includes('✓ done'), 'the end');
			assert.equal(engine.session.status, 'completed');
			assert.match(frame, /Judge \(separate\)/);
			assert.match(frame, /helpfulness\s+\d/);
			assert.match(frame, /3H \d\.\d\d/);
			assert.match(frame, /clean (yes|NO)/);
		} finally {
			tui.unmount();
		}
	});

	it('runs to the end with auto-run (a), which turns itself off at the end', async () => {
		const {engine, tui} = await liveApp();
		try {
			await tui.waitFor((f) => f.includes('next: retrieve evidence'), 'the first frame');
			await tui.press('a');
			await tui.waitFor((f) => f.includes('✓ done'), 'auto-run to finish', 30_000);
			assert.equal(engine.session.status, 'completed');
			assert.match(tui.frame(), /auto off/, 'auto turns itself off at the end');
		} finally {
			tui.unmount();
		}
	});

	it('turns the panes into tabs below 120 columns and back on resize', async () => {
		const {tui} = await liveApp({}, {columns: 100, rows: 30});
		try {
			let frame = await tui.waitFor((f) => f.includes('1 Public') && f.includes('2 Private') && f.includes('3 Oracle'), 'the tab bar');
			assert.doesNotMatch(frame, /╭[─]+╮╭/, 'one pane at a time');
			await step(tui, 'next: write the shards');
			await tui.press('3');
			frame = await tui.waitFor((f) => f.includes('Success criteria'), 'the Oracle tab');
			assert.doesNotMatch(frame, /\(no messages yet\)/, 'the Public pane is hidden behind its tab');
			await tui.press(KEYS.tab);
			frame = await tui.waitFor((f) => f.includes('(no messages yet)'), 'Tab wraps to Public');
			tui.resize(160, 40);
			frame = await tui.waitFor((f) => !f.includes('2 Private ') && /╮╭/.test(f), 'three panes side by side after the resize');
			assert.match(frame, /Private/);
			assert.match(frame, /Oracle/);
			for (const line of frame.split('\n')) assert.ok(line.length <= 160, `line fits 160 columns: ${line}`);
			assert.ok(frame.split('\n').length <= 39, 'the frame stays shorter than the terminal');
		} finally {
			tui.unmount();
		}
	});

	it('lets a person play the assistant blind (--human): runs to their turn, keeps every key, sends with Ctrl-S, continues on its own', async () => {
		const {engine, tui} = await liveApp({human: true});
		try {
			let frame = await tui.waitFor((f) => f.includes('Your reply as the assistant (t=0)'), 'the reply box, as soon as the user has spoken');
			assert.match(frame, /you are the assistant \(blind: the chat only\)/);
			assert.match(frame, /USER · t=0/);
			assert.doesNotMatch(frame, /Private|Oracle|Success criteria|Shard \d/, 'nothing hidden on a blind seat');
			await tui.settle();
			// Fast typing: text, Backspaces and more text in one read; Enter is a new line (a blank line too).
			tui.paste('Could you tell me which dishes yr\u007f\u007fyour aunt cooks?\r\rAnd how long is the stay?');
			frame = await tui.waitFor((f) => f.includes('And how long is the stay?▌'), 'the typed draft');
			assert.match(frame, /Could you tell me which dishes your aunt cooks\?/);
			// Cursor keys edit in the middle: go to the start of the line, delete a word with Ctrl-W after moving.
			await tui.press(KEYS.home);
			tui.paste('Also: ');
			await tui.waitFor((f) => f.includes('Also: ▌And how long'), 'typed at the cursor');
			await tui.press(KEYS.ctrlS);
			await tui.waitFor(() => engine.session.turns.filter((turn) => turn.role === 'user').length === 2, 'sent, and the simulator answered on its own');
			const assistant = engine.session.turns.find((turn) => turn.role === 'assistant')!;
			assert.equal(assistant.source, 'human');
			assert.equal(assistant.content, 'Could you tell me which dishes your aunt cooks?\n\nAlso: And how long is the stay?');
			assert.equal(assistant.sawHidden, undefined);
			frame = await tui.waitFor((f) => f.includes('Your reply as the assistant (t=1)'), 'the box for t=1');
			assert.match(frame, /USER · t=1/);
			await tui.settle();
			await tui.press(KEYS.escape);
			await tui.waitFor((f) => f.includes('e types in it'), 'Esc leaves the box');
			await tui.settle();
			await tui.press('v');
			// v asks first (y/N); anything but y keeps the seat blind.
			frame = await tui.waitFor((f) => f.includes('Show the private and oracle panes?') && f.includes('(y/N)'), 'v asks first');
			await tui.settle();
			await tui.press(KEYS.enter);
			frame = await tui.waitFor((f) => f.includes('e types in it') && !f.includes('(y/N)'), 'Enter declines');
			assert.doesNotMatch(frame, /Oracle/);
			assert.equal(engine.session.sawHidden, undefined, 'declining records nothing');
			await tui.settle();
			await tui.press('v');
			await tui.waitFor((f) => f.includes('(y/N)'), 'asked again');
			await tui.settle();
			await tui.press('y');
			frame = await tui.waitFor((f) => f.includes('Oracle') && f.includes('Private'), 'y reveals the hidden panes');
			await tui.waitFor(() => engine.session.sawHidden === true, 'recorded on the session');
			assert.deepEqual(engine.session.hiddenViews?.map((seen) => [seen.view, seen.step]), [['tui-reveal', engine.session.steps.length]], 'with the route and the step');
			await tui.settle();
			await tui.press('e');
			await tui.waitFor((f) => !f.includes('e types in it'), 'e enters the box');
			await tui.settle();
			tui.paste('Fine.');
			await tui.press(KEYS.ctrlS);
			await tui.waitFor(() => engine.session.turns.filter((turn) => turn.role === 'assistant').length === 2, 'Ctrl-S sends');
			assert.equal(engine.session.turns.filter((turn) => turn.role === 'assistant')[1]!.sawHidden, true, 'a reply written after seeing hidden state says so');
		} finally {
			tui.unmount();
		}
	});

	it('shows every call in the inspector with its raw prompt and reply, and the help overlay', async () => {
		const {engine, tui} = await liveApp();
		try {
			await tui.waitFor((f) => f.includes('next: retrieve evidence'), 'the first frame');
			await step(tui, 'next: write the shards');
			await tui.press('i');
			let frame = await tui.waitFor((f) => f.includes('Inspector · 2 call(s)'), 'the inspector');
			assert.match(frame, /validator\s+blueprint-audit/);
			assert.match(frame, /── request · system ──/);
			await tui.settle();
			await tui.press('G');
			frame = await tui.waitFor((f) => f.includes('── raw reply ──'), 'the raw reply at the end of the detail');
			assert.match(frame, /"leaksOracle":false/);
			await tui.press(KEYS.up);
			frame = await tui.waitFor((f) => f.includes('generator · blueprint · mock:mock'), 'the first call selected');
			await tui.press(KEYS.escape);
			await tui.waitFor((f) => !f.includes('Inspector ·'), 'Esc closes the inspector');
			await tui.settle();
			await tui.press('?');
			frame = await tui.waitFor((f) => f.includes('Keys · Esc, ? or q closes'), 'the help overlay');
			assert.match(frame, /auto-run/);
			assert.match(frame, /Ctrl-S/);
			await tui.settle();
			await tui.press('?');
			await tui.waitFor((f) => !f.includes('Keys · Esc'), 'help closes');
		} finally {
			tui.unmount();
		}
	});

	it('shows a rendering bug as a message with a way out, never as a crashed terminal', async () => {
		function Boom(): never {
			throw new Error('kaboom while drawing a pane');
		}
		let quit = false;
		const original = console.error;
		console.error = () => {};
		const tui = renderTui(
			<ErrorBoundary onQuit={() => (quit = true)}>
				<Boom />
			</ErrorBoundary>,
		);
		try {
			const frame = await tui.waitFor((f) => f.includes('kaboom'), 'the crash notice');
			assert.match(frame, /The screen hit a bug and stopped drawing\. The session on disk is intact\./);
			assert.match(frame, /q quit/);
			await tui.settle();
			await tui.press('q');
			assert.equal(quit, true);
		} finally {
			console.error = original;
			tui.unmount();
		}
	});
});
