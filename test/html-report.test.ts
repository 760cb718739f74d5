import assert from 'node:assert/strict';
import {existsSync, readFileSync, statSync, writeFileSync} from 'node:fs';
import path from 'node:path';
import {after, before, describe, it} from 'node:test';
import {type Browser, type Page, chromium} from 'playwright-core';
import type {Session} from '../src/domain/session.js';
import {parseJson, runCli} from './helpers/cli.js';
import {baseSession, fixture, type FixturePatch, personas, templates, writeBatch, writeSessions} from './helpers/sessionFixtures.js';
import {tempDir} from './helpers/tmp.js';

/*
 * The HTML report and the session viewer in real headless Chromium (Debian's `chromium`), opened from
 * disk with every non-file request blocked and recorded: no console errors, every chart has marks,
 * the episode table filters and sorts, the viewer's slider changes the panes, and the page's numbers
 * are report --json's. One browser for the file; a screenshot of each page in the temp folder.
 */

const CHROMIUM = '/usr/bin/chromium';
const skip = existsSync(CHROMIUM) ? false : `Chromium is not installed at ${CHROMIUM} (apt-get install -y chromium); the HTML pages are not checked in a browser here.`;

const root = tempDir('cc-html-');
const env = {CULTURECONVERSE_HOME: path.join(root, 'home')};
const sessionsDir = path.join(root, 'sessions');
let browser: Browser;
let base: Session;

before(async () => {
	if (skip) return;
	base = await baseSession(root, env);
	// 24 seeds in english and native, 8 of them also in gold mode; two judges for the panel.
	const ps = personas(60);
	const ts = templates(60);
	const patches: FixturePatch[] = [];
	for (let i = 0; i < 24; i++) {
		const seed = {persona: ps[i * 2]!, template: ts[i]!};
		const h = 2 + (i % 4);
		patches.push({id: `e${i}`, ...seed, language: 'english', scores: [h, 4, 5, 4, 3, 3], clean: i % 5 !== 0, blueprintKey: `b${i}`});
		patches.push({id: `n${i}`, ...seed, language: 'native', scores: [Math.min(5, h + 1), 4, 5, 4, 3, 3], clean: true, blueprintKey: `b${i}`});
		if (i < 8) patches.push({id: `g${i}`, ...seed, mode: 'gold', scores: 5, clean: true, blueprintKey: `b${i}`});
		patches.push({id: `e${i}.rj-judge-2-separate`, ...seed, language: 'english', judgeModel: 'judge-2', rejudgeOf: `e${i}`, scores: [Math.max(1, h - 1), 4, 4, 4, 3, 3], blueprintKey: `b${i}`});
	}
	patches.push({id: 'broken', persona: ps[50]!, template: ts[50]!, scores: null, errorFlag: 'SIMULATOR_ERROR'});
	const sessions = patches.map((patch) => fixture(base, patch));
	writeSessions(sessionsDir, sessions);
	writeBatch(sessionsDir, 'pilot', sessions.filter((s) => !s.config.rejudgeOf));
	const ratings = sessions.filter((s) => /^e\d+$/.test(s.id)).flatMap((s, i) => ['helpfulness', 'honesty'].flatMap((metric) => [{session: s.id, metric, score: s.judge!.scores[metric as 'honesty']!, rater: 'A'}, {session: s.id, metric, score: Math.min(5, s.judge!.scores[metric as 'honesty']! + (i % 2)), rater: 'B'}]));
	writeFileSync(path.join(root, 'ratings.jsonl'), ratings.map((r) => JSON.stringify(r)).join('\n'));
	// launch() gives the browser a fresh temporary profile (its own --user-data-dir) every time.
	browser = await chromium.launch({
		executablePath: CHROMIUM,
		args: ['--headless', '--no-sandbox', '--disable-gpu', '--disable-quic', '--no-first-run', '--disable-background-networking', '--disable-component-update', '--disable-sync'],
	});
});
after(async () => {
	await browser?.close();
});

/** Where screenshots go: the temp folder, or CC_SCREENSHOTS (outside the source tree) to look at them. */
const shots = (name: string) => path.join(process.env['CC_SCREENSHOTS'] ?? root, name);

/** Opens a file with every request but file:// blocked; returns the page, its console errors and any blocked request. */
async function open(file: string, width = 1400): Promise<{page: Page; errors: string[]; network: string[]}> {
	const context = await browser.newContext({viewport: {width, height: 1000}, acceptDownloads: true});
	const network: string[] = [];
	await context.route('**/*', (route) => {
		const url = route.request().url();
		if (url.startsWith('file://')) return route.continue();
		network.push(url);
		return route.abort();
	});
	const page = await context.newPage();
	const errors: string[] = [];
	page.on('console', (message) => {
		if (message.type() === 'error') errors.push(message.text());
	});
	page.on('pageerror', (error) => errors.push(String(error)));
	await page.goto(`file://${file}`);
	await page.waitForLoadState('load');
	return {page, errors, network};
}

