import {APIConnectionError, APIConnectionTimeoutError} from 'openai';
import type {FailureKind} from './types.js';

/*
 * What a failed connection means, in one place: the model calls (retry.ts), the model lists of
 * preflight and doctor (endpoint.ts) and every message about them read it from here. Each cause
 * comes with its fix: a private CA (NODE_EXTRA_CA_CERTS), the proxy variables (HTTPS_PROXY,
 * HTTP_PROXY, NO_PROXY), a server that is not running. The texts end without a full stop so a caller
 * can end its own sentence with one.
 */

export type ConnectionCause = 'tls' | 'dns' | 'refused' | 'timeout' | 'unreachable' | 'reset' | 'closed' | 'proxy_auth' | 'proxy_refused' | 'proxy_url' | 'other';

export type ConnectionProblem = {
	readonly cause: ConnectionCause;
	/** The system's or TLS library's code, when there was one (ECONNREFUSED, UNABLE_TO_VERIFY_LEAF_SIGNATURE). */
	readonly code: string | null;
	readonly kind: FailureKind;
	/** Whether another attempt may work (a TLS verification failure never does). */
	readonly retryable: boolean;
	/** Short reason for retry records: "network: ECONNREFUSED", "tls: SELF_SIGNED_CERT_IN_CHAIN". */
	readonly reason: string;
	/** What happened, in words. */
	readonly what: string;
	/** What to change. */
	readonly fix: string;
};

/** Certificate checks that failed: the server's certificate, or one on the way, is not trusted here. */
const UNTRUSTED = new Set(['UNABLE_TO_VERIFY_LEAF_SIGNATURE', 'SELF_SIGNED_CERT_IN_CHAIN', 'DEPTH_ZERO_SELF_SIGNED_CERT', 'UNABLE_TO_GET_ISSUER_CERT_LOCALLY', 'UNABLE_TO_GET_ISSUER_CERT', 'CERT_UNTRUSTED', 'CERT_SIGNATURE_FAILURE', 'UNABLE_TO_DECRYPT_CERT_SIGNATURE', 'CERT_REJECTED', 'INVALID_CA']);
const EXPIRED = new Set(['CERT_HAS_EXPIRED', 'CERT_NOT_YET_VALID', 'CRL_HAS_EXPIRED']);
const WRONG_NAME = new Set(['ERR_TLS_CERT_ALTNAME_INVALID', 'HOSTNAME_MISMATCH']);
/** TLS spoken to something that is not a TLS server (an http:// server or proxy given as https://). */
const NOT_TLS = new Set(['ERR_SSL_WRONG_VERSION_NUMBER', 'ERR_SSL_PACKET_LENGTH_TOO_LONG', 'EPROTO']);
const DNS = new Set(['ENOTFOUND', 'EAI_AGAIN', 'EAI_FAIL', 'EAI_NONAME']);
const UNREACHABLE = new Set(['EHOSTUNREACH', 'ENETUNREACH', 'EHOSTDOWN', 'ENETDOWN']);
const RESET = new Set(['ECONNRESET', 'EPIPE', 'ECONNABORTED', 'UND_ERR_SOCKET', 'UND_ERR_CLOSED']);
const TIMED_OUT = new Set(['ETIMEDOUT', 'UND_ERR_CONNECT_TIMEOUT', 'ESOCKETTIMEDOUT']);

type Via = {readonly shown: string; readonly variable: string};
type Found = {code: string | null; message: string | null; hostname: string | null; address: string | null; port: number | null; status: number | null; via: Via | null};

