import assert from 'node:assert/strict';
import {setupFields} from './helpers/summaryFixture.js';
import {describe, it} from 'node:test';
import type {Session} from '../src/domain/session.js';
import {initialLive, liveReducer, retryLabel} from '../src/tui/episode/liveState.js';
import {initialUi, uiReducer} from '../src/tui/episode/uiState.js';
import {appReducer, backOf} from '../src/tui/appState.js';
import {EMPTY_EDITOR, type EditorState, editKey, editorLines} from '../src/tui/text/editor.js';
import {parsePresses} from '../src/tui/text/keys.js';
import {fuzzyFilter} from '../src/tui/text/fuzzy.js';
import {blockAt, effectiveOffset, FOLLOW, maxOffset, pageSize, pageStart, scrollBy, slicesInWindow, TOP, visibleRange} from '../src/tui/text/scroll.js';
import {displayWidth, fit, truncate} from '../src/tui/text/width.js';
import {wrapText} from '../src/util/wrap.js';
import {episodeLayout, isNarrow} from '../src/tui/view/layout.js';
import {BlockCache, layoutBlocks, wrapBlock} from '../src/present/panes/lines.js';
import {choicesToFlags, cycleChoice, initialChoices, initialOptions, OPTION_ROWS, optionsKey} from '../src/tui/view/options.js';
import {initialPersonaPicker, initialTemplatePicker, personaPickerKey, templatePickerKey} from '../src/tui/view/pickerState.js';
import {cycleFilter, NO_FILTERS, visiblePersonas} from '../src/tui/view/pickers.js';
import {formatSeconds, formatTokens} from '../src/tui/view/status.js';
import {sessionRow, initialSessionsScreen, nextSort, sessionsKey, visibleSessions} from '../src/tui/view/sessionsList.js';
import type {SessionSummary} from '../src/domain/sessionSummary.js';
import {testUniverse} from './helpers/tuiFixture.js';

describe('display width', () => {
	it('counts ASCII as 1, CJK and Hangul as 2, combining marks as 0', () => {
		assert.equal(displayWidth('hello'), 5);
		assert.equal(displayWidth('日本語'), 6);
		assert.equal(displayWidth('한국어'), 6);
		assert.equal(displayWidth('e\u0301'), 1);
		assert.equal(displayWidth('ที่นี่'), 2, 'Thai tone marks and above-vowels take no column');
		assert.equal(displayWidth('வணக்கம்'), 5, 'Tamil vowel signs that take a column count one');
		assert.equal(displayWidth('👍'), 2);
		assert.equal(displayWidth(''), 0);
	});
	it('truncates with an ellipsis and pads to an exact width', () => {
		assert.equal(truncate('abcdef', 4), 'abc…');
		assert.equal(truncate('abc', 4), 'abc');
		assert.equal(truncate('日本語です', 5), '日本…');
		assert.equal(fit('ab', 4), 'ab  ');
		assert.equal(displayWidth(fit('日本語です', 7)), 7);
	});
});

describe('wrapText', () => {
	it('wraps on spaces and never exceeds the width', () => {
		const lines = wrapText('the quick brown fox jumps over the lazy dog', 10);
		assert.deepEqual(lines, ['the quick', 'brown fox', 'jumps over', 'the lazy', 'dog']);
	});
	it('keeps paragraphs, empty lines, leading indentation and inner spacing', () => {
		assert.deepEqual(wrapText('a\n\n  b', 10), ['a', '', '  b']);
		assert.deepEqual(wrapText('score   5', 20), ['score   5']);
	});
	it('indents and hangs continuation lines', () => {
		assert.deepEqual(wrapText('one two three four', 9, {indent: 2, hang: 2}), ['  one two', '    three', '    four']);
	});
	it('breaks long words and spaceless scripts between clusters', () => {
		assert.deepEqual(wrapText('abcdefghij', 4), ['abcd', 'efgh', 'ij']);
		const cjk = wrapText('我想请教一下关于家庭聚会的安排问题', 10);
		for (const line of cjk) assert.ok(displayWidth(line) <= 10, line);
		assert.equal(cjk.join(''), '我想请教一下关于家庭聚会的安排问题');
	});
	it('returns one empty line for empty text and survives width 1', () => {
		assert.deepEqual(wrapText('', 10), ['']);
		for (const line of wrapText('ab cd', 1)) assert.ok(displayWidth(line) <= 1);
	});
});

