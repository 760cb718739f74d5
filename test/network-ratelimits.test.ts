import assert from 'node:assert/strict';
import {after, before, describe, it} from 'node:test';
import {createGateway} from '../src/llm/gateway.js';
import {createLimiter} from '../src/llm/limiter.js';
import {EMPTY_PACE, MAX_HOLD_MS, PROBE_MS, RESET_MARGIN_MS, claimStart, observePace, readPace, writePace} from '../src/llm/pacer.js';
import {parseDuration, readRateHeaders, resetMs} from '../src/llm/rateHeaders.js';
import {createSharedLimiter, sharedLimiterState} from '../src/llm/sharedLimiter.js';
import {type FakeOpenAI, fakePrompt, fakeRoles, startFakeOpenAI} from './helpers/fakeOpenAI.js';
import {tempDir} from './helpers/tmp.js';

/*
 * Rate limits met by the server's own headers. Header names and formats as each provider documents
 * them: OpenAI's "Rate limits" guide (x-ratelimit-{limit,remaining,reset}-{requests,tokens}, resets as
 * durations "1s", "6m0s", "20ms"; Groq documents the same names, with retry-after only on 429s),
 * Anthropic's "Rate limits" page (anthropic-ratelimit-*-remaining / -reset as RFC 3339 times),
 * OpenRouter's x-ratelimit-limit / -remaining / -reset (epoch milliseconds), Azure OpenAI's -1
 * placeholders (Microsoft Q&A 5625878), retry-after-ms and retry-after.
 */

const NOW = Date.parse('2026-03-01T12:00:00Z');
const headers = (record: Record<string, string>) => new Headers(record);

describe('reading rate-limit headers', () => {
	it('reads OpenAI/Groq durations, Anthropic times, OpenRouter epochs, and ignores Azure placeholders', () => {
		assert.deepEqual([parseDuration('6m0s'), parseDuration('20ms'), parseDuration('1.5s'), parseDuration('2m59.56s'), parseDuration('1h2m3.5s'), parseDuration('soon')], [360_000, 20, 1500, 179_560, 3_723_500, null]);
		const openai = readRateHeaders(headers({'x-ratelimit-limit-requests': '5000', 'x-ratelimit-remaining-requests': '4999', 'x-ratelimit-reset-requests': '12ms', 'x-ratelimit-limit-tokens': '160000', 'x-ratelimit-remaining-tokens': '159976', 'x-ratelimit-reset-tokens': '9ms'}), NOW);
		assert.deepEqual(openai, {requests: {remaining: 4999, limit: 5000, resetInMs: 12}, tokens: {remaining: 159976, limit: 160000, resetInMs: 9}, retryAfterMs: null});
		const anthropic = readRateHeaders(headers({'anthropic-ratelimit-requests-limit': '50', 'anthropic-ratelimit-requests-remaining': '0', 'anthropic-ratelimit-requests-reset': '2026-03-01T12:00:30Z', 'anthropic-ratelimit-input-tokens-remaining': '20000', 'anthropic-ratelimit-input-tokens-reset': '2026-03-01T12:00:06Z', 'retry-after': '30'}), NOW);
		assert.deepEqual(anthropic, {requests: {remaining: 0, limit: 50, resetInMs: 30_000}, tokens: {remaining: 20000, limit: null, resetInMs: 6000}, retryAfterMs: 30_000});
		const openrouter = readRateHeaders(headers({'X-RateLimit-Limit': '20', 'X-RateLimit-Remaining': '3', 'X-RateLimit-Reset': String(NOW + 4000)}), NOW);
		assert.deepEqual(openrouter.requests, {remaining: 3, limit: 20, resetInMs: 4000});
		assert.deepEqual(readRateHeaders(headers({'x-ratelimit-limit-tokens': '-1', 'x-ratelimit-remaining-tokens': '-1', 'x-ratelimit-reset-tokens': '0'}), NOW), {requests: null, tokens: null, retryAfterMs: null});
		assert.deepEqual([resetMs(String(Math.floor(NOW / 1000) + 60), NOW), resetMs('7', NOW), resetMs('Sun, 01 Mar 2026 12:00:02 GMT', NOW)], [60_000, 7000, 2000]);
		assert.equal(readRateHeaders(headers({'retry-after-ms': '250', 'retry-after': '9'}), NOW).retryAfterMs, 250);
	});
});

