/**
 * TUI responsiveness benchmark (`npm run bench:tui`). Prints figures; asserts nothing.
 *
 * Renders the real App (Ink, React) into a 160x48 fake terminal and times keypress-to-frame: from
 * writing a key to stdin to the next frame Ink writes (debug mode renders every commit, unthrottled).
 *  1. One engine step on the offline mock, for every step of a fresh episode: the first frame after
 *     `n` (the immediate feedback) and the frame that shows the step done.
 *  2. A long session (40 turns of 300 words, built synthetically): one live step (n), scrolling the
 *     Public pane (↑, PgUp, PgDn) and stepping the replay (←, →).
 *  3. Streaming a reply token by token into that long session: ms per frame and how many turn blocks
 *     each frame re-renders (the transcript has ~40), counted by BlockView's render counter.
 *  4. The real thing in a pseudo-terminal (util-linux `script`, 160x48): `cultureconverse tui --resume`
 *     and `replay` on the long session, timing each key from the write to the last byte of the
 *     frame it causes (output quiet for 120 ms), with the bytes written per key; once with Ink's
 *     full redraws and once with incremental rendering (CULTURECONVERSE_TUI_INCREMENTAL=0 / 1).
 * Goal from the issues: under 50 ms per frame (p95 per key in the pty), no frame re-renders the
 * whole transcript, and a one-line scroll does not redraw the whole screen.
 *
 * React runs its production build, as under `cultureconverse` (launch.tsx sets NODE_ENV when unset);
 * BENCH_NODE_ENV=development measures the development build instead.
 *
 * Options (env): BENCH_TURNS (default 40), BENCH_WORDS (default 300), BENCH_REPEAT (default 30).
 */
import {performance} from 'node:perf_hooks';
import type {CallRecord, Session} from '../../src/domain/session.js';
import type {ModelGateway, ModelRequest, ModelResponse} from '../../src/llm/types.js';
import type {TuiHandle} from '../helpers/tuiRender.js';

process.env['NODE_ENV'] = process.env['BENCH_NODE_ENV'] ?? 'production';
// Loaded after NODE_ENV is set: React picks its build when first imported (so no JSX in this file:
// the JSX runtime would be imported before this line runs).
const {EpisodeEngine} = await import('../../src/episode/engine.js');
const {SessionStore} = await import('../../src/store/sessionStore.js');
const {App} = await import('../../src/tui/App.js');
const {createElement} = await import('react');
const {renderStats} = await import('../../src/tui/components/BlockView.js');
const [{KEYS, renderTui}, {testUniverse, tuiFixture}, {longSession}, {openPty}] = await Promise.all([import('../helpers/tuiRender.js'), import('../helpers/tuiFixture.js'), import('../helpers/longSession.js'), import('./ptyTerminal.js')]);
const REPO = (await import('node:path')).resolve(import.meta.dirname, '..', '..');

const TURNS = Number(process.env['BENCH_TURNS'] ?? 40);
const WORDS = Number(process.env['BENCH_WORDS'] ?? 300);
const REPEAT = Number(process.env['BENCH_REPEAT'] ?? 30);

type Row = {what: string; n: number; p50: number; p95: number; max: number; blocks?: string; bytes?: string};
const rows: Row[] = [];

function recordPty(what: string, timings: ReadonlyArray<{ms: number; bytes: number}>): void {
	const drawn = timings.filter((timing) => Number.isFinite(timing.ms));
	record(what, drawn.map((timing) => timing.ms));
	const bytes = drawn.map((timing) => timing.bytes);
	rows.at(-1)!.bytes = `${Math.round(bytes.reduce((a, b) => a + b, 0) / Math.max(1, bytes.length)).toLocaleString()} B/key (max ${Math.max(0, ...bytes).toLocaleString()})${drawn.length < timings.length ? `, ${timings.length - drawn.length} key(s) drew nothing` : ''}`;
}

