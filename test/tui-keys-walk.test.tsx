import assert from 'node:assert/strict';
import {after, before, describe, it} from 'node:test';
import {App} from '../src/tui/App.js';
import type {Screen} from '../src/tui/appState.js';
import {blindSeatKeys, liveFrameKeys, replayKeys} from '../src/tui/view/episodeKeys.js';
import {footerLine} from '../src/tui/view/keyTable.js';
import {tuiFixture, type TuiFixture} from './helpers/tuiFixture.js';
import {KEYS, renderTui, type TuiHandle} from './helpers/tuiRender.js';

/*
 * Issue 22, item 3: no footer in any screen state advertises a key that does nothing. For each
 * state this walks the footer as drawn (200 columns, so nothing is dropped), checks that the walk
 * covers every hint it shows, and presses each hint's key, asserting what it did on screen.
 */

const PERSONA = 'my-tamil-hindu-a55-f';
const TEMPLATE = 'culinary.dietary-rules.02';
const SIZE = {columns: 200, rows: 50};

let fx: TuiFixture;
before(() => {
	fx = tuiFixture();
});
after(() => fx.close());

const footerOf = (frame: string) => frame.trimEnd().split('\n').at(-1)!.trim();
const hintsOf = (frame: string) => footerOf(frame).split(' · ').map((hint) => hint.trim());

/**
 * One advertised hint: the key to press and what shows it worked. `undo` closes what it opened, so
 * the walk goes on in the same render; a step without it changes the state for good (it steps, quits,
 * leaves) and runs on a fresh render of the state.
 */
type Step = {readonly hint: string; readonly press: string | readonly string[]; readonly did: (frame: string, tui: TuiHandle) => boolean; readonly undo?: string; readonly exits?: boolean};

async function walk(make: () => Promise<TuiHandle>, ready: (frame: string) => boolean, steps: readonly Step[], what: string): Promise<void> {
	let tui = await make();
	try {
		const frame = await tui.waitFor(ready, `${what}: the state`);
		assert.deepEqual([...hintsOf(frame)].sort(), steps.map((step) => step.hint).sort(), `${what}: the walk covers exactly the hints the footer shows`);
		for (const step of [...steps].sort((a, b) => Number(Boolean(b.undo)) - Number(Boolean(a.undo)))) {
			if (!step.undo) {
				tui.unmount();
				tui = await make();
			}
			const before = await tui.waitFor(ready, `${what}: ready for ${step.hint}`);
			await tui.settle();
			await tui.press(...(typeof step.press === 'string' ? [step.press] : step.press));
			if (step.exits) {
				let timer: NodeJS.Timeout | undefined;
				const left = await Promise.race([tui.exited.then(() => true), new Promise<boolean>((resolve) => (timer = setTimeout(() => resolve(false), 10_000)))]);
				clearTimeout(timer);
				assert.ok(left, `${what}: ${step.hint} left the app`);
			} else await tui.waitFor((f) => f !== before && step.did(f, tui), `${what}: ${step.hint} did something`);
			if (step.undo) {
				await tui.settle();
				await tui.press(step.undo);
				await tui.waitFor((f) => footerOf(f) === footerOf(frame), `${what}: back after ${step.hint}`);
			}
		}
	} finally {
		tui.unmount();
	}
}

const paneMark = (frame: string, title: string) => frame.includes(`▶ ${title}`);
/** The line range a pane shows ("1-39/46"): scrolling moves it. */
const range = (frame: string, title: string) => new RegExp(`${title}\\s+(\\d+-\\d+/\\d+)`).exec(frame)?.[1] ?? '';