describe('scroll arithmetic', () => {
	it('clamps offsets and follows the end', () => {
		assert.equal(maxOffset(100, 10), 90);
		assert.equal(maxOffset(5, 10), 0);
		assert.equal(effectiveOffset(FOLLOW, 100, 10), 90);
		assert.equal(effectiveOffset({offset: 500, follow: false}, 100, 10), 90);
		assert.equal(pageSize(10), 9);
		assert.equal(pageSize(1), 1);
	});
	it('scrolling up leaves follow mode; reaching the end again re-enters it where the pane follows', () => {
		const up = scrollBy(FOLLOW, -5, 100, 10, {followAtEnd: true});
		assert.deepEqual(up, {offset: 85, follow: false});
		assert.deepEqual(scrollBy(up, 50, 100, 10, {followAtEnd: true}), {offset: 90, follow: true});
		assert.deepEqual(scrollBy(TOP, 500, 100, 10), {offset: 90, follow: false});
		assert.deepEqual(scrollBy(TOP, -3, 100, 10), {offset: 0, follow: false});
	});
	it('finds the blocks in a window by binary search', () => {
		const starts = [0, 3, 10, 11];
		assert.equal(blockAt(starts, 0), 0);
		assert.equal(blockAt(starts, 2), 0);
		assert.equal(blockAt(starts, 3), 1);
		assert.equal(blockAt(starts, 10), 2);
		assert.equal(blockAt(starts, 99), 3);
		assert.deepEqual(slicesInWindow(starts, 15, 2, 12), [
			{block: 0, from: 2, to: 3},
			{block: 1, from: 0, to: 7},
			{block: 2, from: 0, to: 1},
			{block: 3, from: 0, to: 1},
		]);
		assert.deepEqual(visibleRange(95, 10, 100), {from: 95, to: 100});
	});
	it('keeps a selection in view, a page at a time', () => {
		assert.equal(pageStart(0, 10, 50), 0);
		assert.equal(pageStart(15, 10, 50), 10);
		assert.equal(pageStart(49, 10, 50), 40);
		assert.equal(pageStart(47, 10, 47), 37);
	});
});

describe('fuzzy matching', () => {
	it('ranks the best match first, needs every word, and keeps the order for an empty query', () => {
		const ranked = fuzzyFilter(['my-malay-muslim-a18-f', 'my-tamil-hindu-a55-f', 'sg-tamil-a35-m'], 'tamil hindu', (x) => x);
		assert.equal(ranked[0], 'my-tamil-hindu-a55-f');
		assert.deepEqual(fuzzyFilter(['my-tamil', 'xyz'], 'qqqq', (x) => x), []);
		assert.deepEqual(fuzzyFilter(['b', 'a'], '', (x) => x), ['b', 'a']);
	});
	it('tolerates a typo but does not match scattered letters (the shipped personas and templates)', () => {
		const universe = testUniverse();
		const tamol = fuzzyFilter(universe.personas, 'tamol', (p) => `${p.id} ${p.identity}`);
		assert.ok(tamol.length > 0 && tamol.every((p) => /tamil/i.test(`${p.id} ${p.identity}`)), tamol.map((p) => p.id).join());
		const funerals = fuzzyFilter(universe.templates, 'funeral', (t) => `${t.id} ${t.title} ${t.sketch}`);
		const expected = universe.templates.filter((t) => /funeral/i.test(`${t.title} ${t.sketch}`));
		assert.deepEqual(funerals.map((t) => t.id).sort(), expected.map((t) => t.id).sort());
	});
});

