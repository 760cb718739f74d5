import assert from 'node:assert/strict';
import path from 'node:path';
import {after, before, describe, it} from 'node:test';
import {readSession} from '../src/store/sessionStore.js';
import {App} from '../src/tui/App.js';
import {tuiFixture, type TuiFixture} from './helpers/tuiFixture.js';
import {KEYS, renderTui} from './helpers/tuiRender.js';

/*
 * The sessions screen's route to a session still played blind (issue 22, items 1 and 5): Enter asks
 * first; anything but y keeps it blind and unmarked; y marks the file (route tui-replay, the step)
 * before the replay shows its hidden panes; b comes back to the list with its filter as it was.
 */

let fx: TuiFixture;
before(() => {
	fx = tuiFixture();
});
after(() => fx.close());

describe('the sessions screen and a session still played blind', () => {
	it('asks before replaying it, records yes on the file, and keeps the filter across the round trip', async () => {
		const engine = await fx.services().startEpisode({persona: 'th-isan-a35-m', template: 'culinary.dietary-rules.02', tier: 'standard', human: true});
		await engine.runToEnd();
		engine.close();
		const file = path.join(fx.sessionsDir, `${engine.session.id}.json`);
		const tui = renderTui(<App services={fx.services()} initial={{kind: 'sessions'}} />, {columns: 160, rows: 30});
		try {
			await tui.waitFor((f) => f.includes('Saved sessions'), 'the list');
			await tui.settle();
			await tui.press('/');
			await tui.press('isan');
			await tui.press(KEYS.enter);
			await tui.waitFor((f) => f.includes('filter: isan') && f.includes('Enter replay'), 'filtered');
			await tui.press(KEYS.enter);
			let frame = await tui.waitFor((f) => f.includes('is played blind and not finished'), 'Enter asks first');
			assert.match(frame, /y show it \(recorded on the session\) · r resume it blind · any other key cancels/);
			assert.doesNotMatch(frame, /REPLAY/);
			await tui.press('x');
			await tui.waitFor((f) => f.includes('Not opened: the session stays blind.'), 'declined');
			assert.equal(readSession(file).sawHidden, undefined, 'declining marks nothing');
			await tui.press(KEYS.enter);
			await tui.waitFor((f) => f.includes('is played blind and not finished'), 'asked again');
			await tui.press('y');
			frame = await tui.waitFor((f) => f.includes('REPLAY step'), 'y opens the replay');
			assert.match(frame, /Oracle/);
			const marked = readSession(file);
			assert.equal(marked.sawHidden, true);
			assert.deepEqual(marked.hiddenViews?.map((seen) => [seen.view, seen.step]), [['tui-replay', engine.session.steps.length]]);
			await tui.settle();
			await tui.press('b');
			frame = await tui.waitFor((f) => f.includes('Saved sessions'), 'back to the list');
			assert.match(frame, /filter: isan/, 'the filter survived the replay');
			assert.match(frame, /H!/, 'the row is now marked as having seen hidden state');
		} finally {
			tui.unmount();
		}
	});
});
