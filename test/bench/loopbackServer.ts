/**
 * A loopback OpenAI-compatible server in its own process, for benchmarks that time the harness:
 * run in the benchmark's process, the server's own CPU would be billed to the harness. It answers
 * every stage with the scripted episode replies after BENCH_LATENCY_MS, admits at most
 * BENCH_ADMIT requests in flight (429 beyond, with `retry-after-ms` when BENCH_RETRY_AFTER is set),
 * and can mix in faults (BENCH_FAULTS="429:0.15,500:0.15,badjson:0.15,empty:0.15,hang:0.03").
 * Rate-limit headers as OpenAI's "Rate limits" guide documents them (x-ratelimit-limit-requests,
 * -remaining-requests, -reset-requests as a duration such as "1.5s"): BENCH_RATE_HEADERS=1 sends them
 * on every answer with plenty left (so a random 429 shows quota remaining); BENCH_QUOTA="N/MS"
 * enforces N requests per fixed window of MS milliseconds, answering 429 with `retry-after-ms`
 * beyond it (none with BENCH_QUOTA_RETRY_AFTER=0) and the true figures on every answer.
 * Prints `{"baseURL": ...}` on its first line; on SIGTERM it prints its counters and exits.
 *
 *   node --import tsx test/bench/loopbackServer.ts
 */
import {scriptedModel} from '../helpers/scriptedModel.js';
import {type FakeReply, startFakeOpenAI} from '../helpers/fakeOpenAI.js';

const latency = Number(process.env['BENCH_LATENCY_MS'] ?? 100);
const admit = Number(process.env['BENCH_ADMIT'] ?? 0);
const retryAfter = process.env['BENCH_RETRY_AFTER'];
const faults = (process.env['BENCH_FAULTS'] ?? '')
	.split(',')
	.filter(Boolean)
	.map((entry) => {
		const [kind, share] = entry.split(':');
		return {kind: kind!, share: Number(share)};
	});
const hangMs = Number(process.env['BENCH_HANG_MS'] ?? 30_000);
const rateHeaders = process.env['BENCH_RATE_HEADERS'] === '1';
const [quota, windowMs] = (process.env['BENCH_QUOTA'] ?? '0/1000').split('/').map(Number) as [number, number];
const quotaRetryAfter = process.env['BENCH_QUOTA_RETRY_AFTER'] !== '0';
const started = Date.now();
let windowIndex = 0;
let windowCount = 0;
/** The current fixed window: its number, and the ms until it ends. */
const quotaWindow = () => {
	const elapsed = Date.now() - started;
	const index = Math.floor(elapsed / windowMs);
	if (index !== windowIndex) {
		windowIndex = index;
		windowCount = 0;
	}
	return (index + 1) * windowMs - elapsed;
};
const limitHeaders = (): Record<string, string> => {
	if (quota > 0) {
		const left = quotaWindow();
		return {'x-ratelimit-limit-requests': String(quota), 'x-ratelimit-remaining-requests': String(Math.max(0, quota - windowCount)), 'x-ratelimit-reset-requests': `${(left / 1000).toFixed(3)}s`};
	}
	return rateHeaders ? {'x-ratelimit-limit-requests': '10000', 'x-ratelimit-remaining-requests': '9999', 'x-ratelimit-reset-requests': '6ms', 'x-ratelimit-limit-tokens': '2000000', 'x-ratelimit-remaining-tokens': '1999000', 'x-ratelimit-reset-tokens': '30ms'} : {};
};
const script = scriptedModel();
let inFlight = 0;
let maxInFlight = 0;
let served = 0;
let refused = 0;
let faulted = 0;
/** When each served call ended: the steady-state rate leaves out the harness's start-up and last wave. */
const servedAt: number[] = [];
let random = 12345;
const next = () => ((random = (random * 1103515245 + 12345) % 2 ** 31) / 2 ** 31);

const fake = await startFakeOpenAI({
	models: ['fake-model'],
	responseHeaders: limitHeaders,
	handler: async (request) => {
		if (quota > 0) {
			const left = quotaWindow();
			if (windowCount >= quota) {
				refused++;
				return {status: 429, headers: quotaRetryAfter ? {'retry-after-ms': String(Math.ceil(left))} : {}, body: {error: {message: 'Rate limit reached for requests', type: 'requests', code: 'rate_limit_exceeded'}}};
			}
			windowCount++;
		}
		if (admit > 0 && inFlight >= admit) {
			refused++;
			return {status: 429, headers: retryAfter ? {'retry-after-ms': retryAfter} : {}, body: {error: {message: 'Too many requests in flight', type: 'rate_limit_error', code: 'rate_limit_exceeded'}}};
		}
		inFlight++;
		maxInFlight = Math.max(maxInFlight, inFlight);
		try {
			let roll = next();
			for (const fault of faults) {
				if (roll < fault.share) {
					faulted++;
					if (fault.kind === 'hang') return {delayMs: hangMs};
					await new Promise((resolve) => setTimeout(resolve, latency));
					if (fault.kind === 'badjson') return {content: '{"this is": not json'};
					if (fault.kind === 'empty') return {content: ''};
					return {status: Number(fault.kind), body: {error: {message: `injected ${fault.kind}`}}};
				}
				roll -= fault.share;
			}
			await new Promise((resolve) => setTimeout(resolve, latency));
			served++;
			servedAt.push(Date.now());
			return (script(request) as FakeReply | undefined) ?? undefined;
		} finally {
			inFlight--;
		}
	},
});
process.stdout.write(`${JSON.stringify({baseURL: fake.baseURL})}\n`);
process.on('SIGTERM', () => {
	// Calls per second between the 10th and the 90th percentile of the served calls' end times.
	const steady = servedAt.length >= 20 ? (() => {
		const from = servedAt[Math.floor(servedAt.length * 0.1)]!;
		const to = servedAt[Math.floor(servedAt.length * 0.9)]!;
		return to > from ? (Math.floor(servedAt.length * 0.9) - Math.floor(servedAt.length * 0.1)) / ((to - from) / 1000) : null;
	})() : null;
	process.stdout.write(`${JSON.stringify({served, refused, faulted, maxInFlight, steadyPerSecond: steady, cpuMs: process.cpuUsage().user / 1000 + process.cpuUsage().system / 1000})}\n`);
	void fake.close().then(() => process.exit(0));
});