describe('the human reply box', () => {
	/** Types raw terminal input into an editor, as the box does, and returns the final state or what it asked for. */
	const typeRaw = (raw: string[], from: EditorState = EMPTY_EDITOR) => {
		let state = from;
		const asked: string[] = [];
		for (const chunk of raw) {
			for (const press of parsePresses(chunk)) {
				const result = editKey(state, press);
				if (result.kind === 'edit' || result.kind === 'empty' || result.kind === 'blur' || result.kind === 'scroll' || result.kind === 'external') state = result.state;
				asked.push(result.kind === 'send' ? `send:${result.text}` : result.kind);
			}
		}
		return {state, asked};
	};
	it('keeps every key of one read: text, Backspaces (DEL and ^H), Enter as a new line, in order', () => {
		assert.equal(typeRaw(['abcdef\u007f\u007f\u007f\u007f\u007f\u007fPara one.']).state.text, 'Para one.');
		assert.equal(typeRaw(['one\r\rtwo\b\bwo']).state.text, 'one\n\ntwo');
		assert.equal(typeRaw(['tamil ', 'தமிழ்', '\u007f']).state.text, 'tamil தமி', 'Backspace removes a whole grapheme cluster (ழ் with its virama)');
	});
	it('moves by character, word and line, and deletes words and line ends', () => {
		assert.equal(typeRaw(['hello world', '\u001B[D', '\u001B[D', 'X']).state.text, 'hello worXld');
		assert.equal(typeRaw(['hello world', '\u001B[1;5D', 'big ']).state.text, 'hello big world', 'Ctrl-Left: a word back');
		assert.equal(typeRaw(['hello world', '\u0017']).state.text, 'hello ', 'Ctrl-W');
		assert.equal(typeRaw(['hello world', '\u001B\u007f']).state.text, 'hello ', 'Alt-Backspace');
		assert.equal(typeRaw(['one\rtwo three', '\u0015']).state.text, 'one\n', 'Ctrl-U: to the start of the line');
		assert.equal(typeRaw(['one two', '\u0001', '\u000B']).state.text, '', 'Ctrl-A then Ctrl-K');
		assert.equal(typeRaw(['abc', '\u001B[H', '\u001B[3~']).state.text, 'bc', 'Home, Delete');
		assert.equal(typeRaw(['first line\rsecond', '\u001B[A', '\u001B[F', '!']).state.text, 'first line!\nsecond', 'Up then End');
	});
	it('sends with Ctrl-S or Alt-Enter, refuses an empty reply, leaves with Esc, hands off with Ctrl-X, scrolls with PgUp/PgDn', () => {
		assert.deepEqual(typeRaw(['a\rb', '\u0013']).asked.at(-1), 'send:a\nb');
		assert.deepEqual(typeRaw(['hi', '\u001B\r']).asked.at(-1), 'send:hi');
		assert.deepEqual(typeRaw(['  ', '\u0013']).asked.at(-1), 'empty');
		assert.deepEqual(typeRaw(['x', '\u001B']).asked.at(-1), 'blur');
		assert.deepEqual(typeRaw(['x', '\u0018']).asked.at(-1), 'external');
		assert.deepEqual(typeRaw(['\u001B[5~']).asked.at(-1), 'scroll');
		assert.equal(typeRaw(['\u001B[200~', 'pasted\r\nlines', '\u001B[201~']).state.text, 'pasted\nlines', 'a bracketed paste inserts its text and never sends');
	});
	it('draws the cursor where it is and keeps its line in view', () => {
		const {state} = typeRaw(['one two three four five', '\u001B[1;5D', '\u001B[1;5D']);
		const {lines, cursorLine} = editorLines(state, 10, true);
		assert.ok(lines[cursorLine]!.includes('▌'), lines.join('|'));
		assert.equal(lines.join(' ').replace('▌', '').replace(/\s+/g, ' ').trim(), 'one two three four five');
	});
});

