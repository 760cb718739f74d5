import assert from 'node:assert/strict';
import {describe, it} from 'node:test';
import {HumanInput} from '../src/tui/components/HumanInput.js';
import {editorOf, type EditorState} from '../src/tui/text/editor.js';
import {displayWidth} from '../src/tui/text/width.js';
import {liveFrameKeys} from '../src/tui/view/episodeKeys.js';
import {footerLine} from '../src/tui/view/keyTable.js';
import {inputBoxRows, inputShown} from '../src/tui/view/layout.js';
import {sessionColumns} from '../src/tui/view/sessionsList.js';
import {fitSegments, type Segment} from '../src/tui/view/status.js';
import {renderTui} from './helpers/tuiRender.js';

/*
 * Narrow terminals keep the essentials (issue 22, item 4): the footer keeps `q quit`, the status line
 * keeps the phase and the call timer while detail goes in a fixed order, the sessions list keeps DATE
 * whole, the reply box grows with the draft up to a limit and then says what is out of view.
 */

describe('narrow terminals', () => {
	it('the footer keeps q quit and the keys of the moment at 100 and 60 columns', () => {
		for (const width of [100, 60]) {
			const line = footerLine(liveFrameKeys({phase: 'idle', human: false, open: true, auto: false, canBack: true}), width);
			assert.ok(displayWidth(line) <= width, line);
			assert.match(line, /^n step/);
			assert.match(line, /q quit$/);
		}
	});

	it('the status line shortens, then drops detail in a fixed order, keeping the phase and the call timer', () => {
		const segments: Segment[] = [
			{text: '▶ simulator replies (t=3)…', tone: 'accent'},
			{text: 'step 10 ▶', tone: 'dim', short: 's10', drop: 5},
			{text: 'turn t=3 (max t=4)', tone: 'normal', short: 't=3/4', drop: 2},
			{text: 'shard 3/4', tone: 'private', short: '§3/4', drop: 4},
			{text: '⏳ simulator 28.0 s · attempt 1/5 · timeout 120.0 s', tone: 'warn', short: '⏳ simulator 28.0 s 1/5 ≤120.0 s'},
			{text: '10 calls · 13.7k tok · $0', tone: 'dim', short: '13.7k tok · $0', drop: 3},
		];
		const at = (width: number) => fitSegments(segments, width).map((segment) => segment.text);
		assert.deepEqual(at(200), segments.map((segment) => segment.text), 'all of it when it fits');
		const hundred = at(100);
		assert.ok(displayWidth(hundred.join(' │ ')) <= 100, hundred.join(' │ '));
		assert.ok(hundred.includes('▶ simulator replies (t=3)…'));
		assert.ok(hundred.some((text) => text.startsWith('⏳ simulator 28.0 s')), 'the call timer stays');
		assert.ok(hundred.includes('13.7k tok · $0'), 'tokens and cost shortened, not dropped, at 100 columns');
		const sixty = at(60);
		// At 60 only what never drops is left (the status bar cuts the end of the line if it must).
		assert.deepEqual(sixty, ['▶ simulator replies (t=3)…', '⏳ simulator 28.0 s 1/5 ≤120.0 s'], 'at 60: the phase and the call in flight');
	});

	it('the sessions list keeps DATE whole and fits 160 and 100 columns', () => {
		for (const width of [160, 100, 60]) {
			const columns = sessionColumns(width);
			const used = 3 + columns.reduce((sum, column) => sum + column.width + 1, -1);
			assert.ok(used <= width, `${used} > ${width}`);
			assert.equal(columns.find((column) => column.header === 'DATE')?.width, 16, `DATE whole at ${width}`);
			assert.ok(columns.some((column) => column.header === 'ID'));
		}
		assert.equal(sessionColumns(200).length, 10, 'every column on a wide terminal');
	});

	it('the reply box grows with the draft to a limit, then scrolls and says what is above', async () => {
		assert.equal(inputShown(30, 1), 2);
		assert.equal(inputShown(30, 5), 5);
		assert.equal(inputShown(30, 12), 6, 'up to the limit at 30 rows');
		assert.equal(inputBoxRows(inputShown(30, 12)), 9);
		let state: EditorState = editorOf(Array.from({length: 10}, (_, i) => `line ${i + 1} of the draft`).join('\n'));
		const draft = {state, get: () => state, set: (next: EditorState) => void (state = next)};
		const view = renderTui(<HumanInput draft={draft} t={1} width={100} maxLines={inputShown(30, 10)} focused onSend={() => {}} onBlur={() => {}} onScroll={() => {}} env={{}} />, {columns: 100, rows: 30});
		try {
			const frame = await view.waitFor((f) => f.includes('line 10 of the draft'), 'the box');
			assert.match(frame, /↑ 4 more above/);
			assert.doesNotMatch(frame, /line 4 of the draft/);
		} finally {
			view.unmount();
		}
	});
});
