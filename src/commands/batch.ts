import {availableParallelism} from 'node:os';
import path from 'node:path';
import {summaryOf} from './registry.js';
import chalk from 'chalk';
import {createRuntime, episodeRoles, type Runtime} from '../app/runtime.js';
import {checkBatchName, planItems, selectSeeds, variantsOf} from '../batch/plan.js';
import {type BatchEvent, runBatch} from '../batch/runner.js';
import {outageAdvice, OUTAGE_FAILURES} from '../llm/breaker.js';
import type {FailureKind} from '../llm/types.js';
import {canonicalJson} from '../util/canonicalJson.js';
import {type BatchSummary, summarizeBatch} from '../batch/summary.js';
import {type BatchEpisodeConfig, BatchManifest, type BatchSelection} from '../domain/batch.js';
import {registerSchema} from '../domain/registry.js';
import {ModelRole} from '../domain/session.js';
import {describeSelection, describeVariants, planReport, progressPrinter, runFigures, stat, summaryText} from '../present/batch.js';
import {liveLine} from '../present/liveLine.js';
import {BatchStore} from '../store/batchStore.js';
import {SeedSpace} from '../universe/seeds.js';
import {ExitCode, UserError} from '../util/errors.js';
import {workspaceDir} from '../util/paths.js';
import {unknownMessage} from '../util/suggest.js';
import {setupAdvice} from '../llm/advice.js';
import {renderTable} from '../util/table.js';
import {resumeCommand} from './batchResume.js';
import {episodeOptionsFromFlags} from './episodeOptions.js';
import {episodeFlags} from './run.js';
import {runtimeFlags, runtimeOptionsFromFlags, sessionsDirFromFlags} from './runtimeFlags.js';
import {wholeFlag} from './flagValues.js';
import {filterFlags, seedFilter} from './seeds.js';
import {type Command, type CommandContext, type Flags, type FlagSpec, type IO, write, writeJson} from './types.js';

const withoutDefault = ({default: _default, ...spec}: FlagSpec): FlagSpec => spec;

registerSchema('batch', BatchManifest, 'a batch manifest (sessions/batches/<name>.json): the plan and where each item stands');

const SELECTION_FLAGS = [...Object.keys(filterFlags), 'seedFile', 'sample', 'sampleSeed', 'balance', 'trials'] as const;
const BALANCE = ['identity', 'region', 'tier', 'domain'] as const;
const EPISODE_FLAGS = ['lang', 'mode', 'judgeMode', 'maxTurns', 'bestOf'] as const;

export const batchCommand: Command = {
	name: 'batch',
	summary: summaryOf('batch'),
	usage: [
		'batch [--name N] [seed filters] [--seed-file FILE] [--sample N [--balance identity|region|tier|domain]] [--sample-seed S] [--trials K] [--parallel P] [--lang english[,native]] [--mode eval[,gold]] [--dry-run] [--json|--jsonl]',
		'batch --name N                      resume (or retry the errors of) an earlier batch',
		'batch --name N [...] --queue redis://HOST:PORT[/DB]   plan here, run on workers anywhere (npx cultureconverse worker)',
		'batch status <name> [--queue redis://...] [--json]',
		'batch list [--json]',
	].join('\n    $ cultureconverse '),
	flags: {
		name: {type: 'string', description: 'Batch name; running a name again resumes it (default: batch-<date>-<time>)'},
		...filterFlags,
		seedFile: {type: 'string', description: 'Seed ids to run, one <persona-id>:<template-id> per line, instead of filters'},
		sample: {type: 'number', description: 'Draw this many seeds from the selection (stable: same flags, same seeds)'},
		sampleSeed: {type: 'string', description: 'Key of the sample draw (default "0")'},
		balance: {type: 'string', description: 'With --sample: draw equally from each identity, region, tier or domain (the paper\'s balanced design)'},
		trials: {type: 'number', description: 'Episodes per seed, to see run-to-run noise (default 1)'},
		parallel: {type: 'number', description: 'Episodes in flight at once (default: --concurrency, the model-call limit)'},
		queue: {type: 'string', description: 'Run the batch on a Redis queue, redis://HOST:PORT[/DB]: this process plans, follows and collects the sessions; `npx cultureconverse worker --queue ...` processes anywhere run the episodes'},
		workers: {type: 'string', description: 'Threads to spread the episodes over, sharing one model-call limit: a number, or auto (every core once --parallel reaches 16; default)'},
		// Without defaults: on a rerun, only flags the user typed may be compared with the batch's own.
		lang: {...withoutDefault(episodeFlags.lang), description: 'english or native, or both (english,native): paired variants from one blueprint per seed'},
		mode: {...withoutDefault(episodeFlags.mode), description: 'eval or gold, or both (eval,gold): paired variants from one blueprint per seed'},
		judgeMode: withoutDefault(episodeFlags.judgeMode),
		maxTurns: withoutDefault(episodeFlags.maxTurns),
		bestOf: episodeFlags.bestOf,
		stopAfter: {type: 'number', description: 'Stop after this many items in a row fail the same way with a set-up error (bad key, no quota, unknown model, rejected parameter); 0 never stops (default 3)'},
		skipErrors: {type: 'boolean', description: 'On a rerun, leave items that ended in an error flag alone (default: retry them)'},
		allowModelChange: {type: 'boolean', description: 'Resume even if the model settings differ from the batch\'s (scores will mix models)'},
		dryRun: {type: 'boolean', description: 'Print the plan (how many seeds, tiers, regions) and run nothing'},
		json: {type: 'boolean', description: 'Print the summary as JSON at the end'},
		jsonl: {type: 'boolean', description: 'Print one JSON line per finished item, then the summary'},
		...runtimeFlags,
	},
	async run(context) {
		const sub = context.args[0];
		if (sub === 'status') return showStatus(context);
		if (sub === 'list') return listBatches(context);
		if (sub !== undefined) throw new UserError(unknownMessage('batch subcommand', sub, ['status', 'list'], 'Run `npx cultureconverse batch --help`.'));
		return runOrResume(context);
	},
};

