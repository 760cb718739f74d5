import {markHiddenSeen} from '../episode/blindness.js';
import type {Seed} from '../domain/seed.js';
import {type EpisodeOptions, buildConfig, newSession} from '../episode/createSession.js';
import {EpisodeEngine} from '../episode/engine.js';
import type {EngineListener} from '../episode/events.js';
import {promptVersions} from '../llm/prompts.js';
import {SeedSpace, tierFlag} from '../universe/seeds.js';
import {UserError} from '../util/errors.js';
import {judgeModelName, roleDifferences, roleIdentity} from '../domain/setup.js';
import type {Runtime} from './runtime.js';
import {ModelRole, type Session, type SessionConfig} from '../domain/session.js';

/** What names a seed: its id, or a persona and a template; `tier` (a tier name) overrides the seed's own. */
export type SeedChoice = {readonly seed?: string; readonly persona?: string; readonly template?: string; readonly tier?: string};

/** Resolves a seed id, or a persona and a template (the face's `--seed`, `--persona`, `--template`), with an optional tier override. */
export function seedFromChoice(runtime: Pick<Runtime, 'universe'>, choice: SeedChoice): Seed {
	const space = new SeedSpace(runtime.universe);
	let seed: Seed;
	if (choice.seed !== undefined) seed = space.get(choice.seed);
	else {
		const {persona, template} = choice;
		if (persona === undefined || template === undefined) throw new UserError('Give --seed <persona-id>:<template-id>, or both --persona ID and --template ID.');
		seed = space.get(`${space.persona(persona).id}:${space.template(template).id}`);
	}
	const tier = tierFlag(choice.tier);
	if (tier) seed = {...seed, tier};
	return seed;
}

/**
 * A new episode for a seed, saved to the store before its first step; `listener` sees every event from
 * episode_started on. With `sharedFrom` (a session of the same seed that has its shards), the episode
 * runs from that session's evidence, blueprint and shard plan instead of making its own: the paired
 * variants of a batch (native and English, gold and eval) then differ only in what they are meant to.
 */
export async function startEpisode(runtime: Runtime, seed: Seed, options: EpisodeOptions, listener?: EngineListener, engineOptions: {streamTokens?: boolean; sharedFrom?: Session} = {}): Promise<EpisodeEngine> {
	const {universe} = runtime;
	const persona = universe.personaById.get(seed.personaId)!;
	const template = universe.templateById.get(seed.templateId)!;
	const replaySource = options.replayFrom ? await runtime.store.load(options.replayFrom) : null;
	const config = buildConfig(runtime.gateway, {...options, replayFrom: replaySource?.id ?? options.replayFrom ?? null}, {prompts: promptVersions(), embedder: runtime.embedderId()});
	const {sharedFrom, ...rest} = engineOptions;
	let fresh = newSession({seed, persona, template, config, id: options.id, now: new Date()});
	if (sharedFrom) fresh = sharedStart(fresh, sharedFrom);
	// A human who asked to see hidden state from the start has seen it before every reply.
	const session = options.reveal ? markHiddenSeen(fresh, 'start-reveal') : fresh;
	const engine = new EpisodeEngine(session, {universe, gateway: runtime.gateway, store: runtime.store, evidence: runtime.evidence, replaySource, ...rest});
	if (listener) engine.on(listener);
	await engine.start(false);
	return engine;
}

/** A new session that starts where `source` finished its shards; refused when the two are not the same seed. */
function sharedStart(fresh: Session, source: Session): Session {
	if (source.seed.id !== fresh.seed.id || source.seed.tier !== fresh.seed.tier) throw new UserError(`Session ${source.id} is seed ${source.seed.id} (${source.seed.tier}), not ${fresh.seed.id} (${fresh.seed.tier}): it cannot lend its blueprint.`);
	if (!source.blueprint || !source.shards || !source.evidence) throw new UserError(`Session ${source.id} has no shard plan yet: its variants start once it has one.`);
	// Same blueprint and shards; the steps that made them stay in the source session (and its cost).
	return {...fresh, evidence: source.evidence, blueprint: source.blueprint, shards: source.shards, config: {...fresh.config, sharedFrom: source.id}};
}

/**
 * An engine for a saved session, continuing from its last saved step. A session whose model settings
 * (the roles' part of the setup identity: model, endpoint, sampling, top_p, token cap, reasoning
 * effort, structured mode, request extras) differ from the runtime's is refused,
 * whatever its status (an errored one retried with --retry too): scores from different set-ups are not
 * comparable. With `allowModelChange` the session takes the new settings and records each change with
 * the step from which it ran, so reports keep it apart.
 */