describe('pacing by the headers (pure)', () => {
	const quota = (remaining: number, resetInMs: number | null, limit: number | null = 10) => ({requests: {remaining, limit, resetInMs}, tokens: null, retryAfterMs: null});

	it('spends what is left evenly until the reset, holds when it is spent, and starts again full after the reset', () => {
		let state = observePace(EMPTY_PACE, {rateLimited: false, rate: quota(4, 1000 - RESET_MARGIN_MS)}, NOW).state;
		const starts: number[] = [];
		let now = NOW;
		for (let i = 0; i < 6; i++) {
			for (;;) {
				const claimed = claimStart(state, now);
				state = claimed.state;
				if (claimed.waitMs === 0) break;
				now += claimed.waitMs;
			}
			starts.push(now - NOW);
		}
		// Four left for 1000 ms: one every 250 ms; then the window is full again (its size, 10, was said).
		assert.deepEqual(starts.slice(0, 4), [0, 250, 500, 750]);
		assert.equal(starts[4], 1000, 'the fifth waits for the reset');
		assert.equal(starts[5], 1000, 'a fresh window with no reset said yet spaces nothing');
	});

	it('a 429 while quota is left changes nothing; a 429 with the quota spent pauses every start; a 429 without headers asks to narrow', () => {
		const left = observePace(EMPTY_PACE, {rateLimited: true, rate: {...quota(900, 60_000, 1000), retryAfterMs: 2000}}, NOW);
		assert.equal(left.narrow, false);
		assert.equal(left.state.pausedUntil, 0, 'a random 429 with remaining quota: only that call waits');
		const spent = observePace(EMPTY_PACE, {rateLimited: true, rate: {...quota(0, 30_000), retryAfterMs: 2000}}, NOW);
		assert.equal(spent.narrow, false);
		assert.equal(spent.state.pausedUntil, NOW + 2000, "the server's retry-after, for every start");
		assert.equal(claimStart(spent.state, NOW + 100).waitMs, 1900);
		const probe = claimStart(spent.state, NOW + 2000);
		assert.equal(probe.waitMs, 0, 'then one start goes, to read the new figures');
		assert.equal(claimStart(probe.state, NOW + 2000).waitMs, PROBE_MS, 'and the rest wait for them');
		const bare = observePace(EMPTY_PACE, {rateLimited: true, rate: {requests: null, tokens: null, retryAfterMs: 2000}}, NOW);
		assert.equal(bare.narrow, true, 'no quota headers: the width adaptation decides');
		const broken = observePace(EMPTY_PACE, {rateLimited: true, rate: {...quota(0, 10 * 86_400_000), retryAfterMs: null}}, NOW);
		assert.equal(broken.state.pausedUntil, NOW + MAX_HOLD_MS, 'a reset days away holds at most two minutes');
	});

	it("ignores an older reply's figures, probes when no reset is said, and paces by tokens at the recent tokens per call", () => {
		let state = observePace(EMPTY_PACE, {ticket: 5, rateLimited: false, rate: quota(2, 10_000)}, NOW).state;
		state = observePace(state, {ticket: 3, rateLimited: false, rate: quota(9, 10_000)}, NOW).state;
		assert.equal(state.requests?.remaining, 2, 'the reply to an earlier request is stale');
		const probing = observePace(EMPTY_PACE, {rateLimited: false, rate: quota(0, null, null)}, NOW).state;
		const first = claimStart(probing, NOW);
		assert.equal(first.waitMs, PROBE_MS);
		assert.equal(claimStart(first.state, NOW + PROBE_MS).waitMs, 0, 'after the probe wait, one start goes to learn the new figures');
		let tokens = observePace(EMPTY_PACE, {rateLimited: false, rate: {requests: null, tokens: {remaining: 4000, limit: 10_000, resetInMs: 2000 - RESET_MARGIN_MS}, retryAfterMs: null}, tokens: 1000}, NOW).state;
		const a = claimStart(tokens, NOW);
		tokens = a.state;
		assert.equal(a.waitMs, 0);
		assert.equal(claimStart(tokens, NOW).waitMs, 500, '4000 tokens left at 1000 a call for 2 s: one call every 500 ms');
		const array = new Float64Array(10);
		writePace(tokens, array, 0);
		assert.deepEqual(readPace(array, 0), tokens, 'the state survives its trip through shared memory');
	});
});

