import {randomBytes} from 'node:crypto';
import type {Seed} from '../domain/seed.js';
import {type AssistantKind, type JudgeMode, type LanguageMode, ModelRole, SESSION_VERSION, type Session, type SessionConfig} from '../domain/session.js';
import {judgeModelName} from '../domain/setup.js';
import type {ResolvedTemplate} from '../domain/template.js';
import type {Persona} from '../domain/universe.js';
import type {ModelGateway} from '../llm/types.js';

export type EpisodeOptions = {
	/** With a human assistant: show them the hidden panes from the start (recorded as `sawHidden`). @default false */
	readonly reveal?: boolean;
	/** @default 'english' */
	readonly language?: LanguageMode;
	/** llm = eval mode; gold = oracle-guided; human = typed by a person; replay = from a saved session. @default 'llm' */
	readonly assistant?: AssistantKind;
	/** Maximum user turns (paper: 5). @default 5 */
	readonly maxTurns?: number;
	/** @default 'separate' (one call per metric, as in the paper) */
	readonly judgeMode?: JudgeMode;
	/** Session id or path whose assistant turns a replay assistant plays back. */
	readonly replayFrom?: string | null;
	/** Fixed session id (tests, batch); generated otherwise. */
	readonly id?: string;
	/** Best-of-N: sample this many assistant replies per turn and keep the one the judge rates best. */
	readonly bestOf?: number | null;
	/** Repeat number of the seed in a batch (--trials); 1 or absent for a single run. */
	readonly trial?: number;
};

const ROLES = ModelRole.options;

export function sessionId(personaId: string, now: Date): string {
	const stamp = now.toISOString().replace(/[-:]/g, '').replace('T', '-').slice(0, 15);
	return `${stamp}-${personaId}-${randomBytes(2).toString('hex')}`;
}

export function buildConfig(gateway: ModelGateway, options: EpisodeOptions, extra: {prompts: Record<string, string>; embedder: string}): SessionConfig {
	const roles = Object.fromEntries(ROLES.map((role) => [role, gateway.settings(role)])) as SessionConfig['roles'];
	const assistant = options.assistant ?? 'llm';
	const assistantModel = assistant === 'human' ? 'human' : assistant === 'replay' ? `replay:${options.replayFrom ?? '?'}` : roles.assistant.model;
	const usesModel = (role: ModelRole) => role !== 'assistant' || assistant === 'llm' || assistant === 'gold';
	return {
		models: {generator: roles.generator.model, validator: roles.validator.model, simulator: roles.simulator.model, assistant: assistantModel, judge: judgeModelName(roles.judge)},
		roles,
		language: options.language ?? 'english',
		mode: assistant === 'gold' ? 'gold' : 'eval',
		assistant,
		maxTurns: options.maxTurns ?? 5,
		judgeMode: options.judgeMode ?? 'separate',
		replayFrom: options.replayFrom ?? null,
		prompts: extra.prompts,
		embedder: extra.embedder,
		mock: ROLES.some((role) => usesModel(role) && roles[role].provider === 'mock'),
		bestOf: options.bestOf ?? null,
		...(options.trial && options.trial > 1 ? {trial: options.trial} : {}),
	};
}

export function newSession(input: {seed: Seed; persona: Persona; template: ResolvedTemplate; config: SessionConfig; id?: string; now: Date}): Session {
	const at = input.now.toISOString();
	const {source: _source, ...template} = input.template;
	return {
		format: 'cultureconverse.session',
		version: SESSION_VERSION,
		id: input.id ?? sessionId(input.persona.id, input.now),
		createdAt: at,
		updatedAt: at,
		status: 'running',
		seed: input.seed,
		persona: input.persona,
		template,
		config: input.config,
		evidence: null,
		blueprint: null,
		shards: null,
		stageSteps: {blueprint: null, shards: null},
		turns: [],
		shardIndex: 0,
		judge: null,
		error: null,
		termination: null,
		steps: [],
		calls: [],
	};
}