describe('layout', () => {
	it('uses three panes from 120 columns and tabs below, and stays one row short of the terminal', () => {
		assert.equal(isNarrow(119), true);
		assert.equal(isNarrow(120), false);
		const wide = episodeLayout({columns: 160, rows: 48, chromeRows: 5});
		assert.equal(wide.narrow, false);
		assert.equal(wide.widths.public + wide.widths.private + wide.widths.oracle, 160);
		assert.equal(wide.paneHeight + 5, 47);
		assert.equal(wide.bodyHeight, wide.paneHeight - 3);
		assert.equal(wide.contentWidths.public, wide.widths.public - 4);
		const narrow = episodeLayout({columns: 80, rows: 24, chromeRows: 6});
		assert.equal(narrow.narrow, true);
		assert.equal(narrow.widths.private, 80);
		const tiny = episodeLayout({columns: 10, rows: 5, chromeRows: 10});
		assert.ok(tiny.bodyHeight >= 1);
	});
});

describe('pane lines', () => {
	it('wraps a block once per width and keeps block objects stable while their inputs are unchanged', () => {
		const cache = new BlockCache();
		const text = 'a fairly long line of text that will wrap';
		const a = cache.get('x', [text], () => [{text, indent: 2}]);
		const b = cache.get('x', [text], () => [{text, indent: 2}]);
		assert.equal(a, b);
		assert.notEqual(cache.get('x', ['other'], () => [{text: 'other'}]), a);
		const wrapped = wrapBlock(a, 12);
		assert.equal(wrapBlock(a, 12), wrapped, 'same array for the same width');
		assert.ok(wrapped.every((line) => line.text.length <= 12 && line.text.startsWith('  ')));
		const layout = layoutBlocks([a, {key: 'y', lines: [{text: 'one'}]}], 12);
		assert.deepEqual(layout.starts, [0, wrapped.length]);
		assert.equal(layout.total, wrapped.length + 1);
	});
});

describe('status formatting', () => {
	it('formats tokens, seconds and retry labels', () => {
		assert.equal(formatTokens(950), '950');
		assert.equal(formatTokens(12_345), '12.3k');
		assert.equal(formatTokens(2_500_000), '2.50M');
		assert.equal(formatSeconds(250), '250 ms');
		assert.equal(formatSeconds(2000), '2.0 s');
		assert.equal(retryLabel('simulator', 'HTTP 429', 2000), 'retrying simulator (429, 2.0 s)');
	});
});

describe('live episode state', () => {
	const session = {error: null} as unknown as Session;
	it('accumulates streamed tokens, drops them on a retried stream, and tracks the step in flight', () => {
		let state = initialLive(session);
		state = liveReducer(state, {type: 'run-start'});
		assert.equal(state.inFlight, true);
		state = liveReducer(state, {type: 'event', session, at: 'now', event: {type: 'step_started', step: 4, label: 'assistant replies (t=0)'}});
		assert.equal(state.running, 'assistant replies (t=0)');
		state = liveReducer(state, {type: 'event', session, at: 'now', event: {type: 'assistant_token', t: 0, delta: 'Hello '}});
		state = liveReducer(state, {type: 'event', session, at: 'now', event: {type: 'assistant_token', t: 0, delta: 'there'}});
		assert.deepEqual(state.streaming, {t: 0, text: 'Hello there'});
		state = liveReducer(state, {type: 'event', session, at: 'now', event: {type: 'call_retried', callId: 'c', role: 'assistant', stage: 'assistant', attempt: 1, reason: 'HTTP 429', delayMs: 1500}});
		assert.equal(state.streaming, null, 'a retried stream starts over');
		assert.equal(state.retry, 'retrying assistant (429, 1.5 s)');
		assert.equal(state.notices.at(-1)?.level, 'warn');
		state = liveReducer(state, {type: 'event', session, at: 'now', event: {type: 'step_done', step: 4, label: 'x', status: 'running'}});
		assert.equal(state.running, null);
		state = liveReducer(state, {type: 'run-end', session});
		assert.equal(state.inFlight, false);
		assert.equal(state.retry, null);
	});
	it('records failures as the current problem and keeps a bounded notice log', () => {
		let state = initialLive(session);
		for (let i = 0; i < 250; i++) state = liveReducer(state, {type: 'notice', level: 'info', text: `n${i}`, at: 'now'});
		assert.equal(state.notices.length, 200);
		assert.equal(state.notices.at(-1)?.text, 'n249');
		state = liveReducer(state, {type: 'crash', message: 'step failed: boom', session, at: 'now'});
		assert.equal(state.problem, 'step failed: boom');
		assert.equal(state.auto, false);
	});
});

