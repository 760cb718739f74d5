import {createInterface} from 'node:readline';
import {summaryOf} from './registry.js';
import chalk from 'chalk';
import {setupAdvice} from '../llm/advice.js';
import {SETUP_FAILURES} from '../llm/types.js';
import {modelFlagsOf, resumeEpisode, startEpisode} from '../app/episodes.js';
import {SessionStore} from '../store/sessionStore.js';
import {createRuntime, episodeRoles} from '../app/runtime.js';
import type {EngineEvent} from '../episode/events.js';
import type {EpisodeEngine} from '../episode/engine.js';
import {formatBlueprint, formatEvidence, formatJudge, formatShards, formatTermination, formatTurn, formatUsage, indent} from '../present/text.js';
import {ExitCode, UserError} from '../util/errors.js';
import {safeText} from '../util/terminalText.js';
import {summarizeCalls} from '../llm/usage.js';
import {episodeOptionsFromFlags, seedFromFlags} from './episodeOptions.js';
import {roleModelFlags} from './modelFlags.js';
import {runtimeFlags, runtimeOptionsFromFlags, sessionsDirFromFlags} from './runtimeFlags.js';
import {type Command, type Flags, type IO, write, writeJson} from './types.js';
import {jsonText} from '../util/outsideText.js';

export const episodeFlags = {
	persona: {type: 'string', description: 'Persona id (see `personas`)'},
	template: {type: 'string', description: 'Template id (see `templates`)'},
	seed: {type: 'string', description: 'Seed id <persona-id>:<template-id> instead of --persona/--template'},
	tier: {type: 'string', description: 'Override the seed\'s tier: standard, contextual or normative'},
	lang: {type: 'string', default: 'english', description: 'Language mode: english or native (the persona\'s language)'},
	mode: {type: 'string', default: 'eval', description: 'eval (assistant sees the chat only) or gold (oracle-guided)'},
	human: {type: 'boolean', description: 'Play the assistant yourself: replies are read from stdin, each ended by a line with a single "." (you see only the chat, as a model would)'},
	reveal: {type: 'boolean', description: 'With --human: also show the private and oracle state (recorded on the session; such sessions are reported apart from blind ones)'},
	replayFrom: {type: 'string', description: 'Replay the assistant turns of this saved session'},
	maxTurns: {type: 'number', default: 5, description: 'Maximum user turns'},
	judgeMode: {type: 'string', default: 'separate', description: 'separate (one call per metric) or combined (one call; cheaper)'},
	bestOf: {type: 'number', description: 'Best-of-N: sample N assistant replies per turn (2-16) and keep the one the judge rates best against the oracle (N+1 calls per turn)'},
} as const;

