/**
 * Batch throughput benchmark (`npm run bench:batch`). Prints figures; asserts nothing.
 *
 * Runs the real `batch` command in-process against the loopback OpenAI-compatible test server, which
 * answers every call after BENCH_LATENCY_MS (default 150 ms, a fast hosted model) with the scripted
 * episode replies. Each configuration runs at least BENCH_EPISODES episodes (default 24, about 16
 * calls each) and at least four per slot: with fewer, the last wave leaves slots idle (24 episodes on
 * 16 slots cap efficiency at 75%) and the figure measures the tail, not the harness. --parallel
 * (episodes in flight) and --concurrency are equal, and the bench reports wall time,
 * episodes per hour, calls per second, and how close that comes to the ideal (every slot busy).
 * The peers' published figure for scale: tau2-bench's design note measured 272.7 simulations/hour
 * in one process at concurrency 30.
 */
import {performance} from 'node:perf_hooks';
import {runCli} from '../helpers/cli.js';
import {episodeHarness} from '../helpers/episodeHarness.js';
import type {FakeReply} from '../helpers/fakeOpenAI.js';
import {scriptedModel} from '../helpers/scriptedModel.js';

const EPISODES = Number(process.env['BENCH_EPISODES'] ?? 24);
const LATENCY = Number(process.env['BENCH_LATENCY_MS'] ?? 150);
const PARALLEL = (process.env['BENCH_PARALLEL'] ?? '1,4,8,16').split(',').map(Number);

const h = await episodeHarness();
try {
	const script = scriptedModel();
	// The scripted model answers synchronously; only the wait is added.
	h.fake.setHandler((request) => ({delayMs: LATENCY, then: script(request) as FakeReply | undefined}));
	console.log(`max(${EPISODES}, 4 x parallel) episodes per run, ${LATENCY} ms per model call (loopback server), hash embedder`);
	console.log('PARALLEL  EPISODES  WALL s  EPISODES/H  CALLS/S  CALLS  IDEAL EP/H  EFFICIENCY  PEAK RSS MB');
	for (const parallel of PARALLEL) {
		const episodes = Math.max(EPISODES, 4 * parallel);
		const before = h.fake.chatRequests().length;
		const started = performance.now();
		const result = await runCli(['batch', '--name', `bench-p${parallel}`, '--sample', String(episodes), '--sample-seed', `p${parallel}`, '--parallel', String(parallel), '--concurrency', String(parallel), '--sessions-dir', h.sessionsDir, '--json'], {env: h.env, cwd: h.cwd});
		const seconds = (performance.now() - started) / 1000;
		if (result.code !== 0) throw new Error(`batch failed (${result.code}): ${result.stderr}`);
		const calls = h.fake.chatRequests().length - before;
		const perHour = (episodes / seconds) * 3600;
		// Every call costs LATENCY; with `parallel` slots always busy the batch would take this long.
		const ideal = (episodes / ((calls * LATENCY) / 1000 / parallel)) * 3600;
		console.log(`${String(parallel).padStart(8)}  ${String(episodes).padStart(8)}  ${seconds.toFixed(1).padStart(6)}  ${perHour.toFixed(0).padStart(10)}  ${(calls / seconds).toFixed(1).padStart(7)}  ${String(calls).padStart(5)}  ${ideal.toFixed(0).padStart(10)}  ${((perHour / ideal) * 100).toFixed(0).padStart(9)}%  ${(process.resourceUsage().maxRSS / 1024).toFixed(0).padStart(11)}`);
	}
} finally {
	await h.close();
}