describe('episode screen UI state', () => {
	it('cycles focus, scrolls the focused pane and opens overlays', () => {
		let ui = initialUi();
		ui = uiReducer(ui, {type: 'focus-step', delta: -1});
		assert.equal(ui.focus, 'oracle');
		const extents = {public: {total: 50, height: 10}, private: {total: 50, height: 10}, oracle: {total: 50, height: 10}};
		ui = uiReducer(ui, {type: 'scroll', lines: 3, extents});
		assert.deepEqual(ui.scroll.oracle, {offset: 3, follow: false});
		ui = uiReducer(ui, {type: 'focus', pane: 'public'});
		ui = uiReducer(ui, {type: 'page', pages: -1, extents});
		assert.deepEqual(ui.scroll.public, {offset: 31, follow: false}, 'Public starts following the end');
		ui = uiReducer(ui, {type: 'bottom', extents});
		assert.deepEqual(ui.scroll.public, {offset: 40, follow: true});
		ui = uiReducer(ui, {type: 'overlay', overlay: 'inspector'});
		assert.equal(ui.overlay, 'inspector');
		ui = uiReducer(ui, {type: 'leave-input', t: 2});
		assert.equal(ui.inputLeftAt, 2);
	});
	it('navigates between screens', () => {
		const state = appReducer({screen: {kind: 'home'}, busy: null, error: null}, {type: 'busy', message: 'x'});
		assert.equal(state.busy, 'x');
		assert.equal(appReducer(state, {type: 'failed', message: 'nope'}).error, 'nope');
		assert.deepEqual(appReducer(state, {type: 'go', screen: {kind: 'sessions'}}), {screen: {kind: 'sessions'}, busy: null, error: null});
		assert.deepEqual(backOf({kind: 'persona'}), {kind: 'home'});
		assert.equal(backOf({kind: 'home'}), null);
	});
});

