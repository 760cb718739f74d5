/*
 * A worker thread of a multi-core batch (see executors.ts): it builds a runtime of its own (gateway,
 * store, knowledge base) over the batch's shared model-call limiter, runs the items the coordinator
 * sends, and reports back. It writes session files itself; only the coordinator writes the batch
 * journal.
 */
import {Writable} from 'node:stream';
import {parentPort, workerData} from 'node:worker_threads';
import {createRuntime, episodeRoles} from '../app/runtime.js';
import type {Streams} from '../util/streams.js';
import {createSharedLimiter} from '../llm/sharedLimiter.js';
import {usageCall} from '../llm/usage.js';
import {loadUniverse} from '../universe/load.js';
import {SeedSpace} from '../universe/seeds.js';
import {writeStats} from '../store/sessionStore.js';
import {executeItem} from './item.js';
import type {FromWorker, ToWorker, WorkerInit} from './workerProtocol.js';

const port = parentPort!;
const init = workerData as WorkerInit;
const send = (message: FromWorker) => port.postMessage(message);

// Index builds and warnings become notices on the coordinator's stderr.
const stderr = new Writable({
	write(chunk: Buffer, _encoding, done) {
		const text = chunk.toString().trim();
		if (text) send({type: 'notice', message: text.replace(/^cultureconverse: /, '')});
		done();
	},
});
const io: Streams = {stdout: new Writable({write: (_chunk, _encoding, done) => done()}), stderr, stdin: process.stdin, env: init.env, cwd: init.cwd};

const universe = loadUniverse(init.universe);
const runtime = createRuntime({options: init.runtime, io, universe, roles: episodeRoles(init.settings.episode.assistant ?? 'llm'), limiter: createSharedLimiter(init.limiter), quiet: true});
runtime.gateway.onEvent((event) => {
	if (event.type === 'call_done' || event.type === 'call_failed') send({type: 'call', call: usageCall(event.call)});
});
const space = new SeedSpace(universe);
const stop = new AbortController();
let running = 0;
let closing = false;

const maybeExit = () => {
	if (closing && running === 0) send({type: 'closed', writtenChars: writeStats.chars});
};

port.on('message', (message: ToWorker) => {
	if (message.type === 'stop') {
		stop.abort();
		return;
	}
	if (message.type === 'close') {
		closing = true;
		maybeExit();
		return;
	}
	running++;
	const {index, item} = message;
	void executeItem(runtime, item, (id) => space.get(id), init.settings, stop.signal, {
		started: (status, resumed) => send({type: 'started', index, status, resumed}),
		retried: (reason, delayMs) => send({type: 'retried', index, reason, delayMs}),
	})
		.then((end) => send({type: 'ended', index, end}))
		.catch((error: unknown) => send({type: 'ended', index, end: {kind: 'internal', patch: {status: 'error', errorFlag: 'INTERNAL'}, message: error instanceof Error ? error.message : String(error)}}))
		.finally(() => {
			running--;
			maybeExit();
		});
});
send({type: 'ready'});