export const runCommand: Command = {
	name: 'run',
	summary: summaryOf('run'),
	usage: ['run --persona ID --template ID [--tier T] [--lang english|native] [--mode eval|gold] [--assistant-model M] [--json|--jsonl]', 'run --seed ID [...]', 'run --resume <session-id|path>'].join('\n  '),
	flags: {
		...episodeFlags,
		resume: {type: 'string', description: 'Continue an interrupted session'},
		allowModelChange: {type: 'boolean', description: 'With --resume: continue even if the model settings differ from the session\'s'},
		retry: {type: 'boolean', description: 'With --resume: clear an error (e.g. after a rate-limit storm) and run the failed step again'},
		json: {type: 'boolean', description: 'Print {sessionId, path, status, scores, clean, ...} at the end'},
		jsonl: {type: 'boolean', description: 'Stream the engine\'s events as JSON lines'},
		...runtimeFlags,
	},
	async run({flags: given, io, universe}) {
		// Resuming keeps the session's own models unless the user names others.
		const resumed = typeof given['resume'] === 'string' ? await new SessionStore(sessionsDirFromFlags(given, io)).load(given['resume']) : null;
		const flags = resumed ? {...roleModelFlags(modelFlagsOf(resumed)), ...definedOnly(given)} : given;
		const roles = episodeRoles(resumed ? resumed.config.assistant : episodeOptionsFromFlags(flags).assistant ?? 'llm');
		const runtime = createRuntime({options: runtimeOptionsFromFlags(flags), io, universe: universe(), roles});
		const mode = flags['jsonl'] ? 'jsonl' : flags['json'] ? 'json' : 'text';
		// The listener needs the engine (for session state); it is bound once the engine exists.
		let bound: ((event: EngineEvent) => void) | undefined;
		const early: EngineEvent[] = [];
		const listener = (event: EngineEvent) => (bound ? bound(event) : early.push(event));
		// Bad flags are reported before anything else is said about the run.
		const fresh = typeof flags['resume'] === 'string' ? null : {seed: seedFromFlags(runtime, flags), options: episodeOptionsFromFlags(flags)};
		await runtime.check(roles);
		if (mode === 'text' && runtime.settings.offline) io.stderr.write(chalk.yellow('Offline mock provider: no model endpoint is configured (set OPENAI_BASE_URL / OPENAI_API_KEY). Output is deterministic filler, not a measurement; the judge is a rubric (mock:rubric), not a model.\n'));
		const engine = fresh
			? await startEpisode(runtime, fresh.seed, fresh.options, listener)
			: await resumeEpisode(runtime, flags['resume'] as string, {allowModelChange: Boolean(flags['allowModelChange'])}, listener);
		bound = listenerFor(mode, io, engine);
		for (const event of early.splice(0)) bound(event);
		if (flags['retry'] && !(await engine.retryAfterError()) && mode === 'text') io.stderr.write(`Session ${engine.session.id} has no error to retry (status ${engine.session.status}).\n`);
		const nextLine = lineReader(io.stdin);
		for (;;) {
			const result = await engine.runToEnd(io.signal);
			if (io.signal?.aborted) {
				engine.close();
				io.stderr.write(`\nInterrupted. Session saved at step ${engine.session.steps.length}; continue with: npx cultureconverse run --resume ${engine.session.id}\n`);
				return ExitCode.interrupted;
			}
			if (!result.awaiting) break;
			const reply = await readHumanReply(nextLine);
			if (reply === null) {
				io.stderr.write(`No reply on stdin. Session ${engine.session.id} is saved awaiting the assistant; continue with: npx cultureconverse run --resume ${engine.session.id}\n`);
				break;
			}
			try {
				engine.submitHumanReply(reply);
			} catch (error) {
				// Refused before it touched the session (too long): the saved session still waits for this reply.
				if (!(error instanceof UserError)) throw error;
				engine.close();
				throw new UserError(`${error.message}. Session ${engine.session.id} is saved, waiting for your reply; continue with: npx cultureconverse run --resume ${engine.session.id}`);
			}
		}
		engine.close();
		const session = engine.session;
		const path = runtime.store.fileFor(session.id);
		// A model failure the set-up must fix (a context too small, a refused parameter): what to change, in the provider's terms.
		const failed = session.error;
		if (failed?.kind && failed.role && adviceKinds.has(failed.kind)) io.stderr.write(`cultureconverse: ${setupAdvice(failed.kind, failed.role, runtime.gateway.settings(failed.role), runtime.settings.apiKeyEnv[failed.role], failed.message)}\n`);
		if (mode === 'json') {
			writeJson(io, {
				sessionId: session.id,
				path,
				status: session.status,
				scores: session.judge?.scores ?? null,
				threeH: session.judge?.threeH ?? null,
				tdq: session.judge?.tdq ?? null,
				clean: session.judge?.clean ?? null,
				violations: session.judge?.violations ?? [],
				termination: session.termination,
				error: session.error,
				mock: session.config.mock,
				usage: summarizeCalls(session.calls),
			});
		} else if (mode === 'text') {
			write(io, chalk.dim(`\nSaved ${path}`));
		}
		return session.status === 'error' ? ExitCode.episodeError : ExitCode.ok;
	},
};

/** Failure kinds whose message gets the set-up advice after a failed run. */
const adviceKinds: ReadonlySet<string> = new Set([...SETUP_FAILURES, 'truncated', 'content_filter']);

