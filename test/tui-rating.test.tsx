import assert from 'node:assert/strict';
import {existsSync, readFileSync, writeFileSync} from 'node:fs';
import path from 'node:path';
import {after, before, describe, it} from 'node:test';
import type {Key} from 'ink';
import {ratingsOf, saveRatings} from '../src/store/ratingStore.js';
import {App} from '../src/tui/App.js';
import {initialRatingForm, ratingKey} from '../src/tui/view/ratingForm.js';
import {parseJson, runCli} from './helpers/cli.js';
import {tuiFixture, type TuiFixture} from './helpers/tuiFixture.js';
import {KEYS, renderTui} from './helpers/tuiRender.js';
import {tempDir} from './helpers/tmp.js';

/* Human ratings in the TUI: the form's key logic, the ratings file, and the replay screen end to end. */

const NO: Key = {upArrow: false, downArrow: false, leftArrow: false, rightArrow: false, pageDown: false, pageUp: false, home: false, end: false, return: false, escape: false, ctrl: false, shift: false, tab: false, backspace: false, delete: false, meta: false, super: false, hyper: false, capsLock: false, numLock: false};

describe('rating form keys', () => {
	it('scores the metric under the cursor without moving, never wraps, clears, and saves only all six', () => {
		let state = initialRatingForm();
		const press = (input: string, key: Partial<Key> = {}) => {
			const result = ratingKey(state, input, {...NO, ...key});
			if (result.kind === 'state') state = result.state;
			return result;
		};
		assert.equal(press('', {return: true}).kind, 'state');
		assert.match(state.message!, /score every metric first \(helpfulness, honesty, harmlessness, naturalness, plausibility, typicality are empty\)/);
		press('4');
		assert.deepEqual(state.scores, {helpfulness: 4});
		assert.equal(state.selected, 0, 'a score leaves the cursor where it is');
		press('9');
		assert.deepEqual(state.scores, {helpfulness: 4}, 'only 1-5 score');
		press('', {upArrow: true});
		assert.equal(state.selected, 0, 'no wrap at the top');
		press('0');
		assert.deepEqual(state.scores, {});
		for (let i = 0; i < 8; i++) press('', {downArrow: true});
		assert.equal(state.selected, 5, 'no wrap at the bottom');
		press('2');
		assert.deepEqual(press('', {return: true}).kind, 'state', 'five metrics still empty');
		assert.match(state.message!, /helpfulness, honesty, harmlessness, naturalness, plausibility are empty/);
		// The README's instructions: ↑↓ pick a metric, 1-5 score it, Enter saves.
		state = initialRatingForm();
		for (const [index, score] of ['4', '5', '5', '3', '4', '2'].entries()) {
			if (index > 0) press('', {downArrow: true});
			press(score);
		}
		assert.deepEqual(press('', {return: true}), {kind: 'save', scores: {helpfulness: 4, honesty: 5, harmlessness: 5, naturalness: 3, plausibility: 4, typicality: 2}});
		assert.deepEqual(press('', {escape: true}), {kind: 'cancel'});
	});
});

describe('ratings file', () => {
	it('replaces a rater\'s scores for a session, keeps everyone else\'s, and is read by report agreement', () => {
		const file = path.join(tempDir(), 'ratings.jsonl');
		assert.deepEqual(ratingsOf(file, 's1', 'ana'), {});
		saveRatings(file, 's1', 'ana', {helpfulness: 4, honesty: 5});
		saveRatings(file, 's1', 'ben', {helpfulness: 2});
		saveRatings(file, 's1', 'ana', {helpfulness: 3});
		assert.deepEqual(ratingsOf(file, 's1', 'ana'), {helpfulness: 3});
		assert.deepEqual(ratingsOf(file, 's1', 'ben'), {helpfulness: 2});
		assert.equal(readFileSync(file, 'utf8').trim().split('\n').length, 2);
	});

	it('leaves a file it cannot parse untouched and says where it is broken', () => {
		const file = path.join(tempDir(), 'ratings.jsonl');
		const broken = '{"session": "s1", "metric": "helpfulness", "score": 4, "rater": "ana"}\n{"session": "s1", "metric": "kindness", "score": 4, "rater": "ana"}\n';
		writeFileSync(file, broken);
		assert.throws(() => saveRatings(file, 's2', 'ana', {honesty: 5}), /ratings\.jsonl:2/);
		assert.equal(readFileSync(file, 'utf8'), broken);
	});
});

