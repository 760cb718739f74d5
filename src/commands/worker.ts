import path from 'node:path';
import {ModelRole} from '../domain/session.js';
import {MODEL_DEFAULTS} from '../llm/config.js';
import {ExitCode, UserError} from '../util/errors.js';
import {wholeFlag} from './flagValues.js';
import {summaryOf} from './registry.js';
import {sessionsDirFromFlags} from './runtimeFlags.js';
import type {Command} from './types.js';

export const workerCommand: Command = {
	name: 'worker',
	summary: summaryOf('worker'),
	usage: [
		'worker --queue redis://HOST:PORT[/DB] [--parallel P] [--concurrency C] [--name-filter N] [--sessions-dir DIR]',
		'worker --queue redis://... --endpoint assistant=http://localhost:8000/v1     this node\'s own vLLM for one role',
		'worker --queue redis://... --shared-dir /mnt/runs/sessions                   write finished sessions straight into the coordinator\'s folder',
	].join('\n    $ cultureconverse '),
	flags: {
		queue: {type: 'string', description: 'The Redis of the batches to work on: redis://HOST:PORT[/DB]'},
		parallel: {type: 'number', description: 'Episodes in flight per batch (default: --concurrency)'},
		concurrency: {type: 'number', description: `Model calls in flight in this worker (default ${MODEL_DEFAULTS.concurrency}); every call also holds a slot of the batch's global per-endpoint cap`},
		nameFilter: {type: 'string', description: 'Only batches whose name matches (* matches any characters), e.g. pilot-*'},
		sessionsDir: {type: 'string', description: 'Folder this worker saves its episodes in as they run (default ./sessions)'},
		baseUrl: {type: 'string', description: 'OpenAI-compatible endpoint for every model role here, instead of the one the batch recorded'},
		endpoint: {type: 'string', isMultiple: true, description: 'ROLE=URL: the endpoint of one role here (repeatable; roles: generator, validator, simulator, assistant, judge)'},
		sharedDir: {type: 'string', description: 'The coordinator\'s sessions folder as mounted here: finished sessions are written into it instead of sent through Redis'},
		lockMs: {type: 'number', description: 'How long a job stays locked without renewal: a killed worker\'s episode moves on after about this long (default 30000)'},
		embedder: {type: 'string', description: 'KB embedder here (default: the batch\'s --embedder, else env CULTURECONVERSE_EMBEDDER, else the multilingual default)'},
		cache: {type: 'boolean', default: true, description: 'Use the response cache when the batch does (--no-cache: call the model every time)'},
		preflight: {type: 'boolean', default: true, description: 'Check every endpoint before taking a batch\'s jobs (--no-preflight skips it)'},
	},
	async run({flags, io, universe}) {
		const {parseQueueUrl} = await import('../queue/target.js');
		const target = parseQueueUrl(flags['queue']);
		const concurrency = wholeFlag(flags, 'concurrency', {min: 1, max: 1024}, MODEL_DEFAULTS.concurrency);
		const parallel = wholeFlag(flags, 'parallel', {min: 1, max: 1024}, concurrency);
		const lockMs = wholeFlag(flags, 'lockMs', {min: 1000, max: 3_600_000}, 30_000);
		const endpoints = endpointOverrides(flags);
		const sharedDir = typeof flags['sharedDir'] === 'string' ? path.resolve(io.cwd, flags['sharedDir']) : undefined;
		// BullMQ and ioredis load here, not when the help screen is drawn.
		const [{checkRedis}, {runWorker}] = await Promise.all([import('../queue/coordinator.js'), import('../queue/worker.js')]);
		await checkRedis(target).catch((error: Error) => {
			throw new UserError(error.message);
		});
		const nameFilter = typeof flags['nameFilter'] === 'string' ? flags['nameFilter'] : undefined;
		const log = (line: string) => io.stderr.write(`worker: ${line}\n`);
		const own = {...(typeof flags['embedder'] === 'string' ? {embedder: flags['embedder']} : {}), ...(flags['cache'] === false ? {cache: false} : {}), ...(flags['preflight'] === false ? {preflight: false} : {})};
		await runWorker({target, io, universe: universe(), own, sessionsDir: sessionsDirFromFlags(flags, io), parallel, concurrency, ...(nameFilter ? {nameFilter} : {}), endpoints, ...(sharedDir ? {sharedDir} : {}), lockMs, ...(io.signal ? {signal: io.signal} : {}), log});
		return io.signal?.aborted ? ExitCode.interrupted : ExitCode.ok;
	},
};

function endpointOverrides(flags: Record<string, unknown>): {all?: string; roles: Partial<Record<ModelRole, string>>} {
	const url = (value: string, flag: string) => {
		if (!/^https?:\/\/\S+$/.test(value)) throw new UserError(`${flag} '${value.slice(0, 120)}' is not an http(s) URL.`);
		return value;
	};
	const roles: Partial<Record<ModelRole, string>> = {};
	const given = flags['endpoint'];
	for (const entry of (Array.isArray(given) ? given : given === undefined ? [] : [given]).flatMap((value) => String(value).split(','))) {
		const at = entry.indexOf('=');
		const role = ModelRole.safeParse(entry.slice(0, at));
		if (at < 1 || !role.success) throw new UserError(`--endpoint '${entry.slice(0, 120)}' must be ROLE=URL with ROLE one of ${ModelRole.options.join(', ')}.`);
		roles[role.data] = url(entry.slice(at + 1), `--endpoint ${role.data}=`);
	}
	return {...(typeof flags['baseUrl'] === 'string' ? {all: url(flags['baseUrl'], '--base-url')} : {}), roles};
}