function given(flags: Flags, names: readonly string[]): string[] {
	return names.filter((name) => flags[name] !== undefined);
}

function selectionOf(flags: Flags, io: IO): BatchSelection {
	const whole = (name: string, min: number, max: number) => wholeFlag(flags, name, {min, max});
	const seedFile = typeof flags['seedFile'] === 'string' ? flags['seedFile'] : null;
	if (seedFile && given(flags, Object.keys(filterFlags)).length > 0) throw new UserError('--seed-file lists the seeds itself: drop the seed filters, or drop --seed-file.');
	const filter = seedFilter(flags);
	const sample = whole('sample', 1, 1_000_000);
	const balance = flags['balance'];
	if (balance !== undefined) {
		if (!(BALANCE as readonly unknown[]).includes(balance)) throw new UserError(unknownMessage('--balance stratum', String(balance), BALANCE, 'Use identity, region, tier or domain.'));
		if (sample === null) throw new UserError('--balance shapes a sample: give --sample N too.');
	}
	return {
		filter: Object.fromEntries(Object.entries(filter).filter(([, value]) => value !== undefined)),
		seedFile: seedFile ? path.resolve(io.cwd, seedFile) : null,
		sample,
		sampleSeed: typeof flags['sampleSeed'] === 'string' ? flags['sampleSeed'] : '0',
		// Only when asked: a batch planned before --balance existed still compares equal on a rerun.
		...(balance !== undefined ? {balance: balance as (typeof BALANCE)[number]} : {}),
		trials: whole('trials', 1, 100) ?? 1,
	};
}

function episodeConfigOf(flags: Flags, runtime: Runtime): BatchEpisodeConfig {
	const variants = variantsOf(flags['lang'], flags['mode']);
	const first = variants[0]!;
	const options = episodeOptionsFromFlags({...flags, lang: first.language, mode: first.mode});
	return {
		language: first.language,
		mode: first.mode,
		...(variants.length > 1 ? {variants} : {}),
		assistant: options.assistant ?? 'llm',
		judgeMode: options.judgeMode ?? 'separate',
		maxTurns: options.maxTurns ?? 5,
		bestOf: options.bestOf ?? null,
		models: Object.fromEntries(ModelRole.options.map((role) => [role, `${runtime.gateway.settings(role).provider}:${runtime.gateway.settings(role).model}`])),
	};
}

const stamp = (date: Date) => date.toISOString().replace(/[-:]/g, '').replace('T', '-').slice(0, 15);

