import assert from 'node:assert/strict';
import {mkdirSync, writeFileSync} from 'node:fs';
import path from 'node:path';
import {after, before, describe, it} from 'node:test';
import {App} from '../src/tui/App.js';
import {runCli} from './helpers/cli.js';
import {tuiFixture, type TuiFixture} from './helpers/tuiFixture.js';
import {KEYS, renderTui} from './helpers/tuiRender.js';

/* The CRISP items screen: items built by `crisp build`, listed, opened round by round. */

let fx: TuiFixture;
before(() => {
	fx = tuiFixture();
});
after(() => fx.close());

describe('CRISP items in the TUI', () => {
	it('lists built items from the home screen and opens one round by round', async () => {
		const built = await runCli(['crisp', 'build', '--region', 'KR', '--limit', '3', '--chronotopes', '1', '--sessions-dir', fx.sessionsDir, '--json'], {env: fx.env, cwd: fx.dir});
		assert.equal(built.code, 0, built.stderr);
		const tui = renderTui(<App services={fx.services()} initial={{kind: 'home'}} />);
		try {
			await tui.waitFor((f) => f.includes('CRISP items'), 'the home screen entry');
			await tui.settle();
			await tui.press('c');
			let frame = await tui.waitFor((f) => /CRISP items · \d+ kept/.test(f), 'the items list');
			assert.match(frame, /norm\.tab-kr-\d+\.c1/);
			assert.equal((frame.match(/norm\.tab-kr-/g) ?? []).length, 3);
			await tui.settle();
			await tui.press(KEYS.enter);
			frame = await tui.waitFor((f) => f.includes('CRISP item norm.tab-kr-'), 'one item');
			assert.match(frame, /Round 1: (keep|rerun-answer|revise-question)/);
			assert.match(frame, /checks: actionCorrect=\d/);
			assert.doesNotMatch(frame, /\u001B\[1m/, 'no raw colour codes inside Ink text');
			await tui.press(KEYS.escape);
			await tui.waitFor((f) => /CRISP items · \d+ kept/.test(f), 'back to the list');
			await tui.press(KEYS.escape);
			await tui.waitFor((f) => f.includes('New episode'), 'back home');
		} finally {
			tui.unmount();
		}
	});

	it('says how to build items when there are none, and shows a damaged file as a warning', async () => {
		const empty = tuiFixture();
		try {
			const tui = renderTui(<App services={empty.services()} initial={{kind: 'items'}} />);
			try {
				await tui.waitFor((f) => f.includes('No items yet: build some with'), 'the empty hint');
			} finally {
				tui.unmount();
			}
			mkdirSync(path.join(empty.sessionsDir, 'crisp'), {recursive: true});
			writeFileSync(path.join(empty.sessionsDir, 'crisp', 'items.jsonl'), '{"id": 1}\n{"id": 2}\n');
			const damaged = renderTui(<App services={empty.services()} initial={{kind: 'items'}} />);
			try {
				await damaged.waitFor((f) => /⚠ .*items\.jsonl.*line 1/.test(f), 'the warning naming the line');
			} finally {
				damaged.unmount();
			}
		} finally {
			empty.close();
		}
	});
});
