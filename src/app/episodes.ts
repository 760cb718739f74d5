import type {Seed} from '../domain/seed.js';
import type {Flags} from '../commands/types.js';
import {type EpisodeOptions, buildConfig, newSession} from '../episode/createSession.js';
import {EpisodeEngine} from '../episode/engine.js';
import type {EngineListener} from '../episode/events.js';
import {promptVersions} from '../llm/prompts.js';
import {SeedSpace, tierFlag} from '../universe/seeds.js';
import {UserError} from '../util/errors.js';
import type {Runtime} from './runtime.js';
import {AssistantKind, JudgeMode, LanguageMode, ModelRole, type Session, type SessionConfig} from '../domain/session.js';

/** Resolves `--seed ID` or `--persona ID --template ID` (with an optional `--tier` override). */
export function seedFromFlags(runtime: Pick<Runtime, 'universe'>, flags: Flags): Seed {
	const space = new SeedSpace(runtime.universe);
	const seedFlag = flags['seed'];
	let seed: Seed;
	if (typeof seedFlag === 'string') seed = space.get(seedFlag);
	else {
		const persona = flags['persona'];
		const template = flags['template'];
		if (typeof persona !== 'string' || typeof template !== 'string') throw new UserError('Give --seed <persona-id>:<template-id>, or both --persona ID and --template ID.');
		seed = space.get(`${space.persona(persona).id}:${space.template(template).id}`);
	}
	const tier = tierFlag(flags['tier']);
	if (tier) seed = {...seed, tier};
	return seed;
}

/** Episode options from flags, validated with the session schema's own enums. */
export function episodeOptionsFromFlags(flags: Flags): EpisodeOptions {
	const language = LanguageMode.safeParse(flags['lang'] ?? 'english');
	if (!language.success) throw new UserError(`--lang must be english or native, got '${String(flags['lang'])}'.`);
	const mode = flags['mode'] ?? 'eval';
	if (mode !== 'eval' && mode !== 'gold') throw new UserError(`--mode must be eval or gold, got '${String(mode)}'.`);
	let assistant: AssistantKind = mode === 'gold' ? 'gold' : 'llm';
	if (flags['human']) {
		if (mode === 'gold') throw new UserError('--human and --mode gold do not go together: a person plays the assistant without the oracle briefing.');
		assistant = 'human';
	}
	if (typeof flags['replayFrom'] === 'string') assistant = AssistantKind.parse('replay');
	const judgeMode = JudgeMode.safeParse(flags['judgeMode'] ?? 'separate');
	if (!judgeMode.success) throw new UserError(`--judge-mode must be separate or combined, got '${String(flags['judgeMode'])}'.`);
	const bestOf = flags['bestOf'] === undefined ? null : Number(flags['bestOf']);
	if (bestOf !== null && (!Number.isInteger(bestOf) || bestOf < 2 || bestOf > 16)) throw new UserError(`--best-of must be a whole number from 2 to 16, got '${String(flags['bestOf'])}'.`);
	if (bestOf !== null && (assistant === 'human' || assistant === 'replay')) throw new UserError(`--best-of samples the model under test; it does not go with ${assistant === 'human' ? '--human' : '--replay-from'}.`);
	const maxTurns = Number(flags['maxTurns'] ?? 5);
	if (!Number.isInteger(maxTurns) || maxTurns < 1 || maxTurns > 20) throw new UserError(`--max-turns must be a whole number from 1 to 20, got '${String(flags['maxTurns'])}'.`);
	if (flags['reveal'] && assistant !== 'human') throw new UserError('--reveal shows hidden state to a person playing the assistant; it goes with --human only.');
	return {language: language.data, assistant, judgeMode: judgeMode.data, maxTurns, replayFrom: typeof flags['replayFrom'] === 'string' ? flags['replayFrom'] : null, bestOf, ...(flags['reveal'] ? {reveal: true} : {})};
}

/** A new episode for a seed, saved to the store before its first step; `listener` sees every event from episode_started on. */
export async function startEpisode(runtime: Runtime, seed: Seed, options: EpisodeOptions, listener?: EngineListener): Promise<EpisodeEngine> {
	const {universe} = runtime;
	const persona = universe.personaById.get(seed.personaId)!;
	const template = universe.templateById.get(seed.templateId)!;
	const replaySource = options.replayFrom ? await runtime.store.load(options.replayFrom) : null;
	const config = buildConfig(runtime.gateway, {...options, replayFrom: replaySource?.id ?? options.replayFrom ?? null}, {prompts: promptVersions(), embedder: runtime.embedderId()});
	const fresh = newSession({seed, persona, template, config, id: options.id, now: new Date()});
	// A human who asked to see hidden state from the start has seen it before every reply.
	const session = options.reveal && config.assistant === 'human' ? {...fresh, sawHidden: true} : fresh;
	const engine = new EpisodeEngine(session, {universe, gateway: runtime.gateway, store: runtime.store, evidence: runtime.evidence, replaySource});
	if (listener) engine.on(listener);
	await engine.start(false);
	return engine;
}

/** An engine for a saved session, continuing from its last saved step. */
export async function resumeEpisode(runtime: Runtime, idOrPath: string, options: {allowModelChange?: boolean} = {}, listener?: EngineListener): Promise<EpisodeEngine> {
	const session = await runtime.store.load(idOrPath);
	const changed = modelChanges(session.config.roles, runtime);
	if (changed.length > 0 && !options.allowModelChange && session.status !== 'completed' && session.status !== 'error') {
		throw new UserError(`Session ${session.id} was started with other model settings (${changed.join('; ')}). Scores from different models are not comparable: resume with the same flags, or pass --allow-model-change.`);
	}
	const replaySource = session.config.assistant === 'replay' && session.config.replayFrom ? await runtime.store.load(session.config.replayFrom) : null;
	const engine = new EpisodeEngine(session, {universe: runtime.universe, gateway: runtime.gateway, store: runtime.store, evidence: runtime.evidence, replaySource});
	if (listener) engine.on(listener);
	await engine.start(true);
	return engine;
}

function modelChanges(saved: SessionConfig['roles'], runtime: Pick<Runtime, 'gateway'>): string[] {
	const changes: string[] = [];
	for (const role of ModelRole.options) {
		const now = runtime.gateway.settings(role);
		const was = saved[role];
		if (now.provider !== was.provider || now.model !== was.model) changes.push(`${role}: ${was.provider}:${was.model} -> ${now.provider}:${now.model}`);
	}
	return changes;
}

/**
 * The --<role>-model flags that reproduce the models a session was started with: resuming uses them
 * unless the user names other models (scores from different models are not comparable).
 */
export function modelFlagsOf(session: Pick<Session, 'config'>): Flags {
	const out: Flags = {};
	for (const role of ModelRole.options) {
		const settings = session.config.roles[role];
		out[`${role}Model`] = settings.provider === 'replay' && settings.replayFile ? `replay:${settings.replayFile}` : settings.model;
	}
	return out;
}
