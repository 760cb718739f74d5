import assert from 'node:assert/strict';
import {mkdirSync, writeFileSync} from 'node:fs';
import path from 'node:path';
import {after, before, describe, it} from 'node:test';
import {App} from '../src/tui/App.js';
import {tuiFixture, type TuiFixture} from './helpers/tuiFixture.js';
import {KEYS, renderTui, type TuiHandle} from './helpers/tuiRender.js';

let fx: TuiFixture;
before(() => {
	fx = tuiFixture();
});
after(() => fx.close());

const statusLine = (frame: string) => frame.split('\n').find((line) => line.includes(' │ turn ')) ?? '';
const idle = (frame: string) => /(next: |your reply as the assistant|✓ done|✗ )/.test(statusLine(frame));

async function stepToEnd(tui: TuiHandle): Promise<string> {
	for (let n = 1; n <= 30; n++) {
		await tui.press('n');
		const frame = await tui.waitFor((f) => f.includes(`│ step ${n} │`) && idle(f), `step ${n}`);
		if (frame.includes('✓ done')) return frame;
	}
	throw new Error('the episode did not finish in 30 steps');
}

describe('TUI flows from the home screen', () => {
	it('picks a persona (filters and fuzzy typing), a template (domain -> subdomain -> template), options, and runs to the judged end', async () => {
		const services = fx.services();
		const tui = renderTui(<App services={services} initial={{kind: 'home'}} />);
		try {
			let frame = await tui.waitFor((f) => f.includes('New episode: pick a persona'), 'the home screen');
			assert.match(frame, /348 personas/);
			assert.match(frame, /From the shell: npx cultureconverse batch/, 'the headless uses are named on the home screen');
			await tui.settle();
			await tui.press('n');
			frame = await tui.waitFor((f) => f.includes('New episode · 1/3 persona'), 'the persona picker');
			assert.match(frame, /348\/348 personas/);
			await tui.settle();
			// Region filter: Tab to it, then → as many times as MY is far from "all".
			await tui.press(KEYS.tab);
			const presses = [...services.universe.regions.keys()].indexOf('MY') + 1;
			for (let i = 0; i < presses; i++) await tui.press(KEYS.right);
			frame = await tui.waitFor((f) => f.includes('region: MY'), 'region MY');
			assert.doesNotMatch(frame, /▶ cn-/, 'only Malaysian personas listed');
			await tui.press(KEYS.tab, KEYS.tab, KEYS.tab, KEYS.tab);
			await tui.press('tamil hindu 55 f');
			frame = await tui.waitFor((f) => f.includes('search tamil hindu 55 f'), 'the typed search');
			assert.match(frame, /▶ my-tamil-hindu-a55-f/, 'fuzzy search puts the persona first');
			await tui.press(KEYS.enter);
			frame = await tui.waitFor((f) => f.includes('2/3 template for my-tamil-hindu-a55-f'), 'the template picker');
			assert.match(frame, /slots:/, 'the preview shows the slots');
			assert.match(frame, /sketch:/);
			await tui.settle();
			await tui.press(KEYS.enter); // domain: Culinary (first) -> subdomains
			await tui.press(KEYS.enter); // subdomain: Dietary rules (first) -> templates
			await tui.press(KEYS.down); // .02
			frame = await tui.waitFor((f) => f.includes('culinary.dietary-rules.02 ·'), 'template 02 previewed');
			assert.match(frame, /\{\{[A-Z_]+\}\}/);
			await tui.press(KEYS.enter);
			frame = await tui.waitFor((f) => f.includes('3/3 options'), 'the options screen');
			assert.match(frame, /simulator model\s+mock \(offline\)/, 'the resolved model per role');
			assert.match(frame, /tier\s+seed default/);
			await tui.settle();
			// Tier: standard. Row 0 is tier; the cursor starts on "start".
			await tui.press(KEYS.down, KEYS.right);
			frame = await tui.waitFor((f) => /tier\s+standard/.test(f), 'tier standard');
			// Type a model name for the judge: mock stays offline but proves the override path.
			await tui.press(KEYS.up, KEYS.up, KEYS.up); // tier -> (wraps) start -> best of -> judge
			frame = await tui.waitFor((f) => /▶ judge model/.test(f), 'the judge row');
			await tui.press(KEYS.enter);
			await tui.settle();
			await tui.press('mock', KEYS.enter);
			frame = await tui.waitFor((f) => /judge model\s+mock \(offline\)\s+\(typed\)/.test(f), 'the typed override');
			await tui.press('s');
			frame = await tui.waitFor((f) => f.includes('LIVE') && f.includes('next: retrieve evidence'), 'the episode screen');
			assert.match(frame, /my-tamil-hindu-a55-f/);
			assert.match(frame, /standard · english · eval/);
			await tui.settle();
			frame = await stepToEnd(tui);
			assert.match(frame, /Judge \(separate\)/);
			assert.match(frame, /clean (yes|NO)/);
			const saved = services.listSessions().sessions;
			assert.equal(saved.length, 1);
			assert.equal(saved[0]!.status, 'completed');
			assert.equal(saved[0]!.tier, 'standard');
		} finally {
			tui.unmount();
		}
	});

	it('lists saved sessions with a warning for a corrupt file, filters, sorts, replays back and forth, and resumes an unfinished one', async () => {
		const services = fx.services();
		// A finished session (from the test above or a fresh one) and an unfinished one (3 steps).
		const done = await services.startEpisode({persona: 'jp-yamato-buddhist-a35-m', template: 'culinary.dietary-rules.02', tier: 'standard'});
		await done.runToEnd();
		const unfinished = await services.startEpisode({persona: 'th-isan-a35-m', template: 'ritual.festivals-calendar.01', tier: 'standard'});
		for (let i = 0; i < 3; i++) await unfinished.step();
		mkdirSync(fx.sessionsDir, {recursive: true});
		writeFileSync(path.join(fx.sessionsDir, 'broken.json'), '{"format": "cultureconverse.session", "version": 1, "id": ');

		const tui = renderTui(<App services={services} initial={{kind: 'sessions'}} />);
		try {
			let frame = await tui.waitFor((f) => f.includes('Saved sessions'), 'the sessions screen');
			assert.match(frame, /⚠ skipped broken\.json/);
			assert.match(frame, /STATUS\s+ID\s+ASSISTANT\s+MARK\s+TEMPLATE\s+TIER\s+3H\s+TDQ\s+CLEAN\s+DATE/);
			assert.match(frame, /jp-yamato-buddhist-a35-m-\w+\s+mock\s+M\s+culinary/, 'id, assistant model and the mock mark');
			assert.match(frame, /jp-yamato-buddhist-a35-m/);
			assert.match(frame, /th-isan-a35-m/);
			await tui.settle();
			await tui.press('s');
			frame = await tui.waitFor((f) => f.includes('sort: oldest'), 'sort cycles');
			await tui.press('/');
			await tui.settle();
			await tui.press('isan');
			frame = await tui.waitFor((f) => f.includes('filter: isan'), 'the filter');
			assert.doesNotMatch(frame, /jp-yamato-buddhist-a35-m/, 'filtered out');
			await tui.press(KEYS.enter); // leave filter mode
			await tui.settle();
			await tui.press(KEYS.enter); // open: replay
			frame = await tui.waitFor((f) => f.includes('REPLAY step 3/3'), 'the replay at its last step');
			assert.match(frame, /USER · t=0/);
			await tui.settle();
			await tui.press(KEYS.left);
			frame = await tui.waitFor((f) => f.includes('REPLAY step 2/3'), 'one step back');
			assert.doesNotMatch(frame, /USER · t=0/, 'the opening message is not there yet at step 2');
			assert.match(frame, /▶ Shard 1\/\d/, 'shards exist at step 2');
			await tui.press(KEYS.home);
			frame = await tui.waitFor((f) => f.includes('REPLAY step 0/3'), 'the first step');
			assert.match(frame, /\(no blueprint yet/);
			assert.match(frame, /\(no messages yet\)/);
			await tui.press(KEYS.right);
			frame = await tui.waitFor((f) => f.includes('REPLAY step 1/3'), 'step forward');
			assert.match(frame, /Success criteria/);
			assert.match(frame, /\(no shards yet\)/);
			await tui.press(KEYS.end);
			await tui.waitFor((f) => f.includes('REPLAY step 3/3'), 'the last step');
			await tui.press('r');
			frame = await tui.waitFor((f) => f.includes('LIVE') && f.includes('next: assistant replies (t=0)'), 'resumed live');
			await tui.settle();
			frame = await stepToEndFrom(tui, 4);
			assert.match(frame, /✓ done/);
			const reloaded = await services.loadSession(unfinished.session.id);
			assert.equal(reloaded.status, 'completed');
		} finally {
			tui.unmount();
		}
	});

	it('refuses to resume a finished session and says why; b goes back to the list', async () => {
		const services = fx.services();
		const tui = renderTui(<App services={services} initial={{kind: 'sessions'}} />);
		try {
			await tui.waitFor((f) => f.includes('Saved sessions'), 'the sessions screen');
			await tui.settle();
			await tui.press('/');
			await tui.settle();
			await tui.press('yamato');
			await tui.press(KEYS.enter);
			await tui.settle();
			await tui.press('r');
			let frame = await tui.waitFor((f) => f.includes('is completed: nothing to resume'), 'the refusal');
			await tui.press(KEYS.enter);
			frame = await tui.waitFor((f) => f.includes('REPLAY step'), 'the replay');
			await tui.settle();
			await tui.press('r');
			frame = await tui.waitFor((f) => f.includes('This session is completed'), 'the refusal in the replay');
			await tui.press('b');
			await tui.waitFor((f) => f.includes('Saved sessions'), 'back to the list');
			await tui.settle();
			await tui.press('q');
			await tui.exited;
		} finally {
			tui.unmount();
		}
	});
});

async function stepToEndFrom(tui: TuiHandle, first: number): Promise<string> {
	for (let n = first; n < first + 30; n++) {
		await tui.press('n');
		const frame = await tui.waitFor((f) => f.includes(`│ step ${n} │`) && idle(f), `step ${n}`);
		if (frame.includes('✓ done')) return frame;
	}
	throw new Error('the episode did not finish');
}