function listenerFor(mode: 'json' | 'jsonl' | 'text', io: IO, engine: EpisodeEngine): (event: EngineEvent) => void {
	if (mode === 'jsonl') return (event) => io.stdout.write(`${jsonText(event)}\n`);
	if (mode === 'json') return (event) => {
		if (event.type === 'call_retried') io.stderr.write(`retrying ${event.stage} call (attempt ${event.attempt + 1}): ${event.reason}\n`);
	};
	const streaming = Boolean(io.stdout.isTTY);
	let streamed = false;
	return (event) => {
		const session = engine.session;
		// A person playing the assistant sees what a model would: the chat, nothing hidden (unless --reveal).
		if (session.config.assistant === 'human' && !session.sawHidden) return blindEvent(io, event, session);
		switch (event.type) {
			case 'episode_started':
				write(io, chalk.bold(`${event.resumed ? 'Resuming' : 'Episode'} ${event.sessionId}`) + chalk.dim(` · seed ${event.seedId} · tier ${session.seed.tier} · ${session.config.language} · ${session.config.mode} · assistant ${session.config.models.assistant}`));
				break;
			case 'stage_done':
				if (event.stage === 'blueprint' && session.blueprint && session.evidence) write(io, `\n${formatEvidence(session.evidence)}\n\n${formatBlueprint(session.blueprint)}\n`);
				if (event.stage === 'shards' && session.shards) write(io, `${formatShards(session.shards)}\n`);
				break;
			case 'user_turn':
				write(io, `\n${formatTurn(event.turn, session.shards?.length ?? null)}`);
				break;
			case 'assistant_token':
				if (streaming) {
					if (!streamed) io.stdout.write(`\n${chalk.green(`ASSISTANT t=${event.t}`)} ${chalk.dim('(streaming)')}\n  `);
					streamed = true;
					io.stdout.write(safeText(event.delta).replace(/\n/g, '\n  '));
				}
				break;
			case 'assistant_turn':
				if (streamed) io.stdout.write('\n');
				else write(io, `\n${formatTurn(event.turn, session.shards?.length ?? null)}`);
				streamed = false;
				break;
			case 'awaiting_assistant':
				io.stderr.write(chalk.bold('\nYour reply as the assistant (end with a line containing only "."):\n'));
				break;
			case 'call_retried':
				io.stderr.write(chalk.yellow(`  retrying ${event.stage} call (attempt ${event.attempt + 1}, waiting ${(event.delayMs / 1000).toFixed(1)}s): ${event.reason}\n`));
				break;
			case 'call_failed':
				io.stderr.write(chalk.red(`  ${event.call.stage} call failed (${event.kind}): ${event.call.error ?? ''}\n`));
				break;
			case 'episode_finished':
				write(io, '');
				if (event.termination) write(io, formatTermination(event.termination, session.shards?.length ?? 0));
				if (event.judge) write(io, formatJudge(event.judge));
				if (event.error) write(io, chalk.red(`${event.error.flag}: ${event.error.message}`));
				write(io, chalk.dim(formatUsage(session.calls)));
				break;
			default:
				break;
		}
	};
}

/** What a blind human assistant is shown of an event: the chat, progress and failures, never private or oracle state. */
function blindEvent(io: IO, event: EngineEvent, session: EpisodeEngine['session']): void {
	switch (event.type) {
		case 'episode_started':
			write(io, chalk.bold(`${event.resumed ? 'Resuming' : 'Episode'} ${event.sessionId}`) + chalk.dim(` · ${session.persona.identity} (${session.persona.regionName}) · ${session.config.language} · you are the assistant; you see the chat only (--reveal shows the hidden state)`));
			break;
		case 'user_turn':
			if (!event.turn.closing) write(io, `\n${chalk.cyan(`USER t=${event.turn.t}`)}\n${indent(event.turn.content)}`);
			break;
		case 'assistant_turn':
			write(io, `\n${chalk.green(`ASSISTANT t=${event.turn.t}`)} ${chalk.dim('(you)')}\n${indent(event.turn.content)}`);
			break;
		case 'awaiting_assistant':
			io.stderr.write(chalk.bold('\nYour reply as the assistant (end with a line containing only "."):\n'));
			break;
		case 'call_retried':
			io.stderr.write(chalk.yellow(`  retrying the ${event.role} (attempt ${event.attempt + 1}, waiting ${(event.delayMs / 1000).toFixed(1)}s): ${event.reason}\n`));
			break;
		case 'call_failed':
			io.stderr.write(chalk.red(`  the ${event.call.role} call failed (${event.kind})\n`));
			break;
		case 'episode_finished':
			write(io, '');
			if (event.termination) write(io, chalk.bold('The dialogue has ended.'));
			if (event.error) write(io, chalk.red(`${event.error.flag}: the episode stopped on an error (details: npx cultureconverse replay ${session.id} --print)`));
			else if (event.judge) write(io, chalk.dim(`Judged. Scores and everything hidden: npx cultureconverse replay ${session.id} --print`));
			break;
		default:
			break;
	}
}

/** Lines of stdin, read through one readline interface for the whole run (none is lost between replies). */
function lineReader(stdin: IO['stdin']): () => Promise<string | null> {
	let iterator: AsyncIterator<string> | undefined;
	return async () => {
		iterator ??= createInterface({input: stdin, terminal: false})[Symbol.asyncIterator]();
		const next = await iterator.next();
		return next.done ? null : next.value;
	};
}

/** One reply, ended by a line with a single "." or by end of input; null when there is none. */
async function readHumanReply(nextLine: () => Promise<string | null>): Promise<string | null> {
	const lines: string[] = [];
	for (;;) {
		const line = await nextLine();
		if (line === null || line.trim() === '.') break;
		lines.push(line);
	}
	const text = lines.join('\n').trim();
	return text.length > 0 ? text : null;
}

/** meow gives every declared flag a key; only the ones the user set may override the session's. */
function definedOnly(flags: Flags): Flags {
	return Object.fromEntries(Object.entries(flags).filter(([, value]) => value !== undefined));
}
