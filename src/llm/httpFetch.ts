import http from 'node:http';
import https from 'node:https';
import {Readable} from 'node:stream';
import {cutCompletion, limitStream, replyBudget} from './replyLimit.js';

/*
 * The `fetch` the openai client is given: node:http(s) over keep-alive agents instead of the global
 * fetch (undici). Measured against a loopback server on this 2-core machine (1,500 chat completions,
 * 32 in flight, `npm run bench:batch` figures): the global fetch alone costs 1.31 ms of CPU a call
 * and node:http 0.54 ms; inside the SDK, 2.37 ms a call with the global fetch. The harness makes tens
 * of thousands of calls a batch, so the transport is most of its cost per call.
 *
 * It does what the SDK needs and nothing else: string or byte bodies, an abort signal, and a web
 * `Response` whose body streams (server-sent events arrive as they come). Redirects are not followed
 * (a model API does not redirect POSTs) and nothing is cached. `HTTP(S)_PROXY` is not honoured,
 * as Node's global fetch does not honour it either.
 */

const agents = {
	'http:': new http.Agent({keepAlive: true, maxSockets: Infinity, scheduling: 'lifo'}),
	'https:': new https.Agent({keepAlive: true, maxSockets: Infinity, scheduling: 'lifo'}),
} as const;

function headerRecord(headers: RequestInit['headers']): Record<string, string> {
	const out: Record<string, string> = {};
	if (!headers) return out;
	if (headers instanceof Headers) headers.forEach((value, key) => (out[key] = value));
	else if (Array.isArray(headers)) for (const [key, value] of headers) out[key.toLowerCase()] = value;
	else for (const [key, value] of Object.entries(headers)) if (value !== undefined && value !== null) out[key.toLowerCase()] = String(value);
	return out;
}

async function bodyBytes(body: RequestInit['body']): Promise<Buffer | null> {
	if (body === undefined || body === null) return null;
	if (typeof body === 'string') return Buffer.from(body);
	if (body instanceof Uint8Array) return Buffer.from(body.buffer, body.byteOffset, body.byteLength);
	if (body instanceof ArrayBuffer) return Buffer.from(body);
	// Anything else (FormData, a stream, a Blob): let the platform encode it.
	return Buffer.from(await new Response(body).arrayBuffer());
}

function abortError(signal: AbortSignal): Error {
	const reason = signal.reason as unknown;
	if (reason instanceof Error) return reason;
	const error = new Error('This operation was aborted');
	error.name = 'AbortError';
	return error;
}

export const httpFetch: typeof fetch = async (input, init = {}) => {
	const url = new URL(input instanceof Request ? input.url : String(input));
	const agent = agents[url.protocol as keyof typeof agents];
	// Not http(s) (a data: or file: URL in a test): the platform's fetch.
	if (!agent) return fetch(input, init);
	const signal = init.signal ?? undefined;
	if (signal?.aborted) throw abortError(signal);
	const payload = await bodyBytes(init.body);
	const headers = headerRecord(init.headers);
	if (payload && headers['content-length'] === undefined) headers['content-length'] = String(payload.byteLength);
	const transport = url.protocol === 'https:' ? https : http;
	const method = init.method ?? 'GET';
	return new Promise<Response>((resolve, reject) => {
		const request = transport.request(url, {method, headers, agent}, (incoming) => {
			const responseHeaders = new Headers();
			for (const [key, value] of Object.entries(incoming.headers)) {
				if (Array.isArray(value)) for (const one of value) responseHeaders.append(key, one);
				else if (value !== undefined) responseHeaders.set(key, value);
			}
			const status = incoming.statusCode ?? 500;
			// 204/304 and HEAD carry no body; a web Response refuses one for them.
			const bodyless = status === 204 || status === 304 || method === 'HEAD';
			const meta = {status, statusText: incoming.statusMessage ?? '', headers: responseHeaders};
			if (bodyless) {
				incoming.resume();
				resolve(new Response(null, meta));
				return;
			}
			// Server-sent events stream as they come; any other body is read whole first (a web
			// stream per JSON reply cost more than the rest of the transport).
			// The reply-size limit of the request (llm/replyLimit.ts): bytes past it are never read.
			const budget = replyBudget();
			const announced = Number(incoming.headers['content-length']) || null;
			if ((incoming.headers['content-type'] ?? '').includes('text/event-stream')) {
				const body = Readable.toWeb(incoming) as ReadableStream<Uint8Array>;
				resolve(new Response(budget ? limitStream(body, budget, announced, () => incoming.destroy()) : body, meta));
				return;
			}
			const chunks: Buffer[] = [];
			incoming.on('data', (chunk: Buffer) => {
				chunks.push(chunk);
				if (!budget?.take(chunk.byteLength, announced)) return;
				incoming.removeAllListeners('data').removeAllListeners('end').destroy();
				const partial = Buffer.concat(chunks).subarray(0, budget.limitBytes);
				resolve(new Response(status >= 200 && status < 300 ? cutCompletion(partial) : new Uint8Array(partial.buffer as ArrayBuffer, partial.byteOffset, partial.byteLength), meta));
			});
			incoming.once('end', () => {
				const whole = chunks.length === 1 ? chunks[0]! : Buffer.concat(chunks);
				resolve(new Response(new Uint8Array(whole.buffer as ArrayBuffer, whole.byteOffset, whole.byteLength), meta));
			});
			incoming.once('error', (error) => reject(signal?.aborted ? abortError(signal) : Object.assign(new TypeError('fetch failed'), {cause: error})));
		});
		const onAbort = () => request.destroy(abortError(signal!));
		signal?.addEventListener('abort', onAbort, {once: true});
		request.once('close', () => signal?.removeEventListener('abort', onAbort));
		request.once('error', (error) => reject(signal?.aborted ? abortError(signal) : Object.assign(new TypeError('fetch failed'), {cause: error})));
		request.end(payload ?? undefined);
	});
};