/** The first code, host and proxy along an error's causes (the SDK's error -> "fetch failed" -> the socket's error). */
function dig(error: unknown): Found {
	const found: Found = {code: null, message: null, hostname: null, address: null, port: null, status: null, via: null};
	for (let current: unknown = error, depth = 0; current && typeof current === 'object' && depth < 6; depth++) {
		const record = current as {code?: unknown; message?: unknown; hostname?: unknown; address?: unknown; port?: unknown; status?: unknown; proxy?: unknown; cause?: unknown};
		if (found.code === null && typeof record.code === 'string') {
			found.code = record.code;
			found.message = typeof record.message === 'string' ? record.message : null;
		}
		if (found.hostname === null && typeof record.hostname === 'string') found.hostname = record.hostname;
		if (found.address === null && typeof record.address === 'string') found.address = record.address;
		if (found.port === null && typeof record.port === 'number') found.port = record.port;
		if (found.status === null && typeof record.status === 'number' && !(current instanceof APIConnectionError)) found.status = record.status;
		if (found.via === null && record.proxy && typeof record.proxy === 'object') found.via = record.proxy as Via;
		current = record.cause;
	}
	return found;
}

/** A proxy variable that is set, for messages ("no proxy is set" otherwise). */
function proxyState(): string {
	const set = ['HTTPS_PROXY', 'https_proxy', 'HTTP_PROXY', 'http_proxy', 'ALL_PROXY', 'all_proxy'].find((name) => process.env[name]);
	return set ? `${set} is set` : 'no proxy variable is set';
}

/**
 * What a connection failure was and how to fix it, or null when `error` is not about the connection
 * (an HTTP status, a bug). `APIConnectionError`s from the SDK, the transport's own errors
 * (httpFetch.ts: "fetch failed" with the socket's error and the proxy as causes), and bare socket
 * errors are all read.
 */