async function runOrResume(context: CommandContext): Promise<number> {
	const {flags, io, universe} = context;
	const store = new BatchStore(sessionsDirFromFlags(flags, io));
	const name = checkBatchName(typeof flags['name'] === 'string' ? flags['name'] : `batch-${stamp(new Date())}`);
	const space = new SeedSpace(universe());
	const live = liveLine(io.stderr, !flags['json'] && !flags['jsonl'] && Boolean((io.stderr as {isTTY?: boolean}).isTTY));
	// Everything the run says on stderr (index builds, warnings) goes above the live progress line.
	const planned = store.exists(name) ? store.load(name) : null;
	const roles = episodeRoles(planned?.episode.assistant ?? (variantsOf(flags['lang'], flags['mode']).some((variant) => variant.mode === 'gold') ? 'gold' : episodeOptionsFromFlags({...flags, lang: undefined, mode: undefined}).assistant ?? 'llm'));
	const runtime = createRuntime({options: runtimeOptionsFromFlags(flags), io: {...io, stderr: live.stream}, universe: universe(), roles});
	const episode = episodeConfigOf(flags, runtime);
	let manifest: BatchManifest;
	if (planned) {
		manifest = planned;
		const asked = selectionOf(flags, io);
		// Compared as values, not as JSON text: a manifest read back from disk has its keys in the
		// schema's order, so a paired batch's own command was once refused as "another selection".
		if (given(flags, SELECTION_FLAGS).length > 0 && canonicalJson(asked) !== canonicalJson(manifest.selection)) {
			throw new UserError(`Batch '${name}' was planned with another selection (${describeSelection(manifest.selection)}). Rerun it with no seed flags to resume it, or give a new --name.`);
		}
		const changedEpisode = EPISODE_FLAGS.filter((flag) => flags[flag] !== undefined).length > 0 && canonicalJson({...episode, bestOf: episode.bestOf ?? null, models: null}) !== canonicalJson({...manifest.episode, bestOf: manifest.episode.bestOf ?? null, models: null});
		if (changedEpisode) throw new UserError(`Batch '${name}' runs ${describeVariants(manifest.episode)} / ${manifest.episode.judgeMode} / max ${manifest.episode.maxTurns} turns${manifest.episode.bestOf ? ` / best of ${manifest.episode.bestOf}` : ''}; resume it without --lang, --mode, --judge-mode, --max-turns or --best-of, or give a new --name.`);
		const models = ModelRole.options.filter((role) => manifest.episode.models[role] !== episode.models[role]);
		if (models.length > 0 && !flags['allowModelChange']) {
			throw new UserError(`Batch '${name}' was planned with other models (${models.map((role) => `${role}: ${manifest.episode.models[role]} -> ${episode.models[role]}`).join('; ')}). Scores from different models are not comparable: resume with the same model flags, or pass --allow-model-change.`);
		}
	} else {
		const selection = selectionOf(flags, io);
		const seeds = selectSeeds(space, selection);
		const items = seeds.length * selection.trials * Math.max(1, episode.variants?.length ?? 1);
		// A dry run reports from the seeds: the items (seeds x trials x variants) are never made, so
		// `--sample 1000000 --trials 100 --dry-run` stays small (it once ran out of memory at 4 GB).
		if (flags['dryRun']) return printPlan(io, flags, planReport({name, selection, episode, seeds, items}));
		if (items > MAX_BATCH_ITEMS) throw new UserError(`Batch '${name}' would have ${items.toLocaleString('en')} episodes (${seeds.length.toLocaleString('en')} seeds x ${selection.trials} trial(s)${episode.variants ? ` x ${episode.variants.length} variants` : ''}); a batch may have at most ${MAX_BATCH_ITEMS.toLocaleString('en')}: draw a --sample, use fewer --trials, or split it into several batches.`);
		const createdAt = new Date().toISOString();
		manifest = {format: 'cultureconverse.batch', version: 1, name, createdAt, updatedAt: createdAt, selection, episode, items: planItems(name, seeds, selection.trials, episode.variants ?? [])};
	}

	if (flags['dryRun']) {
		const seeds = [...new Set(manifest.items.map((item) => item.seedId))].map((id) => space.get(id));
		return printPlan(io, flags, planReport({name, selection: manifest.selection, episode: manifest.episode, seeds, items: manifest.items.length}));
	}

	const queue = flags['queue'] === undefined ? null : await queueSetup(flags, manifest.episode);
	await runtime.check(roles);
	const parallel = wholeFlag(flags, 'parallel', {min: 1, max: 1024}, runtime.settings.concurrency);
	// Bounded by the plan here; the runner narrows it to the items left once it holds the batch.
	const workers = workerCount(flags['workers'], parallel, manifest.items.length);
	const mode = flags['jsonl'] ? 'jsonl' : flags['json'] ? 'json' : 'text';
	if (mode === 'text' && runtime.settings.offline) io.stderr.write(chalk.yellow('Offline mock provider: no model endpoint is configured (set OPENAI_BASE_URL / OPENAI_API_KEY). Output is deterministic filler, not a measurement; the judge is a rubric (mock:rubric), not a model.\n'));
	const started = Date.now();
	// The width the progress line shows: the batch's shared limiter when it runs on several threads.
	let width = () => runtime.gateway.concurrency();
	const printer = progressPrinter(io, live, mode, name, () => width());
	// What will run is known once the runner holds the batch's lock and has put lost sessions back in
	// the plan: said then, so a second runner says nothing about items it will never run.
	const progress = Object.assign((event: BatchEvent) => {
		if (event.type === 'planned' && mode === 'text') {
			const recovered = event.recovered > 0 ? ` (${event.recovered} lost or unreadable, run again)` : '';
			if (queue) live.stream.write(`Batch ${name}: ${event.total} item(s), ${event.todo} to run${recovered} on the queue ${queue.target.display}, at most ${runtime.settings.concurrency} calls in flight per endpoint; manifest ${store.fileFor(name)}\n  workers: npx cultureconverse worker --queue ${queue.target.display}\n`);
			else live.stream.write(`Batch ${name}: ${event.total} item(s), ${event.todo} to run${recovered}, ${parallel} at a time${event.threads > 1 ? ` on ${event.threads} threads` : ''}; manifest ${store.fileFor(name)}\n`);
		}
		printer(event);
	}, {done: () => printer.done()});
	const result = await runBatch({
		runtime,
		store,
		manifest,
		seedOf: (id) => space.get(id),
		// The plan's episode settings, never this command's defaults: a rerun without --max-turns or
		// --judge-mode (as the printed resume command is) runs the items left as the batch was planned.
		episode: {language: manifest.episode.language, assistant: manifest.episode.assistant, judgeMode: manifest.episode.judgeMode, maxTurns: manifest.episode.maxTurns, bestOf: manifest.episode.bestOf ?? null},
		parallel,
		retryErrors: !flags['skipErrors'],
		allowModelChange: Boolean(flags['allowModelChange']),
		signal: io.signal,
		onEvent: progress,
		stopAfter: wholeFlag(flags, 'stopAfter', {min: 0, max: 1_000_000}, 3),
		...(queue
			? {
					executor: async (context) => {
						const executor = await queue.executor({target: queue.target, spec: queue.spec(name, manifest, runtime), manifest, store: runtime.store, context});
						width = () => executor.globalWidth();
						return executor;
					},
				}
			: {}),
		...(!queue && workers > 1
			? {
					workers: {
						count: workers,
						concurrency: runtime.settings.concurrency,
						adaptive: runtime.settings.adaptiveConcurrency,
						init: {runtime: {...runtimeOptionsFromFlags(flags), sessionsDir: store.sessionsDir}, env: io.env, cwd: io.cwd, universe: universeLocation(io)},
						onLimiter: (limiter) => (width = () => ({limit: limiter.limit, max: limiter.max})),
					},
				}
			: {}),
	});
	progress.done();
	const summary = summarizeBatch(result.manifest);
	const run = runFigures(result.usage, Date.now() - started, result.completed);
	// Every flag this run needed to reach its models, so the printed command really carries on.
	const resume = resumeCommand(name, flags, batchCommand.flags);
	const stoppedEarly = Boolean(result.stopped || result.storage);
	if (mode === 'text') {
		write(io, summaryText(summary, run));
		if (!stoppedEarly && (result.interrupted || summary.byStatus.error > 0 || summary.byStatus.pending > 0 || summary.byStatus.running > 0)) {
			io.stderr.write(`${result.interrupted ? 'Interrupted. ' : ''}Continue with: ${resume}${summary.byStatus.error > 0 ? ' (items with an error flag are retried; --skip-errors leaves them)' : ''}\n`);
		}
	} else {
		writeJson(io, {type: 'batch_summary', manifest: store.fileFor(name), interrupted: result.interrupted, stopped: result.stopped, storage: result.storage, resume, ...summary, run});
	}
	if (stoppedEarly && queue) await queue.pause(name).catch(() => undefined);
	if (result.storage) {
		// The folder cannot be written: its message names the file, the folder, the errno and what to do.
		const {count, message} = result.storage;
		io.stderr.write(`\nStopped: the sessions folder could not be written${count > 1 ? ` (${count} items in a row)` : ''}; nothing more was started${queue ? ' (the queue is paused)' : ''}, and everything saved before it is kept.\n  ${message}\n  Then continue with: ${resume}\n`);
		return ExitCode.badInput;
	}
	if (result.stopped) {
		const {role, kind, count, message} = result.stopped;
		const advice = OUTAGE_FAILURES.has(kind as FailureKind) ? outageAdvice(kind, role, runtime.gateway.settings(role).baseURL) : setupAdvice(kind, role, runtime.gateway.settings(role), runtime.settings.apiKeyEnv[role], message);
		io.stderr.write(`\nStopped: ${count} items in a row failed the same way (${kind}, ${role} role); nothing more was started${queue ? ' (the queue is paused: workers take none of its jobs)' : ''} and everything is saved.\n  ${message}\n  ${advice}\n  Then continue with: ${resume}\n`);
		return ExitCode.badInput;
	}
	if (result.interrupted) return ExitCode.interrupted;
	return summary.byStatus.error > 0 ? ExitCode.episodeError : ExitCode.ok;
}

