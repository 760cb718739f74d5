import assert from 'node:assert/strict';
import http from 'node:http';
import type {AddressInfo} from 'node:net';
import {after, before, describe, it} from 'node:test';
import OpenAI from 'openai';
import {httpFetch} from '../src/llm/httpFetch.js';

/*
 * The openai client's transport (node:http keep-alive instead of the global fetch): what the SDK
 * relies on, against a real loopback HTTP server. Server-sent events are framed as OpenAI's
 * streaming reference documents them ("data: {chunk}\n\n", ending with "data: [DONE]").
 */

let server: http.Server;
let base: string;
let release: (() => void) | undefined;
before(async () => {
	server = http.createServer((request, response) => {
		const chunks: Buffer[] = [];
		request.on('data', (chunk: Buffer) => chunks.push(chunk));
		request.on('end', () => {
			const bytes = Buffer.concat(chunks);
			const body = bytes.toString('utf8');
			if (request.url === '/v1/chat/completions' && body.includes('"stream":true')) {
				response.writeHead(200, {'content-type': 'text/event-stream'});
				const chunk = (content: string) => `data: ${JSON.stringify({id: 'c1', object: 'chat.completion.chunk', created: 0, model: 'm', choices: [{index: 0, delta: {content}, finish_reason: null}]})}\n\n`;
				response.write(chunk('first '));
				// The second chunk waits for the test: the first must arrive before the stream ends.
				release = () => {
					response.write(chunk('second'));
					response.end('data: [DONE]\n\n');
				};
				return;
			}
			if (request.url === '/v1/chat/completions') {
				const parsed = JSON.parse(body) as {model: string};
				if (parsed.model === 'missing') {
					response.writeHead(404, {'content-type': 'application/json'});
					response.end(JSON.stringify({error: {message: 'The model `missing` does not exist', type: 'invalid_request_error', code: 'model_not_found', param: null}}));
					return;
				}
				response.writeHead(200, {'content-type': 'application/json', 'x-request-id': 'req_1'});
				response.end(JSON.stringify({id: 'c1', object: 'chat.completion', created: 0, model: parsed.model, choices: [{index: 0, message: {role: 'assistant', content: `echo ${bytes.length} ${JSON.parse(body).messages[0].content.length}`}, finish_reason: 'stop'}], usage: {prompt_tokens: 3, completion_tokens: 2, total_tokens: 5}}));
				return;
			}
			if (request.url === '/hang') return; // never answers
			if (request.url === '/empty') {
				response.writeHead(204);
				response.end();
				return;
			}
			response.writeHead(302, {location: '/elsewhere'});
			response.end();
		});
	});
	await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
	base = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
});
after(() => {
	server.closeAllConnections();
	server.close();
});

const client = () => new OpenAI({baseURL: `${base}/v1`, apiKey: 'sk-test', maxRetries: 0, fetch: httpFetch});

describe('httpFetch under the openai client', () => {
	it('sends the body and reads a whole reply with its headers', async () => {
		const {data, response} = await client().chat.completions.create({model: 'm', messages: [{role: 'user', content: 'ü'.repeat(1000)}]}).withResponse();
		const [, bytes, chars] = data.choices[0]!.message.content!.split(' ').map(Number);
		assert.equal(chars, 1000, 'the message arrived whole');
		assert.ok(bytes! > 2000, 'as UTF-8 bytes (two a character)');
		assert.equal(response.headers.get('x-request-id'), 'req_1');
		assert.equal(data.usage?.total_tokens, 5);
	});

	it('passes an error status and body through to the SDK error', async () => {
		await assert.rejects(client().chat.completions.create({model: 'missing', messages: [{role: 'user', content: 'x'}]}), (error: unknown) => {
			assert.ok(error instanceof OpenAI.NotFoundError);
			assert.match(error.message, /does not exist/);
			return true;
		});
	});

	it('streams server-sent events as they arrive', async () => {
		const stream = await client().chat.completions.create({model: 'm', messages: [{role: 'user', content: 'x'}], stream: true});
		const seen: string[] = [];
		for await (const chunk of stream) {
			seen.push(chunk.choices[0]?.delta.content ?? '');
			if (seen.length === 1) release!();
		}
		assert.deepEqual(seen, ['first ', 'second']);
	});

	it('aborts a request in flight, and refuses one whose signal is already aborted', async () => {
		const controller = new AbortController();
		const pending = httpFetch(`${base}/hang`, {signal: controller.signal});
		setImmediate(() => controller.abort(new Error('deadline passed')));
		await assert.rejects(pending, /deadline passed/);
		await assert.rejects(httpFetch(`${base}/hang`, {signal: AbortSignal.abort()}), {name: 'AbortError'});
	});

	it('says fetch failed for a refused connection, gives 204 no body, and follows no redirect', async () => {
		const closed = http.createServer();
		await new Promise<void>((resolve) => closed.listen(0, '127.0.0.1', resolve));
		const port = (closed.address() as AddressInfo).port;
		await new Promise<void>((resolve) => closed.close(() => resolve()));
		await assert.rejects(httpFetch(`http://127.0.0.1:${port}/`), (error: Error) => error instanceof TypeError && /fetch failed/.test(error.message) && (error.cause as {code?: string}).code === 'ECONNREFUSED');
		const empty = await httpFetch(`${base}/empty`);
		assert.equal(empty.status, 204);
		assert.equal(empty.body, null);
		const moved = await httpFetch(`${base}/moved`, {method: 'POST', body: '{}'});
		assert.equal(moved.status, 302);
		assert.equal(moved.headers.get('location'), '/elsewhere');
	});
});
