import assert from 'node:assert/strict';
import {createServer} from 'node:http';
import type {AddressInfo} from 'node:net';
import {after, before, beforeEach, describe, it} from 'node:test';
import {z} from 'zod';
import {CallRecord} from '../src/domain/session.js';
import {type GatewayOptions, createGateway} from '../src/llm/gateway.js';
import {classifyStatus, retryAfterMs, retryDelay} from '../src/llm/retry.js';
import {type CallEvent, ModelCallError, type ModelRequest} from '../src/llm/types.js';
import {type FakeOpenAI, fakePrompt, fakeRoles, startFakeOpenAI} from './helpers/fakeOpenAI.js';
import {tempDir} from './helpers/tmp.js';

const Answer = z.strictObject({answer: z.string()});
const request: ModelRequest<z.infer<typeof Answer>> = {role: 'generator', stage: 'blueprint', prompt: fakePrompt('Make a blueprint'), schema: {name: 'answer', schema: Answer}, mock: null, step: 1};

let fake: FakeOpenAI;
before(async () => (fake = await startFakeOpenAI()));
after(() => fake.close());
beforeEach(() => fake.reset());

/** A gateway whose sleeps are recorded, not waited. */
function gateway(patch: Partial<GatewayOptions> = {}, roles = fakeRoles(fake.baseURL)) {
	const sleeps: number[] = [];
	const events: CallEvent[] = [];
	const gw = createGateway({
		settings: roles,
		workspaceDir: tempDir(),
		cache: false,
		env: {OPENAI_API_KEY: 'sk-test'},
		retry: {maxAttempts: 4, baseDelayMs: 1000, maxDelayMs: 8000},
		sleep: async (ms) => void sleeps.push(ms),
		random: () => 0.5,
		...patch,
	});
	gw.onEvent((event) => events.push(event));
	return {gw, sleeps, events};
}

async function expectFailure(promise: Promise<unknown>): Promise<ModelCallError> {
	try {
		await promise;
	} catch (error) {
		assert.ok(error instanceof ModelCallError, `expected ModelCallError, got ${String(error)}`);
		return error;
	}
	assert.fail('expected the call to fail');
}

describe('llm retries: rate limits', () => {
	it('honours retry-after (seconds) on 429', async () => {
		fake.enqueue({status: 429, headers: {'retry-after': '7'}});
		const {gw, sleeps, events} = gateway();
		const {call} = await gw.call(request);
		assert.deepEqual(sleeps, [7000]);
		assert.equal(call.attempts, 2);
		assert.deepEqual(call.retries, [{attempt: 1, reason: 'HTTP 429', delayMs: 7000}]);
		assert.deepEqual(
			events.filter((event) => event.type === 'call_retried').map((event) => event.type === 'call_retried' && [event.attempt, event.reason, event.delayMs]),
			[[1, 'HTTP 429', 7000]],
		);
		assert.equal(fake.chatRequests().length, 2);
	});

	it('prefers retry-after-ms over retry-after', async () => {
		fake.enqueue({status: 429, headers: {'retry-after-ms': '250', 'retry-after': '9'}});
		const {gw, sleeps} = gateway();
		await gw.call(request);
		assert.deepEqual(sleeps, [250]);
	});

	it('reads retry-after as an HTTP date against the injected clock', async () => {
		const now = Date.parse('2025-03-01T10:00:00Z');
		fake.enqueue({status: 429, headers: {'retry-after': 'Sat, 01 Mar 2025 10:00:03 GMT'}});
		const {gw, sleeps} = gateway({now: () => now});
		await gw.call(request);
		assert.deepEqual(sleeps, [3000]);
	});

	it('gives up with rate_limited when 429s outlast the attempt budget', async () => {
		fake.setHandler(() => ({status: 429, headers: {'retry-after-ms': '10'}}));
		const {gw, sleeps} = gateway();
		const error = await expectFailure(gw.call(request));
		assert.equal(error.kind, 'rate_limited');
		assert.equal(fake.chatRequests().length, 4);
		assert.deepEqual(sleeps, [10, 10, 10]);
	});
});