/**
 * Most episodes one batch may plan: a million. Its manifest is then about 200 MB, and a journal and
 * a snapshot of it still fit in what one process can read and write (a JavaScript string stops at
 * about 512 MB).
 */
const MAX_BATCH_ITEMS = 1_000_000;

function printPlan(io: IO, flags: Flags, plan: ReturnType<typeof planReport>): number {
	if (flags['json']) writeJson(io, plan);
	else write(io, plan.text);
	return ExitCode.ok;
}

async function showStatus(context: CommandContext): Promise<number> {
	const {args, flags, io} = context;
	const name = args[1];
	if (!name) throw new UserError('Usage: npx cultureconverse batch status <name> [--json] (list them with `npx cultureconverse batch list`)');
	const store = new BatchStore(sessionsDirFromFlags(flags, io));
	const manifest = store.load(name);
	const summary = summarizeBatch(manifest);
	const queue = flags['queue'] === undefined ? null : await queueStatusOf(flags, name);
	if (flags['json']) {
		writeJson(io, {manifest: store.fileFor(name), ...summary, ...(queue ? {queue} : {}), items: manifest.items});
		return ExitCode.ok;
	}
	write(io, summaryText(summary));
	if (queue) write(io, (await import('../queue/status.js')).queueStatusText(queue, new Date()));
	write(io, `  planned ${manifest.createdAt.slice(0, 16).replace('T', ' ')} · ${describeSelection(manifest.selection)} · ${describeVariants(manifest.episode)}`);
	const open = manifest.items.filter((item) => item.status !== 'completed');
	if (open.length > 0) {
		write(io, renderTable(open.slice(0, 50), [
			{header: 'SESSION', value: (item) => item.sessionId},
			{header: 'STATUS', value: (item) => item.errorFlag ?? item.status},
			{header: 'SEED', value: (item) => item.seedId, max: 60},
			{header: 'TRIAL', value: (item) => item.trial, align: 'right'},
			{header: 'ATTEMPTS', value: (item) => item.attempts, align: 'right'},
		]));
		if (open.length > 50) write(io, `(${open.length - 50} more unfinished; --json lists all)`);
	}
	return ExitCode.ok;
}

