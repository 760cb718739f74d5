/**
 * Batch benchmark (`npm run bench:batch`): prints figures, asserts nothing.
 *
 * The loopback server (test/bench/loopbackServer.ts) and the batch (test/bench/cliChild.ts, the real
 * CLI) each run in a process of their own, so the harness's CPU is measured apart from the server's.
 * Blueprints and shards come from the offline mock; simulator, assistant and judge calls go over HTTP
 * through the real openai client. Sections (BENCH_SECTIONS, default all):
 *
 * - scale: the same batch at BENCH_SCALE episodes (default 200,1000; the issue's figures are at
 *   1000,20000): CPU per episode, peak RSS, characters written per episode against the average
 *   final session size. Linear means CPU per episode stays flat as N grows.
 * - throughput: BENCH_PARALLEL (default 16,32,64,128) episodes in flight, 100 ms per call: calls/s
 *   against the ideal (in flight / latency), CPU ms per call.
 * - limiter: a server admitting BENCH_ADMIT (32) requests in flight, 429 beyond, with and without
 *   retry-after, the batch allowed twice that: calls/s against the admitted rate.
 * - faults: 15% each of 429 / 500 / bad JSON / empty replies and 3% hangs, adaptive against a fixed
 *   width: wall time, episodes lost (none may be), crashes.
 * - pacing: rate limits met by the server's own headers (`rateLimitPacing: "headers"`, the default)
 *   against the width adaptation alone (`"aimd"`, the behaviour before): 15% random 429s while the
 *   headers show quota left (wall time against a fixed width; the aim is within 1.2x), and a quota
 *   the headers announce (BENCH_QUOTA requests per window; the aim is 0.9 of it or more).
 */
import {spawn} from 'node:child_process';
import {mkdtempSync, readdirSync, rmSync, statSync} from 'node:fs';
import {tmpdir} from 'node:os';
import path from 'node:path';
import {fileURLToPath} from 'node:url';
import {startBenchServer} from './benchServer.js';

const here = path.dirname(fileURLToPath(import.meta.url));
const TSX = import.meta.resolve('tsx');
const sections = (process.env['BENCH_SECTIONS'] ?? 'scale,throughput,limiter,faults,pacing').split(',');
const work = mkdtempSync(path.join(tmpdir(), 'cc-bench-batch-'));
const home = path.join(work, 'home');


type Child = {code: number; cpuMs: number; maxRssMb: number; writtenChars: number; stdout: string; stderr: string; wallMs: number};

async function batch(args: string[]): Promise<Child> {
	const started = Date.now();
	const child = spawn(process.execPath, ['--import', TSX, path.join(here, 'cliChild.ts'), 'batch', ...args, '--model', 'fake-model', '--generator-model', 'mock', '--validator-model', 'mock', '--no-cache', '--json'], {
		cwd: work,
		env: {...process.env, CULTURECONVERSE_HOME: home, CULTURECONVERSE_EMBEDDER: 'hash', OPENAI_API_KEY: 'sk-bench-0000000000'},
		stdio: ['ignore', 'pipe', 'pipe', 'pipe'],
	});
	let stdout = '';
	let stderr = '';
	let stats = '';
	child.stdout!.on("data", (chunk: Buffer) => (stdout += chunk.toString()));
	child.stderr!.on("data", (chunk: Buffer) => (stderr += chunk.toString()));
	(child.stdio[3] as NodeJS.ReadableStream).on('data', (chunk: Buffer) => (stats += chunk.toString()));
	await new Promise((resolve) => child.on('exit', resolve));
	const parsed = JSON.parse(stats.trim() || '{"code": -1, "cpuMs": 0, "maxRssMb": 0, "writtenChars": 0}') as Omit<Child, 'stdout' | 'stderr' | 'wallMs'>;
	return {...parsed, stdout, stderr, wallMs: Date.now() - started};
}

/** Why a batch exited non-zero: its summary's error flags, else its last stderr line. */
function failureOf(run: Child): string {
	try {
		const summary = JSON.parse(run.stdout) as {errors?: Record<string, number>};
		if (summary.errors && Object.keys(summary.errors).length > 0) return `errors ${JSON.stringify(summary.errors)}`;
	} catch {
		// not JSON: fall through to stderr
	}
	return run.stderr.trim().split('\n').at(-1) ?? '';
}