describe('llm retries: transient failures', () => {
	it('retries a 5xx with jittered exponential backoff, then succeeds', async () => {
		fake.enqueue({status: 503}, {status: 500});
		const {gw, sleeps} = gateway();
		const {call} = await gw.call(request);
		// random() = 0.5: half of 1000 * 2^0, then half of 1000 * 2^1.
		assert.deepEqual(sleeps, [500, 1000]);
		assert.equal(call.attempts, 3);
		assert.deepEqual(call.retries.map((retry) => retry.reason), ['HTTP 503', 'HTTP 500']);
	});

	it('retries a per-call timeout, then succeeds', async () => {
		// Generous numbers: a loaded CI machine must still answer the second attempt within the timeout.
		fake.enqueue({delayMs: 6000});
		const {gw} = gateway({}, fakeRoles(fake.baseURL, {timeoutMs: 800}));
		const started = Date.now();
		const {call} = await gw.call(request);
		assert.equal(call.ok, true);
		assert.deepEqual(call.retries.map((retry) => retry.reason), ['timeout']);
		assert.ok(Date.now() - started < 5000, 'the first attempt was cut at the timeout');
	});

	it('retries a streamed reply that stalls mid-stream past the timeout', async () => {
		fake.enqueue({stream: ['late '], pauseMs: 6000}, {stream: ['on ', 'time']});
		const {gw, events} = gateway({}, fakeRoles(fake.baseURL, {timeoutMs: 800}));
		const tokens: string[] = [];
		const {value, call} = await gw.call<string>({role: 'assistant', stage: 'assistant', prompt: fakePrompt('hi'), mock: null, step: 1, onToken: (delta) => tokens.push(`${events.filter((event) => event.type === 'call_retried').length}:${delta}`)});
		assert.equal(value, 'on time');
		assert.equal(call.retries[0]!.reason, 'timeout');
		// Tokens after a call_retried event belong to the new attempt: consumers drop what came before.
		assert.deepEqual(tokens, ['0:late ', '1:on ', '1:time']);
	});

	it('retries a dropped connection', async () => {
		// Twice: on a reused keep-alive socket the transport resends the first once by itself (httpFetch.ts).
		fake.enqueue({destroy: true}, {destroy: true});
		const {gw} = gateway();
		const {call} = await gw.call(request);
		assert.match(call.retries[0]!.reason, /^network/);
	});

	it('fails with kind network when the endpoint refuses connections', async () => {
		const closed = createServer();
		await new Promise<void>((resolve) => closed.listen(0, '127.0.0.1', resolve));
		const port = (closed.address() as AddressInfo).port;
		await new Promise((resolve) => closed.close(resolve));
		const {gw} = gateway({retry: {maxAttempts: 2, baseDelayMs: 1, maxDelayMs: 1}}, fakeRoles(`http://127.0.0.1:${port}/v1`));
		const error = await expectFailure(gw.call(request));
		assert.equal(error.kind, 'network');
		assert.equal(error.call.attempts, 2);
		assert.match(error.message, /ECONNREFUSED/);
	});
});

describe('llm retries: bad replies', () => {
	it('retries an empty reply (it counts as an attempt)', async () => {
		fake.enqueue({content: ''});
		const {gw} = gateway();
		const {call} = await gw.call(request);
		assert.equal(call.attempts, 2);
		assert.deepEqual(call.retries.map((retry) => retry.reason), ['empty reply']);
	});

	it('fails with kind empty when every attempt is empty', async () => {
		fake.setHandler(() => ({content: '  '}));
		const {gw} = gateway({retry: {maxAttempts: 3}});
		const error = await expectFailure(gw.call(request));
		assert.equal(error.kind, 'empty');
		assert.equal(fake.chatRequests().length, 3);
	});

	it('asks a cut structured reply again with more room: twice the cap it had', async () => {
		fake.enqueue({content: '{"answer": "cut', finishReason: 'length'});
		const {gw} = gateway({}, fakeRoles(fake.baseURL, {maxTokens: 700}));
		const {call, value} = await gw.call(request);
		assert.equal(value.answer.length > 0, true);
		assert.deepEqual(call.retries.map((retry) => retry.reason), ['truncated: asked again with a 1400-token cap']);
		assert.deepEqual(fake.chatRequests().map((sent) => sent.body.max_tokens), [700, 1400], 'the second request has twice the room');
		assert.equal(call.finishReason, 'stop');
	});

	it('keeps a cut free-text reply (marked "length" on the call and the response) instead of asking again under the same cap', async () => {
		fake.enqueue({content: 'This reply stops in the mid', finishReason: 'length'});
		const {gw} = gateway();
		const response = await gw.call<string>({role: 'assistant', stage: 'assistant', prompt: fakePrompt('Hello'), mock: null, step: 1});
		assert.equal(response.text, 'This reply stops in the mid');
		assert.equal(response.cut, 'length');
		assert.equal(response.call.finishReason, 'length');
		assert.equal(fake.chatRequests().length, 1);
	});

	it('fails with kind truncated after the second cut-off reply, whatever the attempt budget', async () => {
		fake.setHandler(() => ({content: '{"answer": "cut', finishReason: 'length'}));
		const {gw} = gateway({retry: {maxAttempts: 5}});
		const error = await expectFailure(gw.call(request));
		assert.equal(error.kind, 'truncated');
		assert.equal(fake.chatRequests().length, 2);
		assert.match(error.message, /maxTokens/);
	});
});