export function connectionProblem(error: unknown): ConnectionProblem | null {
	if (error instanceof APIConnectionTimeoutError) {
		const said = trimStop(error.message);
		return {cause: 'timeout', code: null, kind: 'timeout', retryable: true, reason: 'timeout', what: said === 'Request timed out' ? 'no reply within the time limit' : said, fix: 'the server may be busy or still loading the model; raise the role\'s timeoutMs if its replies are long'};
	}
	const found = dig(error);
	const sdk = error instanceof APIConnectionError;
	const terminated = error instanceof TypeError && error.message === 'terminated';
	if (!sdk && !terminated && (found.code === null || !known(found.code))) return null;
	const code = found.code;
	const via = found.via;
	const host = found.hostname ?? (found.address ? `${found.address}${found.port ? `:${found.port}` : ''}` : null);
	const make = (cause: ConnectionCause, kind: FailureKind, retryable: boolean, what: string, fix: string): ConnectionProblem => ({cause, code, kind, retryable, reason: `${kind === 'tls' ? 'tls' : kind === 'proxy' ? 'proxy' : 'network'}: ${code ?? (cause === 'closed' ? 'connection closed' : 'connection failed')}`, what, fix});
	const through = via ? ` through the proxy ${via.shown} (${via.variable})` : '';
	const theProxy = via ? `the proxy ${via.shown}` : 'the proxy';

	if (code && (UNTRUSTED.has(code) || EXPIRED.has(code) || WRONG_NAME.has(code) || NOT_TLS.has(code))) {
		if (UNTRUSTED.has(code)) {
			const extra = process.env['NODE_EXTRA_CA_CERTS'] ? `NODE_EXTRA_CA_CERTS is set to ${process.env['NODE_EXTRA_CA_CERTS']}, but that file does not hold the CA that signed this certificate` : 'NODE_EXTRA_CA_CERTS is not set';
			return make('tls', 'tls', false, `the server's TLS certificate is not trusted on this machine (${code})${through}`, `if a private CA or a TLS-inspecting gateway signs it, point NODE_EXTRA_CA_CERTS at that CA's PEM file before starting cultureconverse (${extra}); never turn verification off`);
		}
		if (EXPIRED.has(code)) return make('tls', 'tls', false, `the server's TLS certificate is outside its validity dates (${code})${through}`, 'renew the server\'s certificate, or correct this machine\'s clock if it is wrong');
		if (WRONG_NAME.has(code)) return make('tls', 'tls', false, `the server's TLS certificate is for another host name (${code})${through}`, 'use the host name the certificate names in the base URL');
		return make('tls', 'tls', false, `the other end does not speak TLS (${code})${through}`, via && via.shown.startsWith('https:') ? `the proxy is probably a plain HTTP proxy: write it as http:// in ${via.variable}` : 'the server probably speaks plain HTTP: use http:// in the base URL');
	}
	if (code === 'ERR_PROXY_AUTH') return make('proxy_auth', 'proxy', false, `${theProxy} asked for credentials (HTTP 407)`, `put them in the proxy URL: ${via?.variable ?? 'HTTPS_PROXY'}=http://USER:PASSWORD@HOST:PORT (percent-encode special characters)`);
	if (code === 'ERR_PROXY_REFUSED') {
		const status = found.status ?? 0;
		return make('proxy_refused', status >= 500 ? 'network' : 'proxy', status >= 500, `${theProxy} refused to connect to the server (HTTP ${status})`, 'ask whoever runs the proxy to allow this host, or, if the host is reachable without the proxy, add it to NO_PROXY');
	}
	if (code === 'ERR_PROXY_URL') return make('proxy_url', 'proxy', false, `${via?.variable ?? 'the proxy variable'} is not a URL`, 'write it as http://HOST:PORT (or http://USER:PASSWORD@HOST:PORT)');
	if (code && DNS.has(code)) {
		if (via) return make('dns', 'network', true, `cannot resolve the proxy's host ${host ?? via.shown} (${code})`, `check the proxy in ${via.variable}`);
		return make('dns', 'network', true, `cannot resolve the host ${host ?? 'of the base URL'} (${code})`, `check the host name in the base URL; if this network reaches outside servers only through a proxy, set HTTPS_PROXY (${proxyState()})`);
	}
	if (code === 'ECONNREFUSED') {
		if (via) return make('refused', 'network', true, `the proxy ${via.shown} refused the connection (ECONNREFUSED)`, `check the proxy's host and port in ${via.variable}, and that the proxy is running`);
		return make('refused', 'network', true, `nothing is listening at ${host ?? 'the base URL'} (ECONNREFUSED)`, 'is the server running, and are the host and port of the base URL right (--base-url, OPENAI_BASE_URL or "baseURL" in the config)');
	}
	if (code && TIMED_OUT.has(code)) return make('timeout', 'network', true, `the connection to ${host ?? (via ? `the proxy ${via.shown}` : 'the server')} timed out (${code})`, via ? `check that the proxy in ${via.variable} is reachable` : `check that the host is reachable from this network; a firewall may drop the traffic, or the network may need a proxy (${proxyState()})`);
	if (code && UNREACHABLE.has(code)) return make('unreachable', 'network', true, `no route to ${host ?? 'the server'} (${code})`, `check the network connection or VPN; if this network needs a proxy, set HTTPS_PROXY (${proxyState()})`);
	if ((code && RESET.has(code)) || terminated) return make(terminated ? 'closed' : 'reset', 'network', true, `the connection was closed by the server${via ? ' or the proxy' : ''} (${code ?? 'terminated'})`, 'usually passing (it is retried); if it repeats, the server is restarting or something in between drops connections');
	const said = trimStop(found.message ?? (error instanceof Error ? error.message : String(error)));
	return make(said.includes('stream ended') ? 'closed' : 'other', 'network', true, said === 'Connection error' ? 'the connection failed' : said, 'check that the server is running and reachable from this machine');
}

function known(code: string): boolean {
	return [UNTRUSTED, EXPIRED, WRONG_NAME, NOT_TLS, DNS, UNREACHABLE, RESET, TIMED_OUT].some((set) => set.has(code)) || code === 'ECONNREFUSED' || code.startsWith('ERR_PROXY_');
}

function trimStop(text: string): string {
	return text.trim().replace(/[.\s]+$/, '');
}

/** "what: fix", without a final full stop (the caller ends the sentence). */
export function connectionText(problem: ConnectionProblem): string {
	return `${problem.what}: ${problem.fix}`;
}