describe('pickers', () => {
	const universe = testUniverse();
	it('filters personas by region, identity, age and gender, and by fuzzy typing', () => {
		assert.equal(visiblePersonas(universe, NO_FILTERS, '').length, 348);
		let filters = cycleFilter(universe, NO_FILTERS, 'region', 1);
		assert.ok(filters.region);
		const inRegion = visiblePersonas(universe, filters, '');
		assert.ok(inRegion.length > 0 && inRegion.every((persona) => persona.region === filters.region));
		filters = cycleFilter(universe, filters, 'identity', 1);
		filters = cycleFilter(universe, filters, 'age', 1);
		filters = cycleFilter(universe, filters, 'gender', 1);
		assert.equal(visiblePersonas(universe, filters, '').length, 1);
		const region = cycleFilter(universe, filters, 'region', 1);
		assert.equal(region.identity, null, 'changing the region clears an identity of another region');
		assert.equal(visiblePersonas(universe, NO_FILTERS, 'tamil hindu 55 f')[0]?.id, 'my-tamil-hindu-a55-f');
	});
	it('handles picker keys as a reducer (several keys before a render act on the latest state)', () => {
		const page = 10;
		let state = initialPersonaPicker();
		for (const input of 'zzzz') state = personaPickerKey(universe, state, {input, key: {}, page});
		assert.equal(state.query, 'zzzz');
		state = personaPickerKey(universe, state, {input: '', key: {escape: true}, page});
		assert.equal(state.query, '');
		state = personaPickerKey(universe, state, {input: '', key: {downArrow: true}, page});
		state = personaPickerKey(universe, state, {input: '', key: {downArrow: true}, page});
		state = personaPickerKey(universe, state, {input: '', key: {return: true}, page});
		assert.equal(state.chosen, universe.personas[2]!.id);
		assert.equal(personaPickerKey(universe, initialPersonaPicker(), {input: '', key: {escape: true}, page}).back, true);

		let template = initialTemplatePicker();
		template = templatePickerKey(universe, template, {input: '', key: {return: true}, page});
		template = templatePickerKey(universe, template, {input: '', key: {return: true}, page});
		template = templatePickerKey(universe, template, {input: '', key: {downArrow: true}, page});
		template = templatePickerKey(universe, template, {input: '', key: {return: true}, page});
		assert.equal(template.chosen, 'culinary.dietary-rules.02');
		let search = initialTemplatePicker();
		for (const input of 'dietary rules 03') search = templatePickerKey(universe, search, {input, key: {}, page});
		search = templatePickerKey(universe, search, {input: '', key: {return: true}, page});
		assert.match(search.chosen ?? '', /^culinary\.dietary-rules\./);
	});
	it('turns option choices into the flags `run` takes', () => {
		const choices = initialChoices({lang: 'native', human: true, simulatorModel: 'gpt-5-nano'});
		assert.deepEqual(choices, {tier: 'seed', lang: 'native', mode: 'eval', assistant: 'me', bestOf: 'off', maxTurns: '5', judgeMode: 'separate', models: {simulator: 'gpt-5-nano'}});
		assert.equal(cycleChoice(choices, 'tier', 1).tier, 'standard');
		assert.equal(cycleChoice(choices, 'tier', -1).tier, 'normative');
		assert.deepEqual(choicesToFlags('p', 't', choices), {persona: 'p', template: 't', tier: undefined, lang: 'native', mode: 'eval', human: true, bestOf: undefined, maxTurns: 5, judgeMode: 'separate', simulatorModel: 'gpt-5-nano'});
		assert.deepEqual(choicesToFlags('p', 't', cycleChoice(cycleChoice(choices, 'maxTurns', 1), 'judgeMode', 1)), {...choicesToFlags('p', 't', choices), maxTurns: 6, judgeMode: 'combined'}, 'max turns and judge mode on the options screen');
		assert.equal(choicesToFlags('p', 't', {...choices, assistant: 'model', bestOf: '4'}).bestOf, 4);
		assert.equal(choicesToFlags('p', 't', {...choices, bestOf: '4'}).bestOf, undefined, 'a person playing the assistant writes one reply');
		assert.equal(initialChoices({bestOf: 3}).bestOf, '3');
		assert.equal(choicesToFlags('p', 't', cycleChoice(choices, 'tier', 1)).tier, 'standard');
		let state = initialOptions({});
		assert.equal(OPTION_ROWS[state.row]!.kind, 'start');
		state = optionsKey(state, '', {upArrow: true});
		assert.deepEqual(OPTION_ROWS[state.row], {kind: 'enum', field: 'bestOf'});
		state = optionsKey(state, '', {upArrow: true});
		state = optionsKey(state, '', {return: true});
		assert.equal(state.editing, '');
		for (const input of 'gpt-5') state = optionsKey(state, input, {});
		state = optionsKey(state, '', {return: true});
		assert.equal(state.choices.models.judge, 'gpt-5');
		assert.equal(optionsKey(state, 's', {}).start, true);
		assert.equal(optionsKey(state, '', {escape: true}).back, true);
	});
});