describe('llm retries: final failures', () => {
	it('budget exhaustion throws ModelCallError with the kind and a complete call record', async () => {
		fake.setHandler(() => ({status: 502}));
		const {gw, events} = gateway({retry: {maxAttempts: 3, baseDelayMs: 10, maxDelayMs: 10}});
		const error = await expectFailure(gw.call(request));
		assert.equal(error.kind, 'server');
		const call = CallRecord.parse(error.call);
		assert.equal(call.ok, false);
		assert.equal(call.attempts, 3);
		assert.equal(call.retries.length, 2);
		assert.match(call.error!, /HTTP 502 after 3 attempt/);
		assert.equal(call.response, null);
		assert.equal(call.request.at(-1)!.content, 'Make a blueprint');
		assert.equal(call.stage, 'blueprint');
		const failed = events.find((event) => event.type === 'call_failed');
		assert.ok(failed && failed.type === 'call_failed' && failed.kind === 'server' && failed.call.id === call.id);
	});

	it('does not retry 401 (auth) or 400 (bad_request)', async () => {
		fake.enqueue({status: 401});
		const auth = await expectFailure(gateway().gw.call(request));
		assert.equal(auth.kind, 'auth');
		assert.equal(fake.chatRequests().length, 1);
		fake.enqueue({status: 400, body: {error: {message: 'response_format is not supported', type: 'invalid_request_error'}}});
		const bad = await expectFailure(gateway().gw.call(request));
		assert.equal(bad.kind, 'bad_request');
		assert.match(bad.message, /response_format is not supported/);
		assert.equal(fake.chatRequests().length, 2);
	});

	it('stops with kind aborted when the signal fires during a backoff', async () => {
		const controller = new AbortController();
		fake.setHandler(() => ({status: 503}));
		const {gw} = gateway({sleep: async () => controller.abort()});
		const error = await expectFailure(gw.call({...request, signal: controller.signal}));
		assert.equal(error.kind, 'aborted');
		assert.equal(fake.chatRequests().length, 1);
	});
});

describe('llm retry policy (pure)', () => {
	const policy = {maxAttempts: 5, baseDelayMs: 1000, maxDelayMs: 5000};
	it('full jitter stays within the doubling ceiling, capped at maxDelayMs', () => {
		assert.equal(retryDelay({attempt: 1, policy, retryAfterMs: null, random: () => 0.999}), 999);
		assert.equal(retryDelay({attempt: 3, policy, retryAfterMs: null, random: () => 1}), 4000);
		assert.equal(retryDelay({attempt: 8, policy, retryAfterMs: null, random: () => 1}), 5000);
		assert.equal(retryDelay({attempt: 8, policy, retryAfterMs: null, random: () => 0}), 0);
		assert.equal(retryDelay({attempt: 1, policy, retryAfterMs: 12_000, random: () => 0}), 12_000, 'a server request beats maxDelayMs');
	});

	it('parses retry headers', () => {
		assert.equal(retryAfterMs(new Headers({'retry-after': '2'}), 0), 2000);
		assert.equal(retryAfterMs(new Headers({'retry-after': '0.5'}), 0), 500);
		assert.equal(retryAfterMs(new Headers({'retry-after-ms': '40'}), 0), 40);
		assert.equal(retryAfterMs(new Headers({'retry-after': 'soon'}), 0), null);
		assert.equal(retryAfterMs(new Headers(), 0), null);
	});

	it('classifies statuses', () => {
		const kinds = [408, 409, 429, 500, 503, 400, 401, 403, 404, 422].map((status) => {
			const c = classifyStatus(status, undefined, 0);
			return `${status}:${c.kind}:${c.retryable}`;
		});
		assert.deepEqual(kinds, ['408:timeout:true', '409:server:true', '429:rate_limited:true', '500:server:true', '503:server:true', '400:bad_request:false', '401:auth:false', '403:auth:false', '404:not_found:false', '422:bad_request:false']);
	});
});
