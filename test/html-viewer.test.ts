import assert from 'node:assert/strict';
import {existsSync} from 'node:fs';
import path from 'node:path';
import {after, before, describe, it} from 'node:test';
import {type Browser, chromium} from 'playwright-core';
import type {Session} from '../src/domain/session.js';
import {runCli} from './helpers/cli.js';
import {writeBatch, writeSessions} from './helpers/sessionFixtures.js';
import {tempDir} from './helpers/tmp.js';
import {tuiFixture} from './helpers/tuiFixture.js';

/*
 * The session viewer follows its slider (issue 22, item 7), in real headless Chromium at 1400 and
 * 800 px: the judge section and the call list show the state at the slider's step, `#step-N` opens
 * the page there, the timeline is aligned by turn, the three columns are of one height (one column
 * at 800 px, no horizontal scroll), an opened call is not under the sticky bar; the compare page
 * lines two chats of one seed up by turn; the batch index carries the mock banner. Screenshots are
 * left in the temp folder (SCREENSHOTS=dir keeps them elsewhere) for a person to look at.
 */

const CHROMIUM = '/usr/bin/chromium';
const skip = existsSync(CHROMIUM) ? false : `Chromium is not installed at ${CHROMIUM}`;
const root = tempDir('cc-viewer-');
const shots = process.env['SCREENSHOTS'] ?? root;
let browser: Browser;
let session: Session;

before(async () => {
	if (skip) return;
	const fx = tuiFixture();
	try {
		const engine = await fx.services().startEpisode({persona: 'my-tamil-hindu-a55-f', template: 'culinary.dietary-rules.02', tier: 'standard'});
		await engine.runToEnd();
		session = engine.session as Session;
	} finally {
		fx.close();
	}
	const twin: Session = {...session, id: `${session.id}-b`, config: {...session.config, models: {...session.config.models, assistant: 'other-assistant'}}};
	writeSessions(path.join(root, 'sessions'), [session, twin]);
	writeBatch(path.join(root, 'sessions'), 'pair', [session, twin]);
	browser = await chromium.launch({executablePath: CHROMIUM, args: ['--headless', '--no-sandbox', '--disable-gpu', '--no-first-run', '--disable-background-networking', '--disable-component-update', '--disable-sync']});
});
after(async () => {
	await browser?.close();
});

const view = (args: string[]) => runCli(['view', ...args, '--sessions-dir', path.join(root, 'sessions')], {cwd: root, env: {CULTURECONVERSE_HOME: path.join(root, 'home')}});

async function open(file: string, width: number) {
	const context = await browser.newContext({viewport: {width, height: 900}});
	await context.route('**/*', (route) => (route.request().url().startsWith('file://') ? route.continue() : route.abort()));
	const page = await context.newPage();
	const errors: string[] = [];
	page.on('pageerror', (error) => errors.push(error.message));
	await page.goto(`file://${file}`);
	return {page, errors, close: () => context.close()};
}

