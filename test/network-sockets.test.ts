import assert from 'node:assert/strict';
import http from 'node:http';
import path from 'node:path';
import {after, before, describe, it} from 'node:test';
import OpenAI from 'openai';
import {httpFetch, transportCounters} from '../src/llm/httpFetch.js';
import {readSession} from '../src/store/sessionStore.js';
import {parseJson, runCli} from './helpers/cli.js';
import {type LlamaFront, startLlamaFront} from './helpers/llamaConnections.js';
import {type ProfiledServer, startServer} from './helpers/serverProfiles.js';
import {tempDir} from './helpers/tmp.js';

/*
 * Keep-alive sockets against a server that closes them after every streamed reply while advertising
 * keep-alive, as llama-server does (test/helpers/llamaConnections.ts cites the llama.cpp and
 * cpp-httplib code). The front stands before the llama.cpp profile of the loopback server
 * (serverProfiles.ts: tools/server/README.md), so doctor and run meet it as they would the real one.
 */

let llama: ProfiledServer;
let front: LlamaFront;
before(async () => {
	llama = await startServer({kind: 'llamacpp', alias: 'smollm2-135m-instruct-q4_1.gguf'});
	front = await startLlamaFront(llama.baseURL);
});
after(async () => {
	await front.close();
	await llama.close();
});

const chat = (stream: boolean) => JSON.stringify({model: 'm', stream, messages: [{role: 'user', content: 'Say ready.'}]});

describe('a server that closes the connection after each stream', () => {
	it('breaks a plain keep-alive agent on the request after a stream (the defect, reproduced)', async () => {
		const agent = new http.Agent({keepAlive: true, maxSockets: 1});
		const once = (body: string) =>
			new Promise<{status: number; text: string}>((resolve, reject) => {
				const url = new URL(`${front.baseURL}/chat/completions`);
				const request = http.request(url, {method: 'POST', agent, headers: {'content-type': 'application/json', 'content-length': Buffer.byteLength(body)}}, (response) => {
					let text = '';
					response.on('data', (chunk: Buffer) => (text += chunk.toString()));
					response.on('end', () => resolve({status: response.statusCode ?? 0, text}));
				});
				request.on('error', reject);
				request.end(body);
			});
		const resetsBefore = front.resets;
		const streamed = await once(chat(true));
		assert.equal(streamed.status, 200);
		assert.match(streamed.text, /data: \[DONE\]/);
		await assert.rejects(once(chat(false)), {code: 'ECONNRESET'});
		assert.equal(front.resets, resetsBefore + 1);
		agent.destroy();
	});

	it('serves 40 alternating streamed and whole replies through the openai client with no failure: one transparent resend, then streams drop their socket', async () => {
		const client = new OpenAI({baseURL: front.baseURL, apiKey: 'no-key', maxRetries: 0, fetch: httpFetch});
		const stale = transportCounters.staleRetries;
		const dropped = transportCounters.droppedAfterStream;
		let streamedText = 0;
		for (let i = 0; i < 40; i++) {
			if (i % 2 === 0) {
				const stream = await client.chat.completions.create({model: 'm', stream: true, messages: [{role: 'user', content: `stream ${i}`}]});
				for await (const chunk of stream) streamedText += chunk.choices[0]?.delta.content?.length ?? 0;
			} else {
				const reply = await client.chat.completions.create({model: 'm', messages: [{role: 'user', content: `whole ${i}`}]});
				assert.ok(reply.choices[0]?.message.content);
			}
		}
		assert.ok(streamedText > 0);
		// The first stream's socket went back to the pool and was reset under the next request, which was
		// sent again on a fresh connection; from then on each stream's socket is given up after it.
		assert.equal(transportCounters.staleRetries - stale, 1);
		assert.equal(transportCounters.droppedAfterStream - dropped, 19);
	});

	it('lets doctor find every role working, streaming included, and run an episode with no retried call', async () => {
		const cwd = tempDir('cc-net-llama-');
		const model = 'smollm2-135m-instruct-q4_1.gguf';
		const doctor = await runCli(['doctor', '--model', model, '--base-url', front.baseURL, '--json'], {cwd, env: {CULTURECONVERSE_HOME: path.join(cwd, 'home')}});
		const report = parseJson<{roles: Array<{role: string; structured: {ok: boolean} | null; streaming: string | null}>; problems: string[]; warnings: string[]}>(doctor.stdout);
		assert.deepEqual(report.problems, [], doctor.stdout);
		assert.equal(report.warnings.filter((warning) => /stream|network|ECONNRESET|connection/i.test(warning)).length, 0, report.warnings.join('\n'));
		// doctor makes the call each role will make: structured roles a structured call, the assistant a
		// streamed reply (the one that used to meet the reset socket).
		for (const check of report.roles) {
			if (check.role === 'assistant') assert.equal(check.streaming, 'yes', check.role);
			else assert.equal(check.structured?.ok, true, check.role);
		}
		const run = await runCli(['run', '--seed', 'my-tamil-hindu-a55-f:culinary.dietary-rules.02', '--model', model, '--generator-model', 'mock', '--validator-model', 'mock', '--base-url', front.baseURL, '--max-turns', '2', '--sessions-dir', path.join(cwd, 'sessions'), '--json'], {cwd, env: {CULTURECONVERSE_HOME: path.join(cwd, 'home')}});
		assert.equal(run.code, 0, run.stderr);
		const session = readSession(parseJson<{path: string}>(run.stdout).path);
		const remote = session.calls.filter((call) => call.provider === 'openai');
		assert.ok(remote.some((call) => call.streamed === true), 'some calls streamed');
		assert.deepEqual(
			remote.flatMap((call) => call.retries.map((retry) => `${call.role}: ${retry.reason}`)),
			[],
			'no call paid a retry',
		);
	});
});