function record(what: string, samples: number[], blocks?: number[]): void {
	const sorted = [...samples].sort((a, b) => a - b);
	const at = (q: number) => sorted[Math.min(sorted.length - 1, Math.floor(q * sorted.length))]!;
	const row: Row = {what, n: samples.length, p50: at(0.5), p95: at(0.95), max: sorted.at(-1)!};
	if (blocks) row.blocks = `${Math.min(...blocks)}-${Math.max(...blocks)} (mean ${(blocks.reduce((a, b) => a + b, 0) / blocks.length).toFixed(1)})`;
	rows.push(row);
}

/** Writes `key` and resolves with ms until the first frame, and until a frame satisfying `done`. */
async function press(tui: TuiHandle, key: string, done: (frame: string) => boolean = () => true): Promise<{first: number; done: number; blocks: number}> {
	const start = performance.now();
	const blocks = renderStats.blocks;
	let first = -1;
	const result = new Promise<number>((resolve) => {
		tui.stdout.onFrame = (frame) => {
			if (first < 0) first = performance.now() - start;
			if (done(frame)) {
				tui.stdout.onFrame = null;
				resolve(performance.now() - start);
			}
		};
	});
	tui.paste(key);
	const total = await Promise.race([result, new Promise<number>((_, reject) => setTimeout(() => reject(new Error(`no frame for ${JSON.stringify(key)}`)), 20_000))]);
	return {first, done: total, blocks: renderStats.blocks - blocks};
}

const statusLine = (frame: string) => frame.split('\n').find((line) => line.includes(' │ turn ')) ?? '';
const idleAt = (n: number) => (frame: string) => statusLine(frame).includes(`│ step ${n} │`) && /next: |✓ done|✗ /.test(statusLine(frame));
const settle = () => new Promise((resolve) => setTimeout(resolve, 30));

function slowAssistant(session: Session, tokens: number, everyMs: number): ModelGateway {
	return {
		settings: (role) => session.config.roles[role],
		onEvent: () => () => {},
		concurrency: () => ({limit: 4, max: 4}),
		async call<T>(request: ModelRequest<T>): Promise<ModelResponse<T>> {
			const words: string[] = [];
			for (let i = 0; i < tokens; i++) {
				await new Promise((resolve) => setTimeout(resolve, everyMs));
				const word = `token${i}${i % 12 === 11 ? '.' : ''}`;
				words.push(word);
				request.onToken?.(`${word} `);
			}
			const text = words.join(' ');
			const call: CallRecord = {id: `bench-${Date.now()}`, step: request.step, role: request.role, stage: request.stage, provider: 'mock', model: 'mock', prompt: request.prompt.id, promptHash: request.prompt.hash, responseFormat: 'text', startedAt: new Date().toISOString(), latencyMs: tokens * everyMs, attempts: 1, retries: [], validationRetries: 0, tokens: {prompt: 1, completion: tokens, total: tokens + 1}, cached: false, ok: true, error: null, request: [...request.prompt.messages], response: text};
			return {value: text as T, text, call};
		},
	};
}

