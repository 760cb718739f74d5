import './helpers/offlineDns.js';
import assert from 'node:assert/strict';
import {spawn} from 'node:child_process';
import path from 'node:path';
import {fileURLToPath} from 'node:url';
import {after, before, beforeEach, describe, it} from 'node:test';
import {APIConnectionError, APIConnectionTimeoutError} from 'openai';
import {connectionProblem, connectionText} from '../src/llm/connection.js';
import {createGateway} from '../src/llm/gateway.js';
import {httpFetch} from '../src/llm/httpFetch.js';
import {ModelCallError} from '../src/llm/types.js';
import {fakePrompt, fakeRoles} from './helpers/fakeOpenAI.js';
import {type Listening, type PrivateCa, type Proxy, makePrivateCa, startProxy, startTlsFront} from './helpers/networkFixtures.js';
import {type ProfiledServer, startServer} from './helpers/serverProfiles.js';
import {tempDir} from './helpers/tmp.js';

/*
 * A model server behind a corporate network: a vLLM-like server (serverProfiles.ts) under the name
 * api.test, which only the proxy resolves, with a certificate from a private CA; the proxy asks for
 * credentials. Names other than loopback never resolve here (helpers/offlineDns.ts), so no test sends
 * a DNS query. The proxy variables follow curl's reading of HTTPS_PROXY / HTTP_PROXY / NO_PROXY (the
 * proxy-from-env library's README); NODE_EXTRA_CA_CERTS is Node's (nodejs.org/api/cli.html: read
 * once, when the process starts, so the CLI cases run in a child process).
 */

const REPO = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..');
const CREDENTIALS = {user: 'researcher', password: 'p@ss word'};
const MODEL = 'Qwen/Qwen3-8B';
const BASE = 'https://api.test/v1';

let vllm: ProfiledServer;
let ca: PrivateCa;
let tlsFront: Listening;
let proxy: Proxy;
const dir = tempDir('cc-net-proxy-');
before(async () => {
	vllm = await startServer({kind: 'vllm', models: [MODEL]});
	ca = makePrivateCa(dir, 'api.test');
	tlsFront = await startTlsFront(ca, vllm.baseURL);
	proxy = await startProxy({'api.test:443': tlsFront.port, 'models.test:80': Number(new URL(vllm.baseURL).port)}, CREDENTIALS);
});
after(async () => {
	await proxy.close();
	await tlsFront.close();
	await vllm.close();
});

const PROXY_VARIABLES = ['HTTPS_PROXY', 'https_proxy', 'HTTP_PROXY', 'http_proxy', 'NO_PROXY', 'no_proxy', 'ALL_PROXY', 'all_proxy'];
/** Sets the proxy variables of this process for one test (the transport reads them at each request, as curl does). */
function proxyEnv(values: Record<string, string>): void {
	for (const name of PROXY_VARIABLES) delete process.env[name];
	Object.assign(process.env, values);
}

const call = async (baseURL: string, attempts = 3) => {
	const gw = createGateway({settings: fakeRoles(baseURL, {model: MODEL}), workspaceDir: tempDir('cc-net-gw-'), cache: false, retry: {maxAttempts: attempts, baseDelayMs: 1, maxDelayMs: 1}, env: {OPENAI_API_KEY: 'k'}});
	return gw.call<string>({role: 'judge', stage: 'net', prompt: fakePrompt('Say ready.'), mock: null, step: 0});
};
const failure = async (promise: Promise<unknown>): Promise<ModelCallError> => {
	try {
		await promise;
	} catch (error) {
		if (error instanceof ModelCallError) return error;
		throw error;
	}
	throw new Error('expected the call to fail');
};