describe('rating a replayed session in the TUI', () => {
	let fx: TuiFixture;
	before(() => {
		fx = tuiFixture({CULTURECONVERSE_RATER: 'tester'});
	});
	after(() => fx.close());

	it('steps back before the judge, takes six scores, saves them where report agreement reads them', async () => {
		const services = fx.services();
		const engine = await services.startEpisode({persona: 'jp-yamato-buddhist-a35-m', template: 'culinary.dietary-rules.02', tier: 'standard'});
		await engine.runToEnd();
		const session = engine.session;
		const judged = session.steps.findIndex((step) => step.kind === 'judge');
		assert.ok(judged > 0 && session.judge, 'a judged session');
		const tui = renderTui(<App services={services} initial={{kind: 'replay', session, back: null}} />);
		try {
			let frame = await tui.waitFor((f) => f.includes(`REPLAY step ${session.steps.length}/${session.steps.length}`), 'the replay at its last step');
			assert.match(frame, /Judge \(/, 'the judge block is on screen at the last step');
			await tui.settle();
			await tui.press('s');
			frame = await tui.waitFor((f) => f.includes('Your ratings as tester'), 'the rating form');
			assert.match(frame, new RegExp(`REPLAY step ${judged}/${session.steps.length}`), 'stepped back to just before the judge');
			assert.doesNotMatch(frame, /Judge \(/, 'judge scores hidden while rating');
			await tui.settle();
			// As the README says: ↑↓ pick a metric, 1-5 score it, Enter saves (an extra ↓ at the end does not wrap).
			await tui.press('4', KEYS.down, '5', KEYS.down, '5', KEYS.down, '3', KEYS.down, '4', KEYS.down, KEYS.down, '2', KEYS.enter);
			frame = await tui.waitFor((f) => f.includes('Saved 6 rating(s) by tester'), 'the saved note');
			assert.doesNotMatch(frame, /Your ratings as/, 'the form closed');
		} finally {
			tui.unmount();
		}
		const file = path.join(fx.sessionsDir, 'ratings.jsonl');
		assert.ok(existsSync(file));
		const lines = readFileSync(file, 'utf8').trim().split('\n').map((line) => JSON.parse(line) as {metric: string; score: number; rater: string; session: string});
		assert.deepEqual(Object.fromEntries(lines.map((line) => [line.metric, line.score])), {helpfulness: 4, honesty: 5, harmlessness: 5, naturalness: 3, plausibility: 4, typicality: 2});
		assert.ok(lines.every((line) => line.rater === 'tester' && line.session === session.id));
		// Without --ratings, report agreement reads the ratings the TUI made next to the sessions.
		const report = await runCli(['report', 'agreement', '--sessions-dir', fx.sessionsDir, '--include-mock', '--json'], {env: fx.env, cwd: fx.dir});
		assert.equal(report.code, 0, report.stderr);
		const text = JSON.stringify(parseJson(report.stdout));
		assert.match(text, /helpfulness/);
	});

	it('reopens with the saved scores and Esc leaves without saving', async () => {
		const services = fx.services();
		const [summary] = services.listSessions().sessions;
		const session = await services.loadSession(summary!.path);
		const before = readFileSync(path.join(fx.sessionsDir, 'ratings.jsonl'), 'utf8');
		const tui = renderTui(<App services={services} initial={{kind: 'replay', session, back: null}} />);
		try {
			await tui.waitFor((f) => f.includes('REPLAY step'), 'the replay');
			await tui.settle();
			await tui.press('s');
			const frame = await tui.waitFor((f) => f.includes('Your ratings as tester'), 'the rating form');
			assert.match(frame, /helpfulness\s+\[4\]/);
			assert.match(frame, /typicality\s+\[2\]/);
			await tui.settle();
			await tui.press('1', KEYS.escape);
			await tui.waitFor((f) => !f.includes('Your ratings as'), 'the form closed');
		} finally {
			tui.unmount();
		}
		assert.equal(readFileSync(path.join(fx.sessionsDir, 'ratings.jsonl'), 'utf8'), before, 'Esc saved nothing');
	});
});