describe('sessions list', () => {
	const summary = (patch: Partial<SessionSummary>): SessionSummary => ({
		id: 'id',
		path: '/x',
		status: 'completed',
		createdAt: '2026-01-01T00:00:00.000Z',
		updatedAt: '2026-01-01T00:00:00.000Z',
		seedId: 's',
		personaId: 'p',
		identity: 'I',
		region: 'MY',
		templateId: 't',
		tier: 'standard',
		split: 'train',
		language: 'english',
		mode: 'eval',
		assistant: 'llm',
		assistantModel: 'mock',
		turns: 4,
		threeH: null,
		tdq: null,
		clean: null,
		scores: null,
		judgeModel: 'mock',
		judgeMode: 'separate',
		rejudgeOf: null,
		errorFlag: null,
		termination: null,
		mock: true,
		...setupFields({mock: true}),
		...patch,
	});
	const rows = [
		summary({id: 'a', personaId: 'my-tamil-hindu-a55-f', createdAt: '2026-01-02T00:00:00Z', threeH: 4}),
		summary({id: 'b', personaId: 'jp-yamato-buddhist-a35-m', createdAt: '2026-01-03T00:00:00Z', threeH: 2, status: 'running'}),
		summary({id: 'c', personaId: 'th-isan-a35-m', createdAt: '2026-01-01T00:00:00Z', threeH: null}),
	];
	it('filters by words and sorts', () => {
		assert.deepEqual(visibleSessions(rows, '', 'newest').map((s) => s.id), ['b', 'a', 'c']);
		assert.deepEqual(visibleSessions(rows, '', 'oldest').map((s) => s.id), ['c', 'a', 'b']);
		assert.deepEqual(visibleSessions(rows, '', '3H').map((s) => s.id), ['a', 'b', 'c'], 'best first, unscored last');
		assert.deepEqual(visibleSessions(rows, 'tamil', 'newest').map((s) => s.id), ['a']);
		assert.deepEqual(visibleSessions(rows, 'running jp', 'newest').map((s) => s.id), ['b']);
		assert.equal(nextSort('persona'), 'newest');
	});
	it('handles keys as a reducer: / filter, s sort, r resumes unfinished and retries errored sessions, h hides scores, m/d compare', () => {
		let state = initialSessionsScreen();
		state = sessionsKey(rows, state, '/', {}, 10);
		for (const input of 'isan') state = sessionsKey(rows, state, input, {}, 10);
		assert.equal(state.query, 'isan');
		state = sessionsKey(rows, state, '', {return: true}, 10);
		assert.equal(state.filtering, false);
		assert.match(sessionsKey(rows, state, 'r', {}, 10).note ?? '', /is completed: nothing to resume/);
		assert.equal(sessionsKey(rows, state, '', {return: true}, 10).command, 'open');
		let all = initialSessionsScreen();
		assert.equal(sessionsKey(rows, all, 'r', {}, 10).command, 'resume', 'the newest (b) is running');
		all = sessionsKey(rows, all, 's', {}, 10);
		assert.equal(all.sort, 'oldest');
		assert.equal(sessionsKey(rows, all, 'q', {}, 10).command, 'quit');
		const errored = [...rows, summary({id: 'e', createdAt: '2026-01-04T00:00:00Z', status: 'error', errorFlag: 'JUDGE_ERROR'})];
		assert.equal(sessionsKey(errored, initialSessionsScreen(), 'r', {}, 10).command, 'resume', 'an errored session: r retries it');
		const hidden = sessionsKey(rows, initialSessionsScreen(), 'h', {}, 10);
		assert.equal(hidden.hideScores, true);
		assert.ok(!sessionRow(rows[0]!, {hideScores: true}).includes('4.00') && sessionRow(rows[0]!).includes('4.00'));
		let marking = sessionsKey(rows, initialSessionsScreen(), 'm', {}, 10);
		assert.match(sessionsKey(rows, marking, 'd', {}, 10).note ?? '', /Mark two/);
		marking = sessionsKey(rows, sessionsKey(rows, marking, '', {downArrow: true}, 10), 'm', {}, 10);
		assert.deepEqual(marking.marked, ['b', 'a']);
		assert.equal(sessionsKey(rows, marking, 'd', {}, 10).command, 'compare', 'same seed: compare');
		const otherSeed = rows.map((row) => (row.id === 'a' ? {...row, seedId: 'other:seed'} : row));
		assert.match(sessionsKey(otherSeed, marking, 'd', {}, 10).note ?? '', /different seeds/);
	});
	it('filters by field: model, judge, scores, clean', () => {
		const scored = [summary({id: 'x', assistantModel: 'qwen3:8b', threeH: 4.5, clean: true}), summary({id: 'y', assistantModel: 'gpt-5-mini', threeH: 3, clean: false}), summary({id: 'z', assistantModel: 'gpt-5-mini', threeH: null})];
		const ids = (query: string) => visibleSessions(scored, query, 'newest').map((s) => s.id).sort();
		assert.deepEqual(ids('model:qwen'), ['x']);
		assert.deepEqual(ids('model:gpt 3h>=3'), ['y']);
		assert.deepEqual(ids('3h<4'), ['y']);
		assert.deepEqual(ids('clean:no'), ['y']);
	});
});
