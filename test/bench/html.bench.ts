/**
 * HTML report benchmark (`npm run bench:html`). Prints figures; asserts nothing.
 *
 * For BENCH_EPISODES (default 200 and 1000) episodes, varied fixtures of one real offline episode
 * (English and native variants of each seed, a quarter also in gold mode, scores that differ), times
 * `report --html` (the report page alone, --no-viewer, and with a viewer page per episode), prints the
 * file size, and loads the page in Chromium (Debian's, when installed) from disk with the network
 * blocked, timing until the load event.
 */
import {mkdtempSync, rmSync, statSync} from 'node:fs';
import {tmpdir} from 'node:os';
import path from 'node:path';
import {performance} from 'node:perf_hooks';
import {existsSync} from 'node:fs';
import {chromium} from 'playwright-core';
import {runCli} from '../helpers/cli.js';
import {baseSession, fixture, type FixturePatch, personas, templates, writeSessions} from '../helpers/sessionFixtures.js';

const sizes = (process.env['BENCH_EPISODES'] ?? '200,1000').split(',').map(Number);
const root = mkdtempSync(path.join(tmpdir(), 'cc-bench-html-'));
const env = {CULTURECONVERSE_HOME: path.join(root, 'home')};
try {
	const base = await baseSession(root, env);
	const ps = personas(348);
	const ts = templates(420);
	for (const count of sizes) {
		const dir = path.join(root, `s${count}`);
		const patches: FixturePatch[] = [];
		for (let i = 0; patches.length < count; i++) {
			const seed = {persona: ps[i % ps.length]!, template: ts[(i * 7) % ts.length]!};
			const h = 2 + (i % 4);
			patches.push({id: `e${i}`, ...seed, language: 'english', scores: [h, 4, 5, 4, 3, 3], clean: i % 7 !== 0, blueprintKey: `b${i}`});
			if (patches.length < count) patches.push({id: `n${i}`, ...seed, language: 'native', scores: [Math.min(5, h + (i % 2)), 4, 5, 4, 3, 3], blueprintKey: `b${i}`});
			if (patches.length < count && i % 4 === 0) patches.push({id: `g${i}`, ...seed, mode: 'gold', scores: 5, blueprintKey: `b${i}`});
		}
		writeSessions(dir, patches.map((patch) => fixture(base, patch)));
		const file = path.join(root, `report-${count}.html`);
		await runCli(['sessions', '--sessions-dir', dir, '--json'], {cwd: root, env}); // builds the sessions index, as any earlier listing would
		let started = performance.now();
		const alone = await runCli(['report', '--by', 'model,language', '--html', file, '--no-viewer', '--sessions-dir', dir], {cwd: root, env});
		const aloneMs = performance.now() - started;
		if (alone.code !== 0) throw new Error(alone.stderr);
		const bytes = statSync(file).size;
		started = performance.now();
		const full = await runCli(['report', '--by', 'model,language', '--html', path.join(root, `full-${count}.html`), '--sessions-dir', dir], {cwd: root, env});
		const fullMs = performance.now() - started;
		if (full.code !== 0) throw new Error(full.stderr);
		let loadMs: number | null = null;
		if (existsSync('/usr/bin/chromium')) {
			const browser = await chromium.launch({executablePath: '/usr/bin/chromium', args: ['--headless', '--no-sandbox', '--disable-gpu', '--disable-quic', '--no-first-run', '--disable-background-networking', '--disable-component-update', '--disable-sync']});
			const context = await browser.newContext();
			await context.route('**/*', (route) => (route.request().url().startsWith('file://') ? route.continue() : route.abort()));
			const page = await context.newPage();
			started = performance.now();
			await page.goto(`file://${file}`, {waitUntil: 'load'});
			loadMs = performance.now() - started;
			await browser.close();
		}
		console.log(`${count} episodes: report page ${(bytes / 1024).toFixed(0)} KB built in ${(aloneMs / 1000).toFixed(1)} s (whole command, --no-viewer); with ${count} viewer pages ${(fullMs / 1000).toFixed(1)} s; Chromium load ${loadMs === null ? 'n/a (no /usr/bin/chromium)' : `${Math.round(loadMs)} ms`}`);
	}
} finally {
	rmSync(root, {recursive: true, force: true});
}
