import http from 'node:http';
import https from 'node:https';
import type {Duplex} from 'node:stream';
import {Readable} from 'node:stream';
import {HttpProxyAgent} from 'http-proxy-agent';
import {HttpsProxyAgent} from 'https-proxy-agent';
import {getProxyForUrl} from 'proxy-from-env';
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
 * (a model API does not redirect POSTs) and nothing is cached. Three things a network adds, each in
 * its own function below:
 *
 * - Proxies: HTTPS_PROXY / HTTP_PROXY / ALL_PROXY and NO_PROXY (either case) are honoured as curl
 *   does, through proxy-from-env and the https-proxy-agent / http-proxy-agent libraries (CONNECT for
 *   https, absolute-form requests for http). Loopback hosts are never proxied (as Go's net/http does):
 *   a local llama.cpp, vLLM or Ollama keeps working when a corporate proxy is set for everything else.
 * - Stale sockets: a keep-alive socket the server closed can be handed out again before its close
 *   arrives. llama-server does this after every streamed reply (cpp-httplib ends the connection when
 *   llama.cpp's chunked content provider returns false after `sink.done()`, in
 *   tools/server/server-http.cpp, though its headers said keep-alive), and the next request on the
 *   socket fails with ECONNRESET. A request on a reused socket that fails before any byte of a
 *   response is sent once more on a fresh connection, as Node's documentation of
 *   `request.reusedSocket` advises; it is not a model-call retry and no call record sees it. Once a
 *   server is seen closing after a stream, its sockets are dropped after each stream from then on.
 * - Proxy refusals: a proxy that refuses CONNECT (407, 403, 502) fails the request as a connection
 *   error naming the proxy, never as if the model server had answered that status.
 */

/** Counters of what the transport did on its own, for tests and diagnostics. */
export const transportCounters = {
	/** Requests sent again on a fresh connection after a reused socket failed before any response. */
	staleRetries: 0,
	/** Sockets closed after a streamed reply because their server closes them anyway. */
	droppedAfterStream: 0,
};

// ---------------------------------------------------------------------------------------------
// Routes: which agent a URL goes through (direct, or a proxy named by the environment).

const KEEP_ALIVE = {keepAlive: true, maxSockets: Infinity, scheduling: 'lifo'} as const;

/** Sockets not to keep after their reply (their server closes them after a stream). */
const dropAfterReply = new WeakSet<Duplex>();
/** Per socket: whether its last reply was an event stream. */
const lastReplyStreamed = new WeakMap<Duplex, boolean>();
/** Routes whose server closes the connection after a streamed reply. */
const closesAfterStream = new Set<string>();

/** An agent that gives up the sockets marked in `dropAfterReply` instead of pooling them (Node's documented `keepSocketAlive` hook). */
function pooled<A extends http.Agent>(agent: A): A {
	const keep = agent.keepSocketAlive.bind(agent) as (socket: Duplex) => boolean;
	(agent as unknown as {keepSocketAlive: (socket: Duplex) => boolean}).keepSocketAlive = (socket) => {
		if (!dropAfterReply.has(socket)) return keep(socket);
		transportCounters.droppedAfterStream++;
		return false;
	};
	return agent;
}

const direct = {'http:': pooled(new http.Agent(KEEP_ALIVE)), 'https:': pooled(new https.Agent(KEEP_ALIVE))} as const;
const proxyAgents = new Map<string, http.Agent>();

type Route = {
	/** Where sockets go: the origin, and the proxy in between. */
	readonly key: string;
	readonly agent: http.Agent;
	/** The proxy as it may be shown (no credentials), and the variable that named it. */
	readonly proxy: {readonly shown: string; readonly variable: string} | null;
	/** An agent for one request on a connection of its own (`false`: Node's one-off agent). */
	readonly oneShot: () => http.Agent | false;
};

const LOOPBACK = /^(localhost|.+\.localhost|127(\.\d{1,3}){3}|\[::1\]|::1|\[::ffff:127(\.\d{1,3}){3}\])$/i;

/** Whether a host name is this machine (never sent through a proxy). */
export function isLoopback(hostname: string): boolean {
	return LOOPBACK.test(hostname);
}

/** The environment variable a proxy for `protocol` comes from, as proxy-from-env reads them. */
function proxyVariable(protocol: string): string {
	const scheme = protocol.replace(/:$/, '');
	for (const name of [`${scheme}_proxy`, `${scheme.toUpperCase()}_PROXY`, 'all_proxy', 'ALL_PROXY']) if (process.env[name]) return name;
	return `${scheme.toUpperCase()}_PROXY`;
}

/**
 * The proxy a request to `url` goes through, from HTTPS_PROXY / HTTP_PROXY / ALL_PROXY and NO_PROXY
 * (read at each request, either case), or null for a direct connection. A proxy given without a
 * scheme ("proxy.corp:3128") is an http:// proxy, as curl reads it.
 */
export function proxyFor(url: URL): {readonly url: string; readonly shown: string; readonly variable: string} | null {
	if (isLoopback(url.hostname)) return null;
	const found = getProxyForUrl(url.href);
	if (!found) return null;
	const variable = proxyVariable(url.protocol);
	const raw = process.env[variable] ?? found;
	const value = raw.includes('://') ? raw : `http://${raw}`;
	let parsed: URL;
	try {
		parsed = new URL(value);
	} catch {
		throw connectionFailure(Object.assign(new Error(`${variable} is not a URL`), {code: 'ERR_PROXY_URL'}), {shown: '(unreadable)', variable});
	}
	return {url: parsed.href, shown: `${parsed.protocol}//${parsed.host}`, variable};
}

function proxyAgent(proxy: string, target: string, keepAlive: boolean): http.Agent {
	return target === 'https:' ? new HttpsProxyAgent(proxy, keepAlive ? KEEP_ALIVE : {keepAlive: false}) : new HttpProxyAgent(proxy, keepAlive ? KEEP_ALIVE : {keepAlive: false});
}

function routeFor(url: URL): Route {
	const proxy = proxyFor(url);
	if (!proxy) return {key: url.origin, agent: direct[url.protocol as keyof typeof direct], proxy: null, oneShot: () => false};
	const id = `${url.protocol} ${proxy.url}`;
	let agent = proxyAgents.get(id);
	if (!agent) {
		agent = pooled(proxyAgent(proxy.url, url.protocol, true));
		proxyAgents.set(id, agent);
	}
	return {key: `${url.origin} via ${proxy.shown}`, agent, proxy, oneShot: () => proxyAgent(proxy.url, url.protocol, false)};
}

// ---------------------------------------------------------------------------------------------
// Errors: what the SDK sees (a TypeError "fetch failed" whose cause says what went wrong).

/** The failure of a request that never got a response, with the proxy it went through (if any). */
function connectionFailure(cause: unknown, proxy: Route['proxy']): TypeError {
	return Object.assign(new TypeError('fetch failed'), {cause, ...(proxy ? {proxy} : {})});
}

/** A proxy that answered CONNECT (or a proxied request) with a refusal instead of passing it on. */
function proxyRefusal(status: number, statusText: string): Error {
	const code = status === 407 ? 'ERR_PROXY_AUTH' : 'ERR_PROXY_REFUSED';
	return Object.assign(new Error(`the proxy answered ${status}${statusText ? ` ${statusText}` : ''}`), {code, status});
}

/** A reused socket failed before any response: the request never reached a live connection. */
class StaleSocket extends Error {
	constructor(
		readonly error: unknown,
		readonly afterStream: boolean,
	) {
		super('stale keep-alive socket');
	}
}

/** What a socket the server closed looks like to the next request written on it. */
const STALE_CODES = new Set(['ECONNRESET', 'EPIPE', 'ECONNABORTED']);

function abortError(signal: AbortSignal): Error {
	const reason = signal.reason as unknown;
	if (reason instanceof Error) return reason;
	const error = new Error('This operation was aborted');
	error.name = 'AbortError';
	return error;
}

// ---------------------------------------------------------------------------------------------
// Bodies.

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

function responseHeaders(incoming: http.IncomingMessage): Headers {
	const out = new Headers();
	for (const [key, value] of Object.entries(incoming.headers)) {
		if (Array.isArray(value)) for (const one of value) out.append(key, one);
		else if (value !== undefined) out.set(key, value);
	}
	return out;
}

/** A whole (non-streamed) body: read in full first (a web stream per JSON reply cost more than the rest of the transport). */
function wholeBody(incoming: http.IncomingMessage, meta: ResponseInit & {status: number}, resolve: (response: Response) => void, fail: (error: unknown) => void): void {
	// The reply-size limit of the request (llm/replyLimit.ts): bytes past it are never read.
	const budget = replyBudget();
	const announced = Number(incoming.headers['content-length']) || null;
	const chunks: Buffer[] = [];
	incoming.on('data', (chunk: Buffer) => {
		chunks.push(chunk);
		if (!budget?.take(chunk.byteLength, announced)) return;
		incoming.removeAllListeners('data').removeAllListeners('end').destroy();
		const partial = Buffer.concat(chunks).subarray(0, budget.limitBytes);
		resolve(new Response(meta.status >= 200 && meta.status < 300 ? cutCompletion(partial) : new Uint8Array(partial.buffer as ArrayBuffer, partial.byteOffset, partial.byteLength), meta));
	});
	incoming.once('end', () => {
		const whole = chunks.length === 1 ? chunks[0]! : Buffer.concat(chunks);
		resolve(new Response(new Uint8Array(whole.buffer as ArrayBuffer, whole.byteOffset, whole.byteLength), meta));
	});
	incoming.once('error', fail);
}

// ---------------------------------------------------------------------------------------------
// One request on one agent.

type Outgoing = {readonly url: URL; readonly method: string; readonly headers: Record<string, string>; readonly payload: Buffer | null; readonly signal: AbortSignal | undefined};

function send(out: Outgoing, route: Route, agent: http.Agent | false): Promise<Response> {
	const {url, method, headers, payload, signal} = out;
	const transport = url.protocol === 'https:' ? https : http;
	return new Promise<Response>((resolve, reject) => {
		let responded = false;
		let refused: {statusCode: number; statusText: string} | null = null;
		const fail = (error: unknown) => reject(signal?.aborted ? abortError(signal) : connectionFailure(error, route.proxy));
		const request = transport.request(url, {method, headers, agent}, (incoming) => {
			responded = true;
			const status = incoming.statusCode ?? 500;
			// The proxy's own refusal (https-proxy-agent replays it as if it were the response, and an
			// http proxy answers 407 itself): a connection failure, not the model server's answer.
			if (refused || (route.proxy && url.protocol === 'http:' && status === 407)) {
				incoming.resume();
				fail(proxyRefusal(refused?.statusCode ?? status, refused?.statusText ?? incoming.statusMessage ?? ''));
				return;
			}
			const streamed = (incoming.headers['content-type'] ?? '').includes('text/event-stream');
			noteReply(incoming.socket, streamed, route);
			const meta = {status, statusText: incoming.statusMessage ?? '', headers: responseHeaders(incoming)};
			// 204/304 and HEAD carry no body; a web Response refuses one for them.
			if (status === 204 || status === 304 || method === 'HEAD') {
				incoming.resume();
				resolve(new Response(null, meta));
				return;
			}
			// Server-sent events stream as they come, up to the request's reply-size limit (llm/replyLimit.ts).
			if (streamed) {
				const body = Readable.toWeb(incoming) as ReadableStream<Uint8Array>;
				const budget = replyBudget();
				resolve(new Response(budget ? limitStream(body, budget, Number(incoming.headers['content-length']) || null, () => incoming.destroy()) : body, meta));
			} else wholeBody(incoming, meta, resolve, fail);
		});
		// https-proxy-agent tells the CONNECT answer (http-proxy-agent sends the same event with no status).
		request.once('proxyConnect', (connect: {statusCode?: number; statusText?: string}) => {
			if (typeof connect.statusCode === 'number' && connect.statusCode !== 200) refused = {statusCode: connect.statusCode, statusText: connect.statusText ?? ''};
		});
		const onAbort = () => request.destroy(abortError(signal!));
		signal?.addEventListener('abort', onAbort, {once: true});
		request.once('close', () => signal?.removeEventListener('abort', onAbort));
		request.once('error', (error: NodeJS.ErrnoException) => {
			if (!responded && !signal?.aborted && request.reusedSocket && STALE_CODES.has(error.code ?? '')) {
				reject(new StaleSocket(error, request.socket ? lastReplyStreamed.get(request.socket) === true : false));
				return;
			}
			fail(error);
		});
		request.end(payload ?? undefined);
	});
}

/** Remembers what a socket last carried; a stream's socket is dropped after it when its server closes such sockets. */
function noteReply(socket: Duplex | null, streamed: boolean, route: Route): void {
	if (!socket) return;
	lastReplyStreamed.set(socket, streamed);
	if (streamed && closesAfterStream.has(route.key)) dropAfterReply.add(socket);
}

export const httpFetch: typeof fetch = async (input, init = {}) => {
	const url = new URL(input instanceof Request ? input.url : String(input));
	// Not http(s) (a data: or file: URL in a test): the platform's fetch.
	if (url.protocol !== 'http:' && url.protocol !== 'https:') return fetch(input, init);
	const signal = init.signal ?? undefined;
	if (signal?.aborted) throw abortError(signal);
	const payload = await bodyBytes(init.body);
	const headers = headerRecord(init.headers);
	if (payload && headers['content-length'] === undefined) headers['content-length'] = String(payload.byteLength);
	const out: Outgoing = {url, method: init.method ?? 'GET', headers, payload, signal};
	const route = routeFor(url);
	try {
		return await send(out, route, route.agent);
	} catch (error) {
		if (!(error instanceof StaleSocket)) throw error;
		// The server had closed the socket; the request never reached it. Once more, on a connection of its own.
		transportCounters.staleRetries++;
		if (error.afterStream) closesAfterStream.add(route.key);
		return send(out, route, route.oneShot());
	}
};