async function listBatches(context: CommandContext): Promise<number> {
	const {flags, io} = context;
	const store = new BatchStore(sessionsDirFromFlags(flags, io));
	const rows: Array<BatchSummary & {updatedAt: string}> = [];
	const problems: string[] = [];
	for (const name of store.names()) {
		try {
			const manifest = store.load(name);
			rows.push({...summarizeBatch(manifest), updatedAt: manifest.updatedAt});
		} catch (error) {
			problems.push((error as Error).message);
		}
	}
	for (const problem of problems) io.stderr.write(`cultureconverse: skipped ${problem}\n`);
	if (flags['json']) {
		writeJson(io, rows);
		return ExitCode.ok;
	}
	if (rows.length === 0) {
		write(io, `No batches in ${store.dir}. Start one with \`npx cultureconverse batch --sample 20\`.`);
		return ExitCode.ok;
	}
	write(io, renderTable(rows, [
		{header: 'NAME', value: (row) => row.name},
		{header: 'DONE', value: (row) => `${row.byStatus.completed}/${row.planned}`, align: 'right'},
		{header: 'ERROR', value: (row) => row.byStatus.error, align: 'right'},
		{header: '3H', value: (row) => stat(row.threeH.mean), align: 'right'},
		{header: 'TDQ', value: (row) => stat(row.tdq.mean), align: 'right'},
		{header: 'CLEAN', value: (row) => (row.cleanRate === null ? '–' : `${Math.round(row.cleanRate * 100)}%`), align: 'right'},
		{header: 'UPDATED', value: (row) => row.updatedAt.slice(0, 16).replace('T', ' ')},
	]));
	return ExitCode.ok;
}