const reportArgs = ['--batch', 'pilot', '--by', 'model,language', '--ratings', path.join(root, 'ratings.jsonl'), '--sessions-dir', sessionsDir];

describe('report --html in Chromium', {skip}, () => {
	let file: string;
	before(async () => {
		file = path.join(root, 'out', 'report.html');
		const made = await runCli(['report', ...reportArgs, '--html', file], {cwd: root, env});
		assert.equal(made.code, 0, made.stderr);
		assert.match(made.stderr, /Wrote .*report\.html \(\d+ KB, and 81 session page\(s\) in report-sessions\/\)/);
	});

	it('opens from disk with no network and no console errors, and every chart has marks', async () => {
		const {page, errors, network} = await open(file);
		assert.deepEqual(errors, []);
		assert.deepEqual(network, [], 'nothing but the file itself was requested');
		const charts = await page.$$eval('figure.chart', (figures) =>
			figures.map((figure) => ({name: figure.getAttribute('data-chart'), empty: figure.classList.contains('empty'), marks: figure.querySelectorAll('svg g[aria-label] circle, svg g[aria-label] rect, svg g[aria-label] line, svg g[aria-label] path, svg g[aria-label] text').length})),
		);
		const names = charts.map((chart) => chart.name);
		for (const expected of ['cell-3h', 'cell-tdq', 'cell-clean', 'region-cell', 'tier-cell', 'scores', 'paired-native − English', 'paired-gold − eval', 'paired-judge − reference judge', 'agreement-scatter']) assert.ok(names.includes(expected), `chart ${expected} is there (${names.join(', ')})`);
		for (const chart of charts.filter((c) => !c.empty)) assert.ok(chart.marks > 0, `${chart.name} has marks`);
		await page.screenshot({path: shots('report-1400.png'), fullPage: true});
		await page.context().close();
	});

	it('shows the numbers of report --json, which it also embeds', async () => {
		const json = await runCli(['report', ...reportArgs, '--json'], {cwd: root, env});
		assert.equal(json.code, 0, json.stderr);
		const expected = parseJson<{overall: {threeH: {mean: number}} | null; cells: Array<{slice: Record<string, string>}>; rows: Array<{slice: Record<string, string>; threeH: {mean: number; lo: number | null; hi: number | null; na: string | null}; clean: {mean: number}}>}>(json.stdout);
		const {page} = await open(file);
		const embedded = JSON.parse(await page.$eval('#report-data', (el) => el.textContent ?? ''));
		assert.deepEqual(embedded, expected);
		const cells = await page.$$eval('#main-table tbody tr', (rows) => rows.map((row) => ({row: row.getAttribute('data-row'), means: [...row.querySelectorAll('td[data-mean]')].map((td) => Number(td.getAttribute('data-mean'))), text: row.textContent})));
		for (const row of expected.rows) {
			const shown = cells.find((cell) => cell.row === JSON.stringify(row.slice))!;
			assert.equal(shown.means[0], row.threeH.mean);
			assert.equal(shown.means[2], row.clean.mean);
			const bracket = row.threeH.lo === null ? `[n/a: ${row.threeH.na}]` : `[${row.threeH.lo.toFixed(2)}, ${row.threeH.hi!.toFixed(2)}]`;
			assert.ok(shown.text!.includes(`${row.threeH.mean.toFixed(2)} ${bracket}`), `${shown.text} shows ${bracket}`);
		}
		assert.equal(expected.overall, null, 'english, native and gold are cells of their own: no row pools them');
		assert.equal(cells.find((cell) => cell.row === 'overall'), undefined);
		await page.context().close();
	});

	it('filters and sorts the episode table, and links each episode to its viewer page', async () => {
		const {page} = await open(file);
		const visible = () => page.$$eval('#episodes tbody tr', (rows) => rows.filter((row) => !(row as HTMLElement).hidden).map((row) => row.getAttribute('data-id')!));
		// The 57 counted episodes: the 24 re-judged copies are judgements, not episodes (their judge cells show with --by judge).
		assert.equal((await visible()).length, 57);
		await page.fill('input[data-filter="episodes"]', 'native');
		const natives = await visible();
		assert.equal(natives.length, 24);
		assert.ok(natives.every((id) => id.startsWith('n')));
		assert.equal(await page.textContent('[data-count="episodes"]'), '24');
		await page.fill('input[data-filter="episodes"]', '');
		const column = 1 + (await page.$$eval('#episodes thead th', (ths) => ths.findIndex((th) => th.textContent!.startsWith('3H'))));
		await page.click(`#episodes thead th:nth-child(${column})`);
		assert.equal(await page.getAttribute(`#episodes thead th:nth-child(${column})`, 'aria-sort'), 'ascending', 'the sort direction is shown');
		const order = await page.$$eval(`#episodes tbody tr td:nth-child(${column})`, (tds) => tds.map((td) => Number(td.getAttribute('data-sort'))));
		assert.deepEqual(order, [...order].sort((a, b) => a - b), 'sorted by 3H ascending');
		const href = await page.getAttribute('#episodes tbody tr[data-id="e3"] a', 'href');
		assert.equal(href, 'report-sessions/e3.html');
		assert.ok(existsSync(path.join(root, 'out', href!)));
		await page.context().close();
	});

	it('draws figures fit for a paper: titled axes, legends, honest n/a points, a square agreement scatter, downloads that open', async () => {
		const {page} = await open(file);
		const figures = await page.$$eval('figure.chart:not(.empty)', (list) =>
			list.map((figure) => ({
				name: figure.getAttribute('data-chart'),
				axisLabels: [...figure.querySelectorAll('svg [aria-label$="axis label"] text, svg [aria-label="x-axis label"], svg [aria-label="y-axis label"]')].map((el) => el.textContent).filter(Boolean).length,
				legend: (figure.querySelector('.legend')?.textContent ?? '').length > 20,
				buttons: figure.querySelectorAll('button[data-download]').length,
				tick: Math.min(...[...figure.querySelectorAll('svg [aria-label$="tick label"] text')].map((el) => parseFloat(getComputedStyle(el).fontSize) * (el.getBoundingClientRect().height > 0 ? 1 : 1))),
			})),
		);
		for (const figure of figures) {
			assert.ok(figure.axisLabels >= 1, `${figure.name} has an axis title`);
			assert.ok(figure.legend, `${figure.name} has a legend`);
			assert.equal(figure.buttons, 3, `${figure.name} offers SVG, PNG and CSV`);
		}
		// The paired clean delta of gold − eval rests on all-clean gold seeds vs mixed eval: drawn as points; any n/a is a hollow point with its reason.
		const na = await page.$$eval('figure.chart svg text', (texts) => texts.map((t) => t.textContent ?? '').filter((t) => t.startsWith('n/a:')));
		const bars = await page.$$eval('figure.chart[data-chart^="cell-"] svg [aria-label="rule"] line', (lines) => lines.map((line) => Math.abs(Number(line.getAttribute('x2')) - Number(line.getAttribute('x1')))));
		const width = await page.$eval('figure.chart[data-chart="cell-3h"] svg', (svg) => (svg as SVGSVGElement).viewBox.baseVal.width);
		assert.ok(bars.every((w) => w < width * 0.9), 'no interval is drawn across the whole chart');
		assert.ok(Array.isArray(na));
		// The agreement scatter: square, y = x at 45 degrees on screen.
		const square = await page.$eval('figure.chart[data-chart="agreement-scatter"] svg', (svg) => {
			const path = svg.querySelector('[aria-label="line"] path')!.getAttribute('d')!;
			const nums = path.match(/-?\d+(\.\d+)?/g)!.map(Number);
			return {dx: nums[2]! - nums[0]!, dy: nums[3]! - nums[1]!, legend: svg.querySelector('g.chart-legend')?.textContent ?? ''};
		});
		// The diagonal spans both domains (0.7-5.3): equal lengths on screen mean a square frame at the same scale.
		assert.ok(Math.abs(square.dx + square.dy) < 0.5, `y = x runs at 45 degrees (dx ${square.dx}, dy ${square.dy})`);
		assert.match(square.legend, /metric.*helpfulness/, 'the legend is part of the SVG');
		// Downloads: each opens as what it says.
		const download = async (kind: string) => {
			const [event] = await Promise.all([page.waitForEvent('download'), page.click(`figure.chart[data-chart="cell-3h"] button[data-download="${kind}"]`)]);
			const saved = path.join(root, `download.${kind}`);
			await event.saveAs(saved);
			return {name: event.suggestedFilename(), bytes: readFileSync(saved)};
		};
		const svg = await download('svg');
		assert.equal(svg.name, 'cell-3h.svg');
		assert.match(svg.bytes.toString('utf8'), /^<svg[^>]+xmlns="http:\/\/www\.w3\.org\/2000\/svg"/);
		const png = await download('png');
		assert.deepEqual([...png.bytes.subarray(0, 8)], [0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a], 'a PNG file');
		const csvFile = await download('csv');
		const expected = parseJson<{rows: Array<{threeH: {mean: number}}>}>((await runCli(['report', ...reportArgs, '--json'], {cwd: root, env})).stdout);
		const lines = csvFile.bytes.toString('utf8').trim().split('\n');
		assert.equal(lines[0], 'label,series,n,seeds,mean,lo,hi,na');
		assert.equal(lines.length - 1, expected.rows.length, 'one CSV line per cell the chart draws');
		await page.context().close();
	});

	it('fits 800 px without horizontal scrolling', async () => {
		const {page} = await open(file, 800);
		const overflow = await page.evaluate(() => ({page: document.documentElement.scrollWidth - window.innerWidth, boxes: [...document.querySelectorAll('.scroll')].map((el) => el.scrollWidth - el.clientWidth)}));
		assert.ok(overflow.page <= 0, `the page is ${overflow.page} px wider than the window`);
		assert.deepEqual(overflow.boxes.filter((extra) => extra > 0), [], 'no table needs scrolling either');
		await page.screenshot({path: shots('report-800.png'), fullPage: true});
		await page.context().close();
	});

	it('stays small: well under 3 MB for these episodes', () => {
		assert.ok(statSync(file).size < 3_000_000);
	});
});