export async function resumeEpisode(runtime: Runtime, idOrPath: string, options: {allowModelChange?: boolean; streamTokens?: boolean} = {}, listener?: EngineListener): Promise<EpisodeEngine> {
	let session = await runtime.store.load(idOrPath);
	const gateway = session.status === 'completed' ? runtime.gateway : keepingSavedModes(runtime.gateway, session.config.roles);
	runtime = {...runtime, gateway};
	const changed = session.status === 'completed' ? [] : roleChanges(session.config.roles, runtime, rolesStillToRun(session));
	if (changed.length > 0) {
		if (!options.allowModelChange) {
			throw new UserError(`Session ${session.id} was started with other model settings (${changed.map((change) => `${change.role}: ${change.from} -> ${change.to}`).join('; ')}). Scores from different set-ups are not comparable: resume with the same flags and endpoint, or pass --allow-model-change (the change is then recorded in the session).`);
		}
		session = withModelChanges(session, changed, runtime);
	}
	const replaySource = session.config.assistant === 'replay' && session.config.replayFrom ? await runtime.store.load(session.config.replayFrom) : null;
	const engine = new EpisodeEngine(session, {universe: runtime.universe, gateway: runtime.gateway, store: runtime.store, evidence: runtime.evidence, replaySource, ...(options.streamTokens === undefined ? {} : {streamTokens: options.streamTokens})});
	if (listener) engine.on(listener);
	await engine.start(true);
	return engine;
}

type RoleChange = {readonly role: ModelRole; readonly from: string; readonly to: string};

/**
 * A role left on structured mode `auto` (the default: "whatever the server takes") continues a session
 * in the mode the session was saved with, so a session begun before `auto` was the default (or with a
 * mode set by hand then) resumes as it ran instead of being refused as a changed setup. A mode set by
 * hand now that differs from the saved one is still a change.
 */
function keepingSavedModes(gateway: Runtime['gateway'], saved: SessionConfig['roles']): Runtime['gateway'] {
	const savedMode = (role: ModelRole) => {
		const was = saved[role]?.structured;
		return gateway.settings(role).structured === 'auto' && was !== undefined && was !== 'auto' ? was : null;
	};
	const kept = (role: ModelRole) => {
		const mode = savedMode(role);
		return mode ? {...gateway.settings(role), structured: mode} : gateway.settings(role);
	};
	if (!ModelRole.options.some((role) => savedMode(role) !== null)) return gateway;
	return {
		...gateway,
		settings: kept,
		call: (request) => gateway.call({...request, settings: request.settings ?? kept(request.role)}),
		...(gateway.sample ? {sample: (request: Parameters<NonNullable<typeof gateway.sample>>[0], count: number) => gateway.sample!({...request, settings: request.settings ?? kept(request.role)}, count)} : {}),
		...(gateway.capabilities ? {capabilities: (role: ModelRole, settings?: Parameters<NonNullable<typeof gateway.capabilities>>[1]) => gateway.capabilities!(role, settings ?? kept(role))} : {}),
	};
}

/**
 * The roles whose model a resumed session may still call: a generator change after the shards are made,
 * or an assistant change for a person or a replay, changes nothing measured.
 */
function rolesStillToRun(session: Session): ModelRole[] {
	return ModelRole.options.filter((role) => {
		if (role === 'generator' || role === 'validator') return !session.shards;
		if (role === 'assistant') return session.config.assistant === 'llm' || session.config.assistant === 'gold';
		return true;
	});
}

/**
 * Each role (of `roles`) whose part of the setup identity (domain/setup.ts, the same that keeps
 * report cells apart) differs, described by the fields that differ.
 */
export function roleChanges(saved: SessionConfig['roles'], runtime: Pick<Runtime, 'gateway'>, roles: readonly ModelRole[] = ModelRole.options): RoleChange[] {
	const changes: RoleChange[] = [];
	for (const role of roles) {
		const fields = roleDifferences(roleIdentity(saved[role]), roleIdentity(runtime.gateway.settings(role)));
		if (fields.length === 0) continue;
		// The model alone reads best ("openai:a -> openai:b"); other fields are named.
		const describe = (side: 'from' | 'to') => fields.map((entry) => (entry.field === 'model' ? String(entry[side]) : `${entry.field} ${JSON.stringify(entry[side])}`)).join(', ');
		changes.push({role, from: describe('from'), to: describe('to')});
	}
	return changes;
}

/** The session with the runtime's settings for the changed roles, each change recorded from the next step on. */
function withModelChanges(session: Session, changes: readonly RoleChange[], runtime: Pick<Runtime, 'gateway'>): Session {
	const step = session.steps.length + 1;
	const roles = {...session.config.roles};
	const models = {...session.config.models};
	for (const {role} of changes) {
		roles[role] = runtime.gateway.settings(role);
		models[role] = role === 'judge' ? judgeModelName(roles[role]) : roles[role].model;
	}
	return {
		...session,
		config: {
			...session.config,
			roles,
			models,
			mock: session.config.mock || changes.some(({role}) => roles[role].provider === 'mock'),
			modelChanges: [...(session.config.modelChanges ?? []), ...changes.map((change) => ({step, ...change}))],
		},
	};
}

/**
 * The model of every role that reproduces the models a session was started with (as a --<role>-model
 * flag would name it): resuming uses them unless the user names other models (scores from different
 * models are not comparable).
 */
export function modelFlagsOf(session: Pick<Session, 'config'>): Record<ModelRole, string> {
	const out = {} as Record<ModelRole, string>;
	for (const role of ModelRole.options) {
		const settings = session.config.roles[role];
		out[role] = settings.provider === 'replay' && settings.replayFile ? `replay:${settings.replayFile}` : settings.model;
	}
	return out;
}