const sessionsOf = (name: string) => path.join(work, `sessions-${name}`);
function averageSessionChars(dir: string): number {
	const files = readdirSync(dir).filter((file) => file.endsWith('.json') && !file.startsWith('.'));
	return files.reduce((sum, file) => sum + statSync(path.join(dir, file)).size, 0) / Math.max(1, files.length);
}
const pad = (value: string | number, width: number) => String(value).padStart(width);

try {
	// One warm-up run builds the KB indexes the later runs share.
	{
		const warm = await startBenchServer({BENCH_LATENCY_MS: '1'});
		await batch(['--name', 'warm', '--sample', '4', '--sessions-dir', sessionsOf('warm'), '--base-url', warm.baseURL]);
		await warm.stop();
	}

	if (sections.includes('scale')) {
		const sizes = (process.env['BENCH_SCALE'] ?? '200,1000').split(',').map(Number);
		console.log(`\nscale: parallel 64, 5 ms per call`);
		console.log('EPISODES  CPU s  CPU ms/EPISODE  PEAK RSS MB  SESSION KB  WRITTEN KB/EPISODE  WRITTEN/SESSION');
		for (const n of sizes) {
			const srv = await startBenchServer({BENCH_LATENCY_MS: '5'});
			const dir = sessionsOf(`scale-${n}`);
			const run = await batch(['--name', `scale-${n}`, '--sample', String(n), '--parallel', '64', '--concurrency', '64', '--sessions-dir', dir, '--base-url', srv.baseURL]);
			await srv.stop();
			if (run.code !== 0) console.log(`  (exit ${run.code}: ${failureOf(run)})`);
			const sessionKb = averageSessionChars(dir) / 1024;
			const writtenPer = run.writtenChars / n / 1024;
			console.log(`${pad(n, 8)}  ${pad((run.cpuMs / 1000).toFixed(1), 5)}  ${pad((run.cpuMs / n).toFixed(1), 14)}  ${pad(run.maxRssMb.toFixed(0), 11)}  ${pad(sessionKb.toFixed(1), 10)}  ${pad(writtenPer.toFixed(1), 18)}  ${pad((writtenPer / sessionKb).toFixed(2), 15)}`);
			rmSync(dir, {recursive: true, force: true});
		}
	}

	if (sections.includes('throughput')) {
		const latency = 100;
		console.log(`\nthroughput: ${latency} ms per call, --parallel = --concurrency`);
		console.log('(CALLS/S over the whole run, start-up and last wave included; STEADY: between the 10th and 90th percentile of call end times)');
		console.log('PARALLEL  EPISODES  WALL s  CALLS  CALLS/S  STEADY/S  IDEAL/S  EFFICIENCY  STEADY EFF.  CPU ms/CALL  SERVER MAX IN FLIGHT');
		for (const parallel of (process.env['BENCH_PARALLEL'] ?? '16,32,64,128').split(',').map(Number)) {
			const srv = await startBenchServer({BENCH_LATENCY_MS: String(latency)});
			const episodes = 4 * parallel;
			const run = await batch(['--name', `tp-${parallel}`, '--sample', String(episodes), '--sample-seed', `tp${parallel}`, '--parallel', String(parallel), '--concurrency', String(parallel), '--sessions-dir', sessionsOf(`tp-${parallel}`), '--base-url', srv.baseURL]);
			const stats = await srv.stop();
			const seconds = run.wallMs / 1000;
			const ideal = parallel / (latency / 1000);
			const steady = stats.steadyPerSecond;
			console.log(`${pad(parallel, 8)}  ${pad(episodes, 8)}  ${pad(seconds.toFixed(1), 6)}  ${pad(stats.served, 5)}  ${pad((stats.served / seconds).toFixed(0), 7)}  ${pad(steady === null ? '–' : steady.toFixed(0), 8)}  ${pad(ideal, 7)}  ${pad(`${((stats.served / seconds / ideal) * 100).toFixed(0)}%`, 10)}  ${pad(steady === null ? '–' : `${((steady / ideal) * 100).toFixed(0)}%`, 11)}  ${pad((run.cpuMs / stats.served).toFixed(2), 11)}  ${pad(stats.maxInFlight, 20)}`);
		}
	}

	if (sections.includes('limiter')) {
		const admit = Number(process.env['BENCH_ADMIT'] ?? 32);
		const latency = 250;
		console.log(`\nlimiter: the server admits ${admit} in flight (429 beyond), ${latency} ms per call; the batch may send ${2 * admit}`);
		console.log('RETRY-AFTER  ADAPTIVE  WALL s  SERVED  REFUSED  SERVED/S  STEADY/S  ADMITTED/S  SHARE  STEADY SHARE');
		for (const [retryAfter, adaptive] of [['', true], ['250', true], ['', false]] as const) {
			const srv = await startBenchServer({BENCH_LATENCY_MS: String(latency), BENCH_ADMIT: String(admit), ...(retryAfter ? {BENCH_RETRY_AFTER: retryAfter} : {})});
			const name = `lim-${retryAfter || 'none'}-${adaptive}`;
			const config = path.join(work, `${name}.json`);
			const {writeFileSync} = await import('node:fs');
			writeFileSync(config, JSON.stringify({adaptiveConcurrency: adaptive, retry: {maxAttempts: 20, baseDelayMs: 100, maxDelayMs: 2000}}));
			const run = await batch(['--name', name, '--sample', String(3 * admit), '--sample-seed', name, '--parallel', String(2 * admit), '--concurrency', String(2 * admit), '--config', config, '--sessions-dir', sessionsOf(name), '--base-url', srv.baseURL]);
			const stats = await srv.stop();
			const seconds = run.wallMs / 1000;
			const admitted = admit / (latency / 1000);
			const steady = stats.steadyPerSecond;
			console.log(`${pad(retryAfter || 'none', 11)}  ${pad(String(adaptive), 8)}  ${pad(seconds.toFixed(1), 6)}  ${pad(stats.served, 6)}  ${pad(stats.refused, 7)}  ${pad((stats.served / seconds).toFixed(1), 8)}  ${pad(steady === null ? '–' : steady.toFixed(1), 8)}  ${pad(admitted.toFixed(0), 10)}  ${pad(`${((stats.served / seconds / admitted) * 100).toFixed(0)}%`, 5)}  ${pad(steady === null ? '–' : `${((steady / admitted) * 100).toFixed(0)}%`, 12)}`);
		}
	}

	if (sections.includes('faults')) {
		const faults = '429:0.15,500:0.15,badjson:0.15,empty:0.15,hang:0.03';
		console.log(`\nfaults: ${faults}, 100 ms per call, hangs of 30 s, 48 episodes, 16 in flight`);
		console.log('ADAPTIVE  WALL s  EXIT  COMPLETED  ERRORS  LOST  CRASHED');
		for (const adaptive of [true, false]) {
			const srv = await startBenchServer({BENCH_LATENCY_MS: '100', BENCH_FAULTS: faults, BENCH_HANG_MS: '30000'});
			const name = `faults-${adaptive}`;
			const config = path.join(work, `${name}.json`);
			const {writeFileSync} = await import('node:fs');
			writeFileSync(config, JSON.stringify({adaptiveConcurrency: adaptive, retry: {maxAttempts: 8, baseDelayMs: 200, maxDelayMs: 2000}, validationRetries: 3, roles: {simulator: {timeoutMs: 10000}, assistant: {timeoutMs: 10000}, judge: {timeoutMs: 10000}}}));
			const run = await batch(['--name', name, '--sample', '48', '--sample-seed', name, '--parallel', '16', '--concurrency', '16', '--config', config, '--sessions-dir', sessionsOf(name), '--base-url', srv.baseURL]);
			await srv.stop();
			const summary = JSON.parse(run.stdout) as {byStatus: Record<string, number>};
			const saved = readdirSync(sessionsOf(name)).filter((file) => file.endsWith('.json')).length;
			const crashed = run.code === 1 || /internal error/.test(run.stderr);
			console.log(`${pad(String(adaptive), 8)}  ${pad((run.wallMs / 1000).toFixed(1), 6)}  ${pad(run.code, 4)}  ${pad(summary.byStatus['completed'] ?? 0, 9)}  ${pad(summary.byStatus['error'] ?? 0, 6)}  ${pad(48 - saved, 4)}  ${pad(String(crashed), 7)}`);
		}
	}
	if (sections.includes('pacing')) {
		const {writeFileSync} = await import('node:fs');
		const limiters = [
			['fixed width', {adaptiveConcurrency: false, rateLimitPacing: 'aimd'}],
			['before: AIMD on every 429', {adaptiveConcurrency: true, rateLimitPacing: 'aimd'}],
			['after: paced by headers', {adaptiveConcurrency: true, rateLimitPacing: 'headers'}],
		] as const;
		const paced = async (name: string, env: Record<string, string>, config: object, episodes: number, parallel: number) => {
			const srv = await startBenchServer(env);
			const file = path.join(work, `${name}.json`);
			writeFileSync(file, JSON.stringify({...config, retry: {maxAttempts: 12, baseDelayMs: 200, maxDelayMs: 2000}}));
			const run = await batch(['--name', name, '--sample', String(episodes), '--sample-seed', 'pacing', '--parallel', String(parallel), '--concurrency', String(parallel), '--config', file, '--sessions-dir', sessionsOf(name), '--base-url', srv.baseURL]);
			const stats = await srv.stop();
			if (run.code !== 0) console.log(`  (exit ${run.code}: ${failureOf(run)})`);
			return {run, stats};
		};

		const randomEpisodes = Number(process.env['BENCH_PACING_EPISODES'] ?? 96);
		const repeats = Number(process.env['BENCH_PACING_REPEAT'] ?? 2);
		console.log(`\npacing, random 429s: 15% of calls answered 429 at random while the rate-limit headers show quota left; 100 ms per call, ${randomEpisodes} episodes, 16 in flight`);
		console.log(`(WALL: the whole batch, start-up included, the best of ${repeats} runs taken in turn (the machine is shared; every run is listed); x FIXED: against the fixed width, whose 429s are only retried)`);
		console.log('LIMITER                       WALL s  x FIXED  SERVED  REFUSED  RUNS s');
		const walls = limiters.map(() => [] as number[]);
		const served = limiters.map(() => ({served: 0, refused: 0}));
		for (let round = 0; round < repeats; round++) {
			for (const [index, [, config]] of limiters.entries()) {
				const {run, stats} = await paced(`random-${round}-${config.adaptiveConcurrency}-${config.rateLimitPacing}`, {BENCH_LATENCY_MS: '100', BENCH_FAULTS: '429:0.15', BENCH_RATE_HEADERS: '1'}, config, randomEpisodes, 16);
				walls[index]!.push(run.wallMs / 1000);
				served[index] = {served: stats.served, refused: stats.faulted};
			}
		}
		const fixedWall = Math.min(...walls[0]!);
		for (const [index, [label]] of limiters.entries()) {
			const best = Math.min(...walls[index]!);
			console.log(`${label.padEnd(28)}  ${pad(best.toFixed(1), 6)}  ${pad(`${(best / fixedWall).toFixed(2)}x`, 7)}  ${pad(served[index]!.served, 6)}  ${pad(served[index]!.refused, 7)}  ${walls[index]!.map((wall) => wall.toFixed(1)).join(', ')}`);
		}

		const [quota, windowMs] = (process.env['BENCH_QUOTA'] ?? '60/2000').split('/').map(Number) as [number, number];
		const perSecond = quota / (windowMs / 1000);
		const quotaEpisodes = Number(process.env['BENCH_QUOTA_EPISODES'] ?? 64);
		console.log(`\npacing, a header-announced quota: ${quota} requests per ${windowMs} ms window (${perSecond.toFixed(0)}/s), 429 beyond it; 100 ms per call, ${quotaEpisodes} episodes, 32 in flight (${(32 / 0.1).toFixed(0)}/s without the quota)`);
		console.log('(SERVED/S over the whole batch, start-up and last wave included; STEADY/S between the 10th and 90th percentile of call end times; SHARE: of the quota)');
		console.log('429 SAYS           LIMITER                       WALL s  SERVED  REFUSED  SERVED/S  STEADY/S  QUOTA/S  SHARE  STEADY SHARE');
		for (const [says, retryAfter] of [['retry-after-ms', '1'], ['reset header only', '0']] as const) {
			for (const [label, config] of limiters.slice(1)) {
				const {run, stats} = await paced(`quota-${retryAfter}-${config.rateLimitPacing}`, {BENCH_LATENCY_MS: '100', BENCH_QUOTA: `${quota}/${windowMs}`, BENCH_QUOTA_RETRY_AFTER: retryAfter}, config, quotaEpisodes, 32);
				const seconds = run.wallMs / 1000;
				const steady = stats.steadyPerSecond;
				console.log(`${says.padEnd(17)}  ${label.padEnd(28)}  ${pad(seconds.toFixed(1), 6)}  ${pad(stats.served, 6)}  ${pad(stats.refused, 7)}  ${pad((stats.served / seconds).toFixed(1), 8)}  ${pad(steady === null ? '–' : steady.toFixed(1), 8)}  ${pad(perSecond.toFixed(0), 7)}  ${pad(`${((stats.served / seconds / perSecond) * 100).toFixed(0)}%`, 5)}  ${pad(steady === null ? '–' : `${((steady / perSecond) * 100).toFixed(0)}%`, 12)}`);
			}
		}
	}
} finally {
	rmSync(work, {recursive: true, force: true});
}