describe('the session viewer follows its slider, in Chromium', {skip}, () => {
	it('judge, calls, panes and timeline show the slider\'s step; #step-N; balanced columns; an opened call clear of the bar', async () => {
		const dir = path.join(root, 'pages');
		const made = await view([session.id, '--html', dir, '--compare', `${session.id}-b`]);
		assert.equal(made.code, 0, made.stderr);
		const file = path.join(dir, `${session.id}.html`);
		const judgeStep = session.judge!.steps.helpfulness!;
		const {page, errors, close} = await open(`${file}#step-${judgeStep - 1}`, 1400);
		try {
			assert.deepEqual(errors, []);
			assert.match((await page.textContent('#step-label')) ?? '', new RegExp(`\\(${judgeStep - 1}/`), '#step-N opens the page at step N');
			assert.match((await page.textContent('#judge')) ?? '', /Not judged/, 'before the judge\'s step the judge section has no score');
			const shownCalls = async () => page.$$eval('details.call', (els) => els.filter((el) => !(el as HTMLElement).hidden).length);
			const before = await shownCalls();
			assert.ok(before < session.calls.length, 'the calls list stops at the step');
			assert.equal(before, session.calls.filter((call) => call.step <= judgeStep - 1).length);
			await page.keyboard.press('ArrowRight');
			assert.match((await page.textContent('#judge')) ?? '', /helpfulness\s*\d/, 'one step on, the first metric has arrived');
			assert.ok((await shownCalls()) > before);
			assert.match(page.url(), new RegExp(`#step-${judgeStep}$`), 'the address follows the slider');
			// The timeline: every turn by t, the simulator's decisions and the judge's metrics inline, each row its step's anchor.
			const timeline = (await page.textContent('#timeline')) ?? '';
			assert.match(timeline, /simulator on the reply before: (ADVANCE_NEXT|CONTINUE_CURRENT|END_FAILED)/);
			assert.match(timeline, /judge · helpfulness/);
			await page.click(`#timeline a[href="#step-2"]`);
			await page.waitForFunction(() => /\(2\//.test(document.getElementById('step-label')!.textContent ?? ''));
			// Three columns of one height.
			const heights = await page.$$eval('.pane', (els) => els.map((el) => Math.round(el.getBoundingClientRect().height)));
			assert.equal(new Set(heights).size, 1, `pane heights ${heights.join(', ')}`);
			await page.screenshot({path: path.join(shots, 'viewer-1400.png')});
			// An opened call is not under the sticky step bar.
			await page.$eval('#step', (el) => ((el as HTMLInputElement).value = (el as HTMLInputElement).max, el.dispatchEvent(new Event('input'))));
			const call = page.locator('details.call').nth(3);
			await call.evaluate((el) => el.scrollIntoView({block: 'start'}));
			await call.locator('summary').click();
			await page.waitForFunction(() => document.querySelectorAll('details.call[open]').length === 1);
			const [barBottom, callTop] = await page.evaluate(() => [document.querySelector('.stepper')!.getBoundingClientRect().bottom, document.querySelector('details.call[open]')!.getBoundingClientRect().top]);
			assert.ok(callTop >= barBottom, `the opened call starts at ${callTop}, under the bar ending at ${barBottom}`);
		} finally {
			await close();
		}
		const narrow = await open(file, 800);
		try {
			const [scrollWidth, clientWidth] = await narrow.page.evaluate(() => [document.documentElement.scrollWidth, document.documentElement.clientWidth]);
			assert.ok(scrollWidth <= clientWidth, `no horizontal scroll at 800 px (${scrollWidth} > ${clientWidth})`);
			const lefts = await narrow.page.$$eval('.pane', (els) => els.map((el) => Math.round(el.getBoundingClientRect().left)));
			assert.equal(new Set(lefts).size, 1, 'one column at 800 px');
			await narrow.page.screenshot({path: path.join(shots, 'viewer-800.png')});
		} finally {
			await narrow.close();
		}
	});

	it('the compare page lines two chats of one seed up by turn; the batch index carries the mock banner', async () => {
		const dir = path.join(root, 'pages');
		const compare = await open(path.join(dir, `compare-${session.id}-${session.id}-b.html`), 1400);
		try {
			const rows = await compare.page.$$eval('#compare > tbody > tr', (els) => els.map((el) => Array.from(el.children).map((cell) => cell.textContent ?? '')));
			assert.ok(rows.length >= 4);
			for (const [label, left, right] of rows) {
				const role = /^(user|assistant) t=\d+/.exec(label!)?.[1];
				assert.ok(role, `row label ${label}`);
				assert.ok(left!.startsWith(role.toUpperCase()) && right!.startsWith(role.toUpperCase()), 'both sides hold the same turn');
			}
			assert.match((await compare.page.textContent('#compare thead')) ?? '', /other-assistant/);
			await compare.page.screenshot({path: path.join(shots, 'compare-1400.png')});
		} finally {
			await compare.close();
		}
		const indexDir = path.join(root, 'batch');
		assert.equal((await view(['pair', '--html', indexDir])).code, 0);
		const index = await open(path.join(indexDir, 'index.html'), 800);
		try {
			assert.match((await index.page.textContent('.banner')) ?? '', /2 of 2 session\(s\): OFFLINE MOCK PROVIDER/);
		} finally {
			await index.close();
		}
		// Two sessions of different seeds do not compare.
		const other = await view([session.id, '--html', indexDir, '--compare', 'pair']);
		assert.equal(other.code, 2);
	});
});