describe('the session viewer in Chromium', {skip}, () => {
	it('shows the three partitions, and the step slider shows each pane as it was', async () => {
		const dir = path.join(root, 'viewer');
		const made = await runCli(['view', 'pilot', '--html', dir, '--sessions-dir', sessionsDir], {cwd: root, env});
		assert.equal(made.code, 0, made.stderr);
		const {page, errors, network} = await open(path.join(dir, 'e0.html'));
		assert.deepEqual(errors, []);
		assert.deepEqual(network, []);
		const panes = () => page.$$eval('.pane .content', (els) => els.map((el) => el.textContent ?? ''));
		const final = await panes();
		assert.match(final[0]!, /USER · t=0/);
		assert.match(final[2]!, /helpfulness/);
		const max = Number(await page.getAttribute('#step', 'max'));
		assert.ok(max > 5);
		const setStep = (n: number) => page.$eval('#step', (el, value) => {
			(el as HTMLInputElement).value = String(value);
			el.dispatchEvent(new Event('input'));
		}, n);
		await setStep(0);
		const start = await panes();
		assert.doesNotMatch(start[0]!, /USER · t=0/, 'before the first step there is no chat yet');
		assert.match(await page.textContent('#step-label') ?? '', /before the first step \(0\//);
		await setStep(2);
		const early = await panes();
		assert.notDeepEqual(early, start);
		assert.notDeepEqual(early, final);
		await page.keyboard.press('ArrowRight');
		assert.match(await page.textContent('#step-label') ?? '', /^step 3: /);
		await setStep(max);
		assert.deepEqual(await panes(), final);
		assert.ok((await page.$$('details.call')).length > 0, 'every model call, with its raw request and reply');
		await page.screenshot({path: path.join(root, 'viewer.png'), fullPage: false});
		await page.context().close();
		const index = await open(path.join(dir, 'index.html'));
		assert.deepEqual(index.errors, []);
		assert.equal((await index.page.$$('#sessions tbody tr')).length, 57 + 24, 'the batch index lists its 57 sessions and the 24 re-judged copies of them');
		await index.page.context().close();
	});
});

describe('crisp report --html in Chromium', {skip}, () => {
	it('charts the situated report with the numbers of crisp report --json', async () => {
		const cwd = tempDir('cc-html-crisp-');
		const local = {CULTURECONVERSE_HOME: path.join(root, 'home')};
		assert.equal((await runCli(['crisp', 'build', '--region', 'JP', '--limit', '2', '--chronotopes', '1'], {cwd, env: local})).code, 0);
		assert.equal((await runCli(['crisp', 'eval', '--best-of', '2'], {cwd, env: local})).code, 0);
		const file = path.join(cwd, 'crisp.html');
		const made = await runCli(['crisp', 'report', '--html', file, '--json'], {cwd, env: local});
		assert.equal(made.code, 0, made.stderr);
		const {page, errors, network} = await open(file);
		assert.deepEqual(errors, []);
		assert.deepEqual(network, []);
		assert.deepEqual(JSON.parse(await page.$eval('#report-data', (el) => el.textContent ?? '')), parseJson(made.stdout));
		const marks = await page.$$eval('figure.chart:not(.empty)', (figures) => figures.map((figure) => figure.querySelectorAll('svg g[aria-label] circle, svg g[aria-label] line').length));
		assert.ok(marks.length >= 2 && marks.every((n) => n > 0));
		await page.screenshot({path: path.join(cwd, 'crisp.png'), fullPage: true});
		assert.ok(readFileSync(file, 'utf8').includes('BoN (RM pick)'));
		await page.context().close();
	});
});
