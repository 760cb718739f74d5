import http from 'node:http';
import net from 'node:net';

/*
 * A TCP front for a loopback OpenAI-compatible server (test/helpers/fakeOpenAI.ts, serverProfiles.ts)
 * that handles connections the way llama-server does. llama-server answers through cpp-httplib
 * (tools/server/server-http.cpp): every response advertises keep-alive (`Keep-Alive: timeout=5,
 * max=100`), and a whole JSON reply leaves the connection open for the next request; but a streamed
 * reply ends with llama.cpp's chunked content provider returning false after `sink.done()`, which
 * cpp-httplib's write_content_chunked reads as a failed write, so the keep-alive loop ends and the
 * socket is closed right after the terminating chunk. A client that writes its next request on that
 * socket before the close reaches it gets a TCP reset (data sent to a closed socket): ECONNRESET.
 *
 * The real race is won by the client almost every time on loopback (the issue counted 20 failures in
 * 40 alternating requests); here it is made deterministic: after a stream the front waits for the
 * next request on the socket and answers it with a reset, or closes the socket (FIN) after 200 ms
 * of silence, as a server whose close came first.
 */

export type LlamaFront = {
	/** e.g. http://127.0.0.1:43121/v1 */
	readonly baseURL: string;
	/** Requests that arrived on a socket closed after a stream (each answered with a TCP reset). */
	readonly resets: number;
	/** Connections accepted. */
	readonly connections: number;
	close(): Promise<void>;
};

const QUIET_CLOSE_MS = 200;

export async function startLlamaFront(upstreamBaseURL: string): Promise<LlamaFront> {
	const upstream = new URL(upstreamBaseURL);
	let resets = 0;
	let connections = 0;
	const sockets = new Set<net.Socket>();
	const server = net.createServer((socket) => {
		connections++;
		sockets.add(socket);
		socket.on('close', () => sockets.delete(socket));
		socket.on('error', () => undefined);
		let buffer: Buffer = Buffer.alloc(0);
		let busy = false;
		let closing = false;
		const next = async (): Promise<void> => {
			if (busy || socket.destroyed) return;
			if (closing) {
				if (buffer.length > 0) {
					resets++;
					socket.resetAndDestroy();
				}
				return;
			}
			const request = takeRequest(buffer);
			if (!request) return;
			buffer = request.rest;
			busy = true;
			try {
				const streamed = await forward(upstream, request, socket);
				if (streamed) {
					closing = true;
					setTimeout(() => socket.end(), QUIET_CLOSE_MS).unref();
				}
			} finally {
				busy = false;
			}
			await next();
		};
		socket.on('data', (chunk: Buffer) => {
			buffer = Buffer.concat([buffer, chunk]);
			void next();
		});
	});
	await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
	const {port} = server.address() as net.AddressInfo;
	return {
		baseURL: `http://127.0.0.1:${port}${upstream.pathname.replace(/\/$/, '')}`,
		get resets() {
			return resets;
		},
		get connections() {
			return connections;
		},
		close: () =>
			new Promise<void>((resolve) => {
				for (const socket of sockets) socket.destroy();
				server.close(() => resolve());
			}),
	};
}

type RawRequest = {method: string; path: string; headers: Record<string, string>; body: Buffer; rest: Buffer};

/** One whole request from the front of `buffer` (request line, headers, a Content-Length body), or null when more bytes are needed. */
function takeRequest(buffer: Buffer): RawRequest | null {
	const end = buffer.indexOf('\r\n\r\n');
	if (end === -1) return null;
	const [line = '', ...lines] = buffer.subarray(0, end).toString('latin1').split('\r\n');
	const headers: Record<string, string> = {};
	for (const header of lines) {
		const colon = header.indexOf(':');
		if (colon > 0) headers[header.slice(0, colon).trim().toLowerCase()] = header.slice(colon + 1).trim();
	}
	const length = Number(headers['content-length'] ?? 0);
	if (buffer.length < end + 4 + length) return null;
	const [method = 'GET', path = '/'] = line.split(' ');
	return {method, path, headers, body: buffer.subarray(end + 4, end + 4 + length), rest: buffer.subarray(end + 4 + length)};
}

/** Sends one request upstream and writes its answer on `socket` as cpp-httplib frames it; true when it was an event stream. */
function forward(upstream: URL, request: RawRequest, socket: net.Socket): Promise<boolean> {
	const headers: Record<string, string> = {...request.headers, host: upstream.host};
	delete headers['connection'];
	return new Promise<boolean>((resolve, reject) => {
		const outgoing = http.request({host: upstream.hostname, port: upstream.port, method: request.method, path: request.path, headers, agent: false}, (incoming) => {
			const streamed = (incoming.headers['content-type'] ?? '').includes('text/event-stream');
			const head = [`HTTP/1.1 ${incoming.statusCode ?? 500} ${incoming.statusMessage ?? ''}`, 'Server: llama.cpp', `Content-Type: ${incoming.headers['content-type'] ?? 'application/json'}`, 'Keep-Alive: timeout=5, max=100'];
			for (const name of Object.keys(incoming.headers)) if (/^(x-ratelimit|retry-after)/.test(name)) head.push(`${name}: ${String(incoming.headers[name])}`);
			if (streamed) {
				socket.write(`${[...head, 'Transfer-Encoding: chunked'].join('\r\n')}\r\n\r\n`);
				incoming.on('data', (chunk: Buffer) => socket.write(`${chunk.length.toString(16)}\r\n${chunk.toString('latin1')}\r\n`, 'latin1'));
				incoming.on('end', () => {
					socket.write('0\r\n\r\n');
					resolve(true);
				});
				return;
			}
			const chunks: Buffer[] = [];
			incoming.on('data', (chunk: Buffer) => chunks.push(chunk));
			incoming.on('end', () => {
				const body = Buffer.concat(chunks);
				socket.write(`${[...head, `Content-Length: ${body.length}`].join('\r\n')}\r\n\r\n`);
				socket.write(body);
				resolve(false);
			});
		});
		outgoing.on('error', reject);
		outgoing.end(request.body);
	});
}