describe('every advertised key acts, state by state', () => {
	it('the tables show only keys of the state (pure)', () => {
		const hints = (table: ReturnType<typeof liveFrameKeys>) => footerLine(table, 500);
		assert.doesNotMatch(hints(liveFrameKeys({phase: 'running', human: false, open: true, auto: false, canBack: false})), /n step/, 'no step while one is in flight');
		assert.doesNotMatch(hints(liveFrameKeys({phase: 'done', human: false, open: false, auto: false, canBack: false})), /n step|a auto|x interrupt/, 'an ended episode steps no more');
		assert.match(hints(liveFrameKeys({phase: 'done', human: false, open: false, auto: false, canBack: false})), /o scores · s rate · p replay · w HTML page/, 'and offers what comes next');
		assert.match(hints(liveFrameKeys({phase: 'error', human: false, open: true, auto: false, canBack: false})), /r retry the failed step/);
		assert.doesNotMatch(hints(blindSeatKeys({phase: 'awaiting', open: true, paused: false})), /n step|n continue|i inspector|Tab/, 'the seat\'s command mode has no step and no hidden pane');
		assert.doesNotMatch(hints(blindSeatKeys({phase: 'done', open: false, paused: false})), /e type|v show/, 'no reply box once the dialogue is over');
		assert.doesNotMatch(hints(replayKeys({step: 3, total: 3, resumable: false, retryable: false, rateable: true, canBack: false})), /→ step|r resume/, 'at the last step of a completed session');
		// q quit survives the narrowest footer.
		assert.match(footerLine(liveFrameKeys({phase: 'idle', human: false, open: true, auto: false, canBack: true}), 30), /q quit$/);
	});

	it('live, idle: step, auto, panes, scroll, inspector, help, back, quit', async () => {
		const engine = await fx.services().startEpisode({persona: PERSONA, template: TEMPLATE, tier: 'standard'});
		await engine.step();
		await engine.step();
		const make = async () => renderTui(<App services={fx.services()} initial={{kind: 'live', engine, back: {kind: 'home'}}} />, SIZE);
		const idle = (f: string) => f.includes('next: ') && footerOf(f).startsWith('n step');
		let privateAt = '';
		await walk(
			make,
			idle,
			[
				{hint: 'Tab/1-3 pane', press: KEYS.tab, did: (f) => paneMark(f, 'Private'), undo: '1'},
				{hint: '↑↓ PgUp PgDn scroll', press: ['2', KEYS.down], did: (f) => ((privateAt ||= range(f, 'Private')), paneMark(f, 'Private') && range(f, 'Private').startsWith('2-')), undo: '1'},
				{hint: 'i inspector', press: 'i', did: (f) => footerOf(f).includes('r reasoning'), undo: KEYS.escape},
				{hint: '? help', press: '?', did: (f) => f.includes('Keys · Esc, ? or q closes'), undo: KEYS.escape},
				{hint: 'n step', press: 'n', did: (f) => /│ step [3-9] │/.test(f)},
				{hint: 'b back', press: 'b', did: (f) => f.includes('New episode') || f.includes('Leave the episode')},
				{hint: 'q quit', press: 'q', did: () => true, exits: true},
				// Last: it runs the shared engine on.
				// On the mock, auto can run the whole episode between two frames: any step past the first three counts.
				{hint: 'a auto', press: ['a'], did: (f) => /AUTO on|│ step ([4-9]|\d\d+) │/.test(f)},
			],
			'live idle',
		);
	});

	it('live, ended: scores, rate, replay, HTML page', async () => {
		// Another seed than the test before: a session id is the second it started in and its seed.
		const engine = await fx.services().startEpisode({persona: PERSONA, template: 'culinary.dietary-rules.01', tier: 'standard'});
		await engine.runToEnd();
		const make = async () => renderTui(<App services={fx.services()} initial={{kind: 'live', engine, back: null}} />, SIZE);
		await walk(
			make,
			(f) => f.includes('✓ done'),
			[
				{hint: 'o scores', press: 'o', did: (f) => paneMark(f, 'Oracle'), undo: '1'},
				{hint: 's rate', press: 's', did: (f) => f.includes('rating: ↑↓ metric')},
				{hint: 'p replay', press: 'p', did: (f) => f.includes('REPLAY step')},
				{hint: 'w HTML page', press: 'w', did: (f) => /session page written: \S+\.html/.test(f)},
				{hint: 'Tab/1-3 pane', press: KEYS.tab, did: (f) => paneMark(f, 'Private'), undo: '1'},
				{hint: '↑↓ PgUp PgDn scroll', press: ['2', KEYS.down], did: (f) => range(f, 'Private').startsWith('2-'), undo: '1'},
				{hint: 'i inspector', press: 'i', did: (f) => footerOf(f).includes('r reasoning'), undo: KEYS.escape},
				{hint: '? help', press: '?', did: (f) => f.includes('Keys · Esc, ? or q closes'), undo: KEYS.escape},
				{hint: 'q quit', press: 'q', did: () => true, exits: true},
			],
			'live ended',
		);
	});

	it('the blind seat, in command mode and after the judged end; the replay of the ended session', async () => {
		const seat = {columns: 120, rows: 24};
		const engine = await fx.services().startEpisode({persona: PERSONA, template: 'culinary.dietary-rules.03', tier: 'standard', human: true});
		await engine.runToEnd();
		engine.submitHumanReply('We could begin with the meals. '.repeat(20));
		await engine.runToEnd();
		const commandMode = async () => {
			const tui = renderTui(<App services={fx.services()} initial={{kind: 'live', engine, back: null}} />, seat);
			await tui.waitFor((f) => f.includes('Your reply as the assistant'), 'the reply box');
			await tui.settle();
			await tui.press(KEYS.escape);
			return tui;
		};
		await walk(
			commandMode,
			(f) => footerOf(f).startsWith('e type the reply'),
			[
				{hint: 'e type the reply', press: 'e', did: (f) => footerOf(f).startsWith('typing into the reply')},
				{hint: 'v show hidden panes (asks; recorded)', press: 'v', did: (f) => f.includes('(y/N)'), undo: 'n'},
				{hint: '↑↓ PgUp PgDn scroll', press: KEYS.up, did: (f) => /Public · the chat\s+\d+-\d+\/\d+ ↓/.test(f), undo: 'G'},
				{hint: '? help', press: '?', did: (f) => f.includes('Keys · Esc, ? or q closes'), undo: KEYS.escape},
				{hint: 'q quit', press: 'q', did: () => true, exits: true},
			],
			'blind seat, command mode',
		);
		assert.equal(engine.session.sawHidden, undefined, 'n declined: nothing recorded');
		for (let turn = 0; turn < 8 && engine.session.status !== 'completed'; turn++) {
			if (engine.awaitingHuman) engine.submitHumanReply('Thank you, that is a plan.');
			await engine.runToEnd();
		}
		assert.equal(engine.session.status, 'completed');
		const ended = async () => renderTui(<App services={fx.services()} initial={{kind: 'live', engine, back: null}} />, seat);
		await walk(
			ended,
			(f) => f.includes('the dialogue has ended and been judged') && footerOf(f).startsWith('o scores'),
			[
				{hint: 'o scores', press: 'o', did: (f) => paneMark(f, 'Oracle') && f.includes('Judge')},
				{hint: 's rate', press: 's', did: (f) => f.includes('rating: ↑↓ metric')},
				{hint: 'p replay', press: 'p', did: (f) => f.includes('REPLAY step')},
				{hint: 'w HTML page', press: 'w', did: (f) => /session page written: \S+\.html/.test(f)},
				{hint: '↑↓ PgUp PgDn scroll', press: 'g', did: (f) => /Public · the chat\s+1-/.test(f), undo: 'G'},
				{hint: '? help', press: '?', did: (f) => f.includes('Keys · Esc, ? or q closes'), undo: KEYS.escape},
				{hint: 'q quit', press: 'q', did: () => true, exits: true},
			],
			'blind seat, ended',
		);
		assert.equal(engine.session.sawHidden, undefined, 'seeing the scores after the end records nothing');
		const replay = async () => renderTui(<App services={fx.services()} initial={{kind: 'replay', session: engine.session, back: {kind: 'home'}}} />, SIZE);
		await walk(
			replay,
			(f) => /REPLAY step (\d+)\/\1/.test(f) && footerOf(f).startsWith('← back a step'),
			[
				{hint: '← back a step', press: KEYS.left, did: (f) => /REPLAY step (\d+)\/(\d+)/.exec(f)?.slice(1).reduce((a, b) => String(Number(b) - Number(a))) === '1'},
				{hint: 's rate', press: 's', did: (f) => f.includes('rating: ↑↓ metric')},
				{hint: 'Tab/1-3 pane', press: KEYS.tab, did: (f) => paneMark(f, 'Private'), undo: '1'},
				{hint: '↑↓ PgUp PgDn scroll', press: ['2', KEYS.down], did: (f) => range(f, 'Private').startsWith('2-'), undo: '1'},
				{hint: 'i inspector', press: 'i', did: (f) => footerOf(f).includes('r reasoning'), undo: KEYS.escape},
				{hint: '? help', press: '?', did: (f) => f.includes('Keys · Esc, ? or q closes'), undo: KEYS.escape},
				{hint: 'b back', press: 'b', did: (f) => f.includes('New episode')},
				{hint: 'q quit', press: 'q', did: () => true, exits: true},
			],
			'replay at its last step',
		);
	});
});