/**
 * Threads for a batch: `--workers N`, or auto: every core once 16 or more episodes are in flight (a
 * thread's share of the model-call work then keeps it busy), and never more threads than items.
 */
export function workerCount(flag: unknown, parallel: number, todo: number): number {
	if (flag !== undefined && flag !== 'auto') {
		const n = Number(flag);
		if (!Number.isInteger(n) || n < 1 || n > 64) throw new UserError(`--workers must be a whole number from 1 to 64, or auto (got '${String(flag)}').`);
		return Math.max(1, Math.min(n, todo));
	}
	if (parallel < 16) return 1;
	return Math.max(1, Math.min(availableParallelism(), Math.floor(parallel / 8), todo));
}

function universeLocation(io: IO): {kbDir?: string; userTemplatesDir: string} {
	return {
		...(io.env['CULTURECONVERSE_KB_DIR'] ? {kbDir: path.resolve(io.cwd, io.env['CULTURECONVERSE_KB_DIR'])} : {}),
		userTemplatesDir: path.join(workspaceDir(io.env, io.cwd), 'templates'),
	};
}

/**
 * What `--queue` needs, loaded only then (BullMQ and ioredis are not paid for by a local batch): the
 * target, checked to answer before anything runs, and how to record the batch for its workers.
 */
async function queueSetup(flags: Flags, episode: BatchEpisodeConfig) {
	const [{parseQueueUrl}, coordinator] = await Promise.all([import('../queue/target.js'), import('../queue/coordinator.js')]);
	const target = parseQueueUrl(flags['queue']);
	if (episode.assistant === 'human' || episode.assistant === 'replay') throw new UserError(`A batch on a queue runs without anyone at the keyboard: the ${episode.assistant} assistant cannot be used with --queue.`);
	if (flags['record'] !== undefined) throw new UserError('--record writes a file on the machine that makes the calls; with --queue the workers make them. Record on a local batch instead.');
	if (flags['workers'] !== undefined) throw new UserError('--workers spreads a local batch over threads; with --queue the episodes run in `npx cultureconverse worker` processes (give them --parallel).');
	await coordinator.checkRedis(target).catch((error: Error) => {
		throw new UserError(error.message);
	});
	return {
		target,
		executor: coordinator.queueExecutor,
		pause: (name: string) => coordinator.pauseBatch(target, name),
		spec: (name: string, manifest: BatchManifest, runtime: Runtime): import('../queue/schemas.js').BatchSpec => ({
			format: 'cultureconverse.queue-batch',
			version: 1,
			name,
			createdAt: manifest.createdAt,
			episode: {language: episode.language, assistant: episode.assistant, judgeMode: episode.judgeMode, maxTurns: episode.maxTurns, bestOf: episode.bestOf ?? null},
			allowModelChange: Boolean(flags['allowModelChange']),
			roles: runtime.settings.roles,
			apiKeyEnv: runtime.settings.apiKeyEnv,
			retry: runtime.settings.retry,
			validationRetries: runtime.settings.validationRetries,
			cache: runtime.settings.cache,
			offline: runtime.settings.offline,
			cap: runtime.settings.concurrency,
			adaptive: runtime.settings.adaptiveConcurrency,
			pacing: runtime.settings.rateLimitPacing ?? 'headers',
			embedder: typeof flags['embedder'] === 'string' ? flags['embedder'] : null,
		}),
	};
}

async function queueStatusOf(flags: Flags, name: string) {
	const [{parseQueueUrl}, {readQueueStatus}] = await Promise.all([import('../queue/target.js'), import('../queue/status.js')]);
	const target = parseQueueUrl(flags['queue']);
	const {checkRedis} = await import('../queue/coordinator.js');
	await checkRedis(target).catch((error: Error) => {
		throw new UserError(error.message);
	});
	return readQueueStatus(target, name);
}
