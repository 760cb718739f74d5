/**
 * Sessions-folder benchmark (`npm run bench:sessions`). Prints figures; asserts nothing.
 *
 * Fills a temp folder with BENCH_SESSIONS copies (default 1000) of one real finished episode from the
 * offline mock (about 200 KB each, raw calls included), then times `SessionStore.list()`, which the
 * `sessions` command and the TUI's sessions screen call:
 *  1. cold: no index, every file read and validated (what every listing cost before the index);
 *  2. warm: the index answers, only stat calls;
 *  3. after one session changed: one file re-read.
 */
import {mkdtempSync, rmSync, writeFileSync} from 'node:fs';
import {tmpdir} from 'node:os';
import path from 'node:path';
import {performance} from 'node:perf_hooks';
import {SessionStore} from '../../src/store/sessionStore.js';
import {tuiFixture} from '../helpers/tuiFixture.js';

const COUNT = Number(process.env['BENCH_SESSIONS'] ?? 1000);
const REPEAT = Number(process.env['BENCH_REPEAT'] ?? 5);

const fx = tuiFixture();
const dir = mkdtempSync(path.join(tmpdir(), 'cc-bench-sessions-'));
try {
	const engine = await fx.services().startEpisode({persona: 'vn-kinh-buddhist-a55-m', template: 'ritual.auspicious-timing.01', tier: 'normative'});
	await engine.runToEnd();
	const text = JSON.stringify(engine.session);
	for (let i = 0; i < COUNT; i++) {
		const id = `bench-${String(i).padStart(6, '0')}`;
		writeFileSync(path.join(dir, `${id}.json`), text.replace(JSON.stringify(engine.session.id), JSON.stringify(id)));
	}
	console.log(`${COUNT} sessions of ${(text.length / 1024).toFixed(0)} KB (${((text.length * COUNT) / 1024 / 1024).toFixed(0)} MB) in ${dir}`);

	const time = (what: string, before: () => void) => {
		const samples: number[] = [];
		let reread = 0;
		let listed = 0;
		for (let r = 0; r < REPEAT; r++) {
			before();
			const started = performance.now();
			const result = new SessionStore(dir).list();
			samples.push(performance.now() - started);
			reread = result.reread;
			listed = result.sessions.length;
		}
		samples.sort((a, b) => a - b);
		console.log(`${what.padEnd(28)} median ${samples[Math.floor(samples.length / 2)]!.toFixed(1).padStart(8)} ms   (${listed} listed, ${reread} re-read, ${REPEAT} runs)`);
	};
	const index = path.join(dir, '.index.json');
	time('cold (no index)', () => rmSync(index, {force: true}));
	time('warm (index)', () => {});
	let n = 0;
	time('one session changed', () => {
		const id = `bench-${String(n++ % COUNT).padStart(6, '0')}`;
		writeFileSync(path.join(dir, `${id}.json`), text.replace(JSON.stringify(engine.session.id), JSON.stringify(id)).replace('"status":"completed"', '"status":"error"'));
	});
	console.log(`peak RSS ${(process.resourceUsage().maxRSS / 1024).toFixed(0)} MB`);
} finally {
	rmSync(dir, {recursive: true, force: true});
	fx.close();
}