describe('proxies and certificates, in this process', () => {
	beforeEach(() => {
		proxy.connects.length = 0;
		proxy.forwarded.length = 0;
	});
	after(() => proxyEnv({}));

	it('tunnels https through HTTPS_PROXY with its credentials; the private CA is not trusted here, so the call fails once as tls, naming NODE_EXTRA_CA_CERTS', async () => {
		proxyEnv({HTTPS_PROXY: proxy.urlWithCredentials});
		const error = await failure(call(BASE, 5));
		assert.equal(error.kind, 'tls');
		assert.equal(error.call.attempts, 1, 'a certificate that is not trusted is never retried');
		assert.deepEqual(proxy.connects, ['api.test:443'], 'one CONNECT, through the proxy');
		assert.match(error.message, /TLS certificate is not trusted on this machine \((UNABLE_TO_VERIFY_LEAF_SIGNATURE|SELF_SIGNED_CERT_IN_CHAIN)\) through the proxy http:\/\/127\.0\.0\.1:\d+ \(HTTPS_PROXY\): .*NODE_EXTRA_CA_CERTS is (not set|set to .*, but that file does not hold the CA that signed this certificate)/);
		assert.doesNotMatch(error.message, /researcher|p%40ss|\.\./, 'no credentials, one full stop at most');
	});

	it('names the missing credentials when the proxy answers 407, for CONNECT and for plain http', async () => {
		proxyEnv({HTTPS_PROXY: proxy.url, HTTP_PROXY: proxy.url});
		const tunnelled = await failure(call(BASE, 5));
		assert.equal(tunnelled.kind, 'proxy');
		assert.equal(tunnelled.call.attempts, 1);
		assert.match(tunnelled.message, /the proxy http:\/\/127\.0\.0\.1:\d+ asked for credentials \(HTTP 407\): put them in the proxy URL: HTTPS_PROXY=http:\/\/USER:PASSWORD@HOST:PORT/);
		const plain = await failure(call('http://models.test/v1', 5));
		assert.equal(plain.kind, 'proxy');
		assert.match(plain.message, /asked for credentials \(HTTP 407\): put them in the proxy URL: HTTP_PROXY=/);
	});

	it('forwards plain http through HTTP_PROXY', async () => {
		proxyEnv({HTTP_PROXY: proxy.urlWithCredentials});
		const reply = await call('http://models.test/v1');
		assert.ok(reply.text.length > 0);
		assert.deepEqual(proxy.forwarded, ['http://models.test/v1/chat/completions']);
	});

	it('goes direct for NO_PROXY hosts and for loopback, whatever the proxy variables say', async () => {
		proxyEnv({https_proxy: proxy.urlWithCredentials, http_proxy: proxy.urlWithCredentials, no_proxy: '.test'});
		const direct = await failure(call(BASE, 2));
		assert.equal(direct.kind, 'network');
		assert.match(direct.message, /cannot resolve the host api\.test \(ENOTFOUND\): check the host name in the base URL; if this network reaches outside servers only through a proxy, set HTTPS_PROXY \(https_proxy is set\)/);
		proxyEnv({HTTPS_PROXY: proxy.urlWithCredentials, HTTP_PROXY: proxy.urlWithCredentials});
		const local = await call(vllm.baseURL);
		assert.ok(local.text.length > 0);
		const models = await httpFetch(`${vllm.baseURL}/models`);
		assert.equal(models.status, 200);
		assert.deepEqual([proxy.connects, proxy.forwarded], [[], []], 'the proxy saw none of it');
	});

	it('says when an https:// base URL points at a plain http server', async () => {
		proxyEnv({});
		const error = await failure(call(vllm.baseURL.replace('http:', 'https:'), 3));
		assert.equal(error.kind, 'tls');
		assert.equal(error.call.attempts, 1);
		assert.match(error.message, /the other end does not speak TLS \((ERR_SSL_WRONG_VERSION_NUMBER|EPROTO)\): the server probably speaks plain HTTP: use http:\/\/ in the base URL$/);
	});

	it('gives every cause its fix, retryable or not, each text ending without a full stop', () => {
		// The shape the transport hands the SDK: "fetch failed" with the socket's error as its cause.
		const failed = (fields: Record<string, unknown>) => new APIConnectionError({cause: Object.assign(new TypeError('fetch failed'), {cause: Object.assign(new Error('x'), fields)})});
		const cases: Array<[unknown, string, boolean, RegExp]> = [
			[failed({code: 'CERT_HAS_EXPIRED'}), 'tls', false, /outside its validity dates.*clock/],
			[failed({code: 'ERR_TLS_CERT_ALTNAME_INVALID'}), 'tls', false, /for another host name.*host name the certificate names/],
			[failed({code: 'EAI_AGAIN', hostname: 'api.openai.com'}), 'network', true, /cannot resolve the host api\.openai\.com \(EAI_AGAIN\)/],
			[failed({code: 'ETIMEDOUT', address: '10.0.0.9', port: 443}), 'network', true, /connection to 10\.0\.0\.9:443 timed out.*proxy/],
			[failed({code: 'EHOSTUNREACH', address: '10.0.0.9'}), 'network', true, /no route to 10\.0\.0\.9.*VPN/],
			[failed({code: 'ECONNRESET'}), 'network', true, /closed by the server \(ECONNRESET\)/],
			[Object.assign(new TypeError('fetch failed'), {cause: Object.assign(new Error('the proxy answered 403 Forbidden'), {code: 'ERR_PROXY_REFUSED', status: 403}), proxy: {shown: 'http://proxy:3128', variable: 'HTTPS_PROXY'}}), 'proxy', false, /the proxy http:\/\/proxy:3128 refused to connect to the server \(HTTP 403\).*NO_PROXY/],
			[new APIConnectionTimeoutError(), 'timeout', true, /no reply within the time limit.*timeoutMs/],
			[new APIConnectionError({message: 'the stream ended without a finish_reason (connection closed early)'}), 'network', true, /stream ended without a finish_reason/],
		];
		for (const [error, kind, retryable, text] of cases) {
			const problem = connectionProblem(error)!;
			assert.deepEqual([problem.kind, problem.retryable], [kind, retryable], problem.what);
			assert.match(connectionText(problem), text);
			assert.doesNotMatch(connectionText(problem), /\.$/);
		}
		assert.equal(connectionProblem(new Error('a bug, not a connection')), null);
	});

	it('says the proxy itself is not there when nothing listens at its address', async () => {
		const gone = await startProxy({});
		await gone.close();
		proxyEnv({HTTPS_PROXY: gone.url});
		const error = await failure(call(BASE, 1));
		assert.equal(error.kind, 'network');
		assert.match(error.message, /the proxy http:\/\/127\.0\.0\.1:\d+ refused the connection \(ECONNREFUSED\): check the proxy's host and port in HTTPS_PROXY, and that the proxy is running$/);
	});
});

type Child = {code: number | null; stdout: string; stderr: string};
function cli(args: string[], env: Record<string, string>): Promise<Child> {
	const home = path.join(dir, 'home');
	const child = spawn(process.execPath, ['--import', import.meta.resolve('tsx'), '--import', import.meta.resolve('./helpers/offlineDns.ts'), path.join(REPO, 'src', 'cli.tsx'), ...args], {
		cwd: dir,
		env: {PATH: process.env['PATH'], HOME: process.env['HOME'], CULTURECONVERSE_HOME: home, CULTURECONVERSE_EMBEDDER: 'hash', ...env},
		stdio: ['ignore', 'pipe', 'pipe'],
	});
	let stdout = '';
	let stderr = '';
	child.stdout.on('data', (chunk: Buffer) => (stdout += chunk.toString()));
	child.stderr.on('data', (chunk: Buffer) => (stderr += chunk.toString()));
	return new Promise((resolve) => child.on('close', (code) => resolve({code, stdout, stderr})));
}

describe('doctor and run behind the proxy, through the real CLI', () => {
	const doctor = ['doctor', '--model', MODEL, '--base-url', BASE];
	const both = () => ({HTTPS_PROXY: proxy.urlWithCredentials, NODE_EXTRA_CA_CERTS: ca.caFile});

	it('work with HTTPS_PROXY and NODE_EXTRA_CA_CERTS set', async () => {
		const [checked, ran] = await Promise.all([
			cli(doctor, both()),
			cli(['run', '--seed', 'jp-yamato-shinto-a35-f:ritual.life-cycle.02', '--model', MODEL, '--generator-model', 'mock', '--validator-model', 'mock', '--base-url', BASE, '--max-turns', '2', '--sessions-dir', path.join(dir, 'sessions'), '--json'], both()),
		]);
		assert.equal(checked.code, 0, checked.stdout + checked.stderr);
		assert.doesNotMatch(checked.stdout, /unchecked|failed|NO\b/);
		assert.equal(ran.code, 0, ran.stderr);
		assert.equal((JSON.parse(ran.stdout) as {status: string}).status, 'completed');
		assert.ok(proxy.connects.every((target) => target === 'api.test:443') && proxy.connects.length > 0);
	});

	it('say which one is missing when one is', async () => {
		const before = proxy.connects.length;
		const [noCa, noProxy] = await Promise.all([cli(doctor, {HTTPS_PROXY: proxy.urlWithCredentials}), cli(doctor, {NODE_EXTRA_CA_CERTS: ca.caFile})]);
		// An untrusted certificate is the same on a second try: the model list is asked once, not retried.
		assert.equal(proxy.connects.length - before, 1, `tunnels opened: ${proxy.connects.slice(before).join(', ')}`);
		assert.equal(noCa.code, 2);
		assert.match(noCa.stdout + noCa.stderr, /Cannot reach https:\/\/api\.test\/v1 \(.*roles?\): the server's TLS certificate is not trusted on this machine .*point NODE_EXTRA_CA_CERTS at that CA's PEM file before starting cultureconverse \(NODE_EXTRA_CA_CERTS is not set\); never turn verification off\./);
		assert.equal(noProxy.code, 2);
		assert.match(noProxy.stdout + noProxy.stderr, /Cannot reach https:\/\/api\.test\/v1 \(.*\): cannot resolve the host api\.test \(ENOTFOUND\): .*set HTTPS_PROXY \(no proxy variable is set\)\./);
		for (const output of [noCa, noProxy]) assert.doesNotMatch(output.stdout + output.stderr, /\.\.(\s|$)|researcher|p%40ss/);
	});
});
