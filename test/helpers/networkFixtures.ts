import {execFileSync} from 'node:child_process';
import {readFileSync, writeFileSync} from 'node:fs';
import http from 'node:http';
import net from 'node:net';
import path from 'node:path';
import tls from 'node:tls';

/*
 * A corporate network in miniature, all on loopback: a private certificate authority (made at test
 * time with the openssl command line), a TLS front that serves a loopback model server under a name
 * only the proxy can resolve, and an HTTP proxy in front of it that tunnels CONNECT requests (for
 * https) and forwards absolute-form requests (for http), optionally asking for Basic credentials
 * with a 407, as RFC 9110 (sections 9.3.6 CONNECT, 15.5.8 407 Proxy Authentication Required)
 * describes. It is the test's stand-in for a proxy; the product's side uses the proxy-agent libraries.
 */

export type PrivateCa = {readonly caFile: string; readonly key: Buffer; readonly cert: Buffer};

/** A CA and a server certificate for `hostname` signed by it (EC P-256, valid two days), written under `dir`. */
export function makePrivateCa(dir: string, hostname: string): PrivateCa {
	const file = (name: string) => path.join(dir, name);
	const openssl = (...args: string[]) => execFileSync('openssl', args, {stdio: ['ignore', 'ignore', 'pipe']});
	const ec = ['-newkey', 'ec', '-pkeyopt', 'ec_paramgen_curve:prime256v1', '-nodes'];
	openssl('req', '-x509', ...ec, '-keyout', file('ca.key'), '-out', file('ca.pem'), '-days', '2', '-subj', '/CN=cultureconverse test CA');
	openssl('req', ...ec, '-keyout', file('server.key'), '-out', file('server.csr'), '-subj', `/CN=${hostname}`);
	writeFileSync(file('server.ext'), `subjectAltName=DNS:${hostname}\nbasicConstraints=CA:FALSE\nkeyUsage=digitalSignature\nextendedKeyUsage=serverAuth\n`);
	openssl('x509', '-req', '-in', file('server.csr'), '-CA', file('ca.pem'), '-CAkey', file('ca.key'), '-CAcreateserial', '-out', file('server.pem'), '-days', '2', '-extfile', file('server.ext'));
	return {caFile: file('ca.pem'), key: readFileSync(file('server.key')), cert: readFileSync(file('server.pem'))};
}

export type Listening = {readonly port: number; close(): Promise<void>};

/** TLS on a loopback port in front of a plain loopback server (`upstream` is its base URL). */
export async function startTlsFront(ca: PrivateCa, upstream: string): Promise<Listening> {
	const target = new URL(upstream);
	const sockets = new Set<net.Socket>();
	const server = tls.createServer({key: ca.key, cert: ca.cert}, (socket) => {
		const plain = net.connect(Number(target.port), target.hostname);
		for (const one of [socket, plain]) {
			sockets.add(one);
			one.on('error', () => undefined);
			one.on('close', () => sockets.delete(one));
		}
		socket.pipe(plain).pipe(socket);
	});
	server.on('tlsClientError', () => undefined);
	return listen(server, sockets);
}

export type Proxy = Listening & {
	/** http://127.0.0.1:PORT, and the same with the credentials it asks for. */
	readonly url: string;
	readonly urlWithCredentials: string;
	/** host:port of every CONNECT, and the URL of every forwarded request, in arrival order. */
	readonly connects: string[];
	readonly forwarded: string[];
	/** Requests refused with 407. */
	readonly refused: number;
};

/**
 * The proxy. `hosts` maps the names it resolves (host:port) to loopback ports; any other name gets
 * 502. With `credentials` every request without them is refused with 407.
 */
export async function startProxy(hosts: Readonly<Record<string, number>>, credentials?: {readonly user: string; readonly password: string}): Promise<Proxy> {
	const connects: string[] = [];
	const forwarded: string[] = [];
	let refused = 0;
	const sockets = new Set<net.Socket>();
	const expected = credentials ? `Basic ${Buffer.from(`${credentials.user}:${credentials.password}`).toString('base64')}` : null;
	const allowed = (request: http.IncomingMessage) => expected === null || request.headers['proxy-authorization'] === expected;
	const server = http.createServer((request, response) => {
		// Absolute-form: "GET http://host:port/path HTTP/1.1".
		forwarded.push(request.url ?? '');
		if (!allowed(request)) {
			refused++;
			response.writeHead(407, {'proxy-authenticate': 'Basic realm="test proxy"', 'content-type': 'text/plain'}).end('Proxy Authentication Required');
			return;
		}
		const url = new URL(request.url ?? '/');
		const port = hosts[`${url.hostname}:${url.port || 80}`];
		if (port === undefined) {
			response.writeHead(502, {'content-type': 'text/plain'}).end('unknown host');
			return;
		}
		const headers = {...request.headers};
		delete headers['proxy-authorization'];
		const outgoing = http.request({host: '127.0.0.1', port, method: request.method, path: `${url.pathname}${url.search}`, headers, agent: false}, (incoming) => {
			response.writeHead(incoming.statusCode ?? 502, incoming.headers);
			incoming.pipe(response);
		});
		outgoing.on('error', () => response.destroy());
		request.pipe(outgoing);
	});
	server.on('connect', (request: http.IncomingMessage, client: net.Socket, head: Buffer) => {
		sockets.add(client);
		client.on('error', () => undefined);
		client.on('close', () => sockets.delete(client));
		connects.push(request.url ?? '');
		if (!allowed(request)) {
			refused++;
			client.end('HTTP/1.1 407 Proxy Authentication Required\r\nProxy-Authenticate: Basic realm="test proxy"\r\nContent-Length: 0\r\n\r\n');
			return;
		}
		const port = hosts[request.url ?? ''];
		if (port === undefined) {
			client.end('HTTP/1.1 502 Bad Gateway\r\nContent-Length: 0\r\n\r\n');
			return;
		}
		const upstream = net.connect(port, '127.0.0.1', () => {
			client.write('HTTP/1.1 200 Connection Established\r\n\r\n');
			if (head.length > 0) upstream.write(head);
			client.pipe(upstream).pipe(client);
		});
		sockets.add(upstream);
		upstream.on('error', () => client.destroy());
		upstream.on('close', () => sockets.delete(upstream));
	});
	const {port, close} = await listen(server, sockets);
	const url = `http://127.0.0.1:${port}`;
	return {
		port,
		close,
		url,
		urlWithCredentials: credentials ? `http://${encodeURIComponent(credentials.user)}:${encodeURIComponent(credentials.password)}@127.0.0.1:${port}` : url,
		connects,
		forwarded,
		get refused() {
			return refused;
		},
	};
}

async function listen(server: net.Server, sockets: Set<net.Socket>): Promise<Listening> {
	server.on('connection', (socket: net.Socket) => {
		sockets.add(socket);
		socket.on('close', () => sockets.delete(socket));
	});
	await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
	return {
		port: (server.address() as net.AddressInfo).port,
		close: () =>
			new Promise<void>((resolve) => {
				for (const socket of sockets) socket.destroy();
				server.close(() => resolve());
			}),
	};
}