async function main(): Promise<void> {
	const fx = tuiFixture();
	try {
		const services = fx.services();

		// 1. Every step of a fresh mock episode.
		{
			const engine = await services.startEpisode({persona: 'my-tamil-hindu-a55-f', template: 'culinary.dietary-rules.02', tier: 'standard'});
			await engine.step(); // builds the KB index once, outside the timing
			const tui = renderTui(createElement(App, {services, initial: {kind: 'live', engine, back: null}}));
			await tui.waitFor(idleAt(1), 'the first frame');
			await settle();
			const first: number[] = [];
			const done: number[] = [];
			for (let n = 2; engine.session.status !== 'completed' && n < 40; n++) {
				const timing = await press(tui, 'n', idleAt(n));
				first.push(timing.first);
				done.push(timing.done);
				await settle();
			}
			record('mock step: n -> first frame (feedback)', first);
			record('mock step: n -> frame showing the step done', done);
			tui.unmount();
		}

		// 2. A long session.
		const seedEngine = await services.startEpisode({persona: 'my-tamil-hindu-a55-f', template: 'culinary.dietary-rules.02', tier: 'standard'});
		await seedEngine.step();
		await seedEngine.step();
		const long = longSession(seedEngine.session as Session, {turns: TURNS, words: WORDS});
		const transcriptBlocks = long.turns.length;
		console.log(`long session: ${long.turns.length} turns of ${WORDS} words (${long.turns.reduce((sum, turn) => sum + turn.content.length, 0).toLocaleString()} characters)`);
		await new SessionStore(fx.sessionsDir).save(long);
		{
			const engine = await services.resumeEpisode(long);
			const tui = renderTui(createElement(App, {services, initial: {kind: 'live', engine, back: null}}));
			const steps = long.steps.length;
			await tui.waitFor(idleAt(steps), 'the long session');
			await settle();
			const step = await press(tui, 'n', idleAt(steps + 1));
			record('long session: n -> first frame (feedback)', [step.first]);
			record('long session: n -> mock step done', [step.done], [step.blocks]);
			await settle();
			const ups: number[] = [];
			const upBlocks: number[] = [];
			for (let i = 0; i < REPEAT; i++) {
				const timing = await press(tui, KEYS.up);
				ups.push(timing.first);
				upBlocks.push(timing.blocks);
				await settle();
			}
			record('long session: ↑ (scroll Public one line)', ups, upBlocks);
			const pages: number[] = [];
			const pageBlocks: number[] = [];
			for (let i = 0; i < REPEAT; i++) {
				const timing = await press(tui, KEYS.pageUp);
				pages.push(timing.first);
				pageBlocks.push(timing.blocks);
				await settle();
			}
			for (let i = 0; i < REPEAT; i++) {
				const timing = await press(tui, KEYS.pageDown);
				pages.push(timing.first);
				pageBlocks.push(timing.blocks);
				await settle();
			}
			record('long session: PgUp/PgDn (scroll Public one page)', pages, pageBlocks);
			tui.unmount();
		}
		{
			const tui = renderTui(createElement(App, {services, initial: {kind: 'replay', session: long, back: null}}));
			await tui.waitFor((f) => f.includes('REPLAY step'), 'the replay');
			await settle();
			const moves: number[] = [];
			const moveBlocks: number[] = [];
			for (let i = 0; i < REPEAT; i++) {
				const timing = await press(tui, i < REPEAT / 2 ? KEYS.left : KEYS.right);
				moves.push(timing.first);
				moveBlocks.push(timing.blocks);
				await settle();
			}
			record('long session replay: ← / → (one step)', moves, moveBlocks);
			tui.unmount();
		}

		// 3. Streaming into the long session.
		{
			const engine = new EpisodeEngine(long, {universe: testUniverse(), gateway: slowAssistant(long, 120, 8), store: new SessionStore(fx.sessionsDir), evidence: async () => long.evidence!});
			const tui = renderTui(createElement(App, {services, initial: {kind: 'live', engine, back: null}}));
			await tui.waitFor(idleAt(long.steps.length), 'the long session');
			await settle();
			const frames: number[] = [];
			const blocks: number[] = [];
			let last = performance.now();
			let lastBlocks = renderStats.blocks;
			let streaming = false;
			const renderTimes: number[] = [];
			tui.stdout.onFrame = (frame) => {
				const now = performance.now();
				if (frame.includes('(streaming…)')) {
					if (streaming) {
						frames.push(now - last);
						blocks.push(renderStats.blocks - lastBlocks);
					}
					streaming = true;
				}
				last = now;
				lastBlocks = renderStats.blocks;
			};
			const started = performance.now();
			tui.paste('n');
			await tui.waitFor(idleAt(long.steps.length + 1), 'the streamed reply', 30_000);
			tui.stdout.onFrame = null;
			// Time to render one frame (not the gap between tokens): re-render after each token, measured apart.
			for (let i = 0; i < 20; i++) {
				const t0 = performance.now();
				await press(tui, 'j');
				renderTimes.push(performance.now() - t0);
			}
			record(`streaming: gap between token frames (120 tokens, 8 ms apart), ${((performance.now() - started) / 1000).toFixed(1)} s`, frames, blocks);
			console.log(`streaming: ${frames.length} frames; turn blocks in the transcript: ${transcriptBlocks}; blocks re-rendered per token frame: ${Math.min(...blocks)}-${Math.max(...blocks)}`);
			tui.unmount();
		}
		// 4. In a real pseudo-terminal, full redraws against incremental rendering.
		if (process.env['BENCH_PTY'] !== '0') {
			// The CLI's own environment: no NODE_ENV, so launch.tsx picks React's production build as it does for users.
			const env: NodeJS.ProcessEnv = {...fx.env, PATH: process.env['PATH'], TERM: 'xterm-256color'};
			const cli = `node --import tsx ${REPO}/src/cli.tsx`;
			for (const incremental of ['0', '1']) {
				const label = incremental === '1' ? 'incremental' : 'full redraw';
				const live = openPty({command: `${cli} tui --resume ${long.id} --sessions-dir ${fx.sessionsDir}`, columns: 160, rows: 48, cwd: REPO, env: {...env, CULTURECONVERSE_TUI_INCREMENTAL: incremental}});
				try {
					await live.waitFor('LIVE');
					const ups = [];
					for (let i = 0; i < REPEAT; i++) ups.push(await live.press(KEYS.up));
					recordPty(`pty ${label}: ↑ (scroll Public one line)`, ups);
					const pages = [];
					for (let i = 0; i < REPEAT / 2; i++) pages.push(await live.press(KEYS.pageUp));
					for (let i = 0; i < REPEAT / 2; i++) pages.push(await live.press(KEYS.pageDown));
					recordPty(`pty ${label}: PgUp/PgDn (one page)`, pages);
					const tabs = [];
					for (let i = 0; i < 6; i++) tabs.push(await live.press('\t'));
					recordPty(`pty ${label}: Tab (focus the next pane)`, tabs);
					recordPty(`pty ${label}: n (one mock step, to its last byte)`, [await live.press('n', 400)]);
				} finally {
					await live.close();
				}
				const replay = openPty({command: `${cli} replay ${long.id} --sessions-dir ${fx.sessionsDir}`, columns: 160, rows: 48, cwd: REPO, env: {...env, CULTURECONVERSE_TUI_INCREMENTAL: incremental}});
				try {
					await replay.waitFor('REPLAY');
					const moves = [];
					for (let i = 0; i < REPEAT; i++) moves.push(await replay.press(i < REPEAT / 2 ? KEYS.left : KEYS.right));
					recordPty(`pty ${label}: replay ← / →`, moves);
				} finally {
					await replay.close();
				}
			}
		}
	} finally {
		fx.close();
	}
	const width = Math.max(...rows.map((row) => row.what.length));
	console.log(`\n${'measure'.padEnd(width)}  ${'n'.padStart(4)}  ${'p50 ms'.padStart(7)}  ${'p95 ms'.padStart(7)}  ${'max ms'.padStart(7)}  blocks re-rendered per frame / bytes per key`);
	for (const row of rows) console.log(`${row.what.padEnd(width)}  ${String(row.n).padStart(4)}  ${row.p50.toFixed(1).padStart(7)}  ${row.p95.toFixed(1).padStart(7)}  ${row.max.toFixed(1).padStart(7)}  ${row.blocks ?? row.bytes ?? ''}`);
	console.log(`\nGoal: < 50 ms per frame. Terminal 160x48, Node ${process.version}, ${(await import('node:os')).cpus().length} CPU(s), React ${process.env['NODE_ENV']} build.`);
}

await main();