describe('the limiters, fed by real replies', () => {
	let fake: FakeOpenAI;
	let windowCount = 0;
	let windowEnds = 0;
	const QUOTA = 6;
	const WINDOW_MS = 600;
	/** A fixed window of QUOTA requests, with its figures on every answer and 429 beyond it (as the bench server does). */
	const left = () => {
		const now = Date.now();
		if (now >= windowEnds) {
			windowEnds = now + WINDOW_MS;
			windowCount = 0;
		}
		return windowEnds - now;
	};
	let refused = 0;
	before(async () => {
		fake = await startFakeOpenAI({
			responseHeaders: () => ({'x-ratelimit-limit-requests': String(QUOTA), 'x-ratelimit-remaining-requests': String(Math.max(0, QUOTA - windowCount)), 'x-ratelimit-reset-requests': `${left()}ms`}),
			handler: () => {
				left();
				if (windowCount >= QUOTA) {
					refused++;
					return {status: 429, headers: {'retry-after-ms': String(left())}, body: {error: {message: 'Rate limit reached for requests', type: 'requests', code: 'rate_limit_exceeded'}}};
				}
				windowCount++;
				return {content: 'paced'};
			},
		});
	});
	after(() => fake.close());

	const gateway = (limiter: ReturnType<typeof createLimiter>) => createGateway({settings: fakeRoles(fake.baseURL), workspaceDir: tempDir('cc-pace-'), cache: false, limiter, retry: {maxAttempts: 6, baseDelayMs: 1, maxDelayMs: 5}, env: {OPENAI_API_KEY: 'k'}});
	const burst = (gw: ReturnType<typeof gateway>, n: number) => Promise.all(Array.from({length: n}, (_, i) => gw.call<string>({role: 'judge', stage: `s${i}`, prompt: fakePrompt(`call ${i}`), mock: null, step: i})));

	it('in one process: 16 calls through a quota of 6 per window with no 429 once the first reply has spoken, and no narrowing', async () => {
		const limiter = createLimiter(8);
		const gw = gateway(limiter);
		await burst(gw, 1);
		refused = 0;
		const calls = await burst(gw, 16);
		assert.equal(refused, 0, 'no request went over the quota');
		assert.deepEqual(calls.flatMap((reply) => reply.call.retries), []);
		assert.equal(limiter.limit, 8);
	});

	it('across threads: two limiters on one shared state pace as one', async () => {
		const state = sharedLimiterState(8);
		const [a, b] = [createSharedLimiter(state), createSharedLimiter(state)];
		await burst(gateway(a as ReturnType<typeof createLimiter>), 1);
		refused = 0;
		const calls = await Promise.all([burst(gateway(a as ReturnType<typeof createLimiter>), 8), burst(gateway(b as ReturnType<typeof createLimiter>), 8)]);
		assert.equal(refused, 0);
		assert.deepEqual(calls.flat().flatMap((reply) => reply.call.retries), []);
	});

	it('with pacing "aimd" (the old behaviour) the same calls run into the quota and narrow the width', async () => {
		const limiter = createLimiter(8, {pacing: 'aimd'});
		const gw = gateway(limiter);
		await burst(gw, 1);
		refused = 0;
		await burst(gw, 16);
		assert.ok(refused > 0, 'unpaced, the burst went over the quota');
		assert.ok(limiter.limit < 8, 'and every 429 narrowed the width');
	});

	it('a random 429 with quota left narrows nothing; one without headers narrows (headers pacing)', () => {
		const limiter = createLimiter(8);
		limiter.observe({ticket: 1, endpoint: 'e', rateLimited: true, headers: headers({'x-ratelimit-remaining-requests': '4000', 'x-ratelimit-reset-requests': '1s', 'retry-after': '1'})});
		assert.equal(limiter.limit, 8);
		limiter.observe({ticket: 2, endpoint: 'e', rateLimited: true, headers: headers({'retry-after': '1'})});
		assert.equal(limiter.limit, 6);
	});
});
