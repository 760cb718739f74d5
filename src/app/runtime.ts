import {existsSync, statSync} from 'node:fs';
import path from 'node:path';
import type {EvidenceSource} from '../episode/engine.js';
import {createGateway, gatewayOptions} from '../llm/gateway.js';
import {type ModelOptions, type ModelSettings, requireRoles, resolveRoleSettings} from '../llm/settings.js';
import {preflight} from '../llm/preflight.js';
import {type CostEstimate, estimateCost} from '../llm/pricing.js';
import {type UsageSummary, summarizeCalls} from '../llm/usage.js';
import type {CallRecord, RoleSettings} from '../domain/session.js';
import type {Limiter} from '../llm/limiter.js';
import {type AssistantKind, ModelRole} from '../domain/session.js';
import type {ModelGateway} from '../llm/types.js';
import {registerMocks} from '../mock/index.js';
import {SessionStore} from '../store/sessionStore.js';
import type {Universe} from '../universe/load.js';
import {UserError} from '../util/errors.js';
import type {Streams} from '../util/streams.js';
import {workspaceDir} from '../util/paths.js';
import {createEvidenceSource} from '../kb/evidenceSource.js';

/**
 * What a caller chose for a runtime: the models (`ModelOptions`), the sessions folder and the KB
 * embedder. The face builds it from its flags (commands/runtimeFlags.ts); a batch's worker threads
 * receive it as it is.
 */
export type RuntimeOptions = ModelOptions & {
	/** Folder of session files, relative to cwd. @default env CULTURECONVERSE_SESSIONS_DIR, else ./sessions */
	readonly sessionsDir?: string;
	/** KB embedder: hf:<model-id>, local:<folder> or hash. @default env CULTURECONVERSE_EMBEDDER, else the multilingual default */
	readonly embedder?: string;
};

/** Everything a command needs to run episodes: one gateway, one store, one evidence source. */
export type Runtime = {
	readonly universe: Universe;
	readonly settings: ModelSettings;
	readonly gateway: ModelGateway;
	readonly store: SessionStore;
	readonly evidence: EvidenceSource;
	readonly embedderId: () => string;
	readonly workspace: string;
	/**
	 * Checks the endpoints of `roles` before model work (see `preflight`); stops with exit 2 on a set-up
	 * that cannot work. Done once per runtime and role set.
	 */
	readonly check: (roles: readonly ModelRole[]) => Promise<void>;
};

/** The roles an episode calls: every role, except the assistant when a person or a recording plays it. */
export function episodeRoles(assistant: AssistantKind): ModelRole[] {
	return ModelRole.options.filter((role) => role !== 'assistant' || assistant === 'llm' || assistant === 'gold');
}

/** The sessions folder: `dir` (relative to cwd) when given, else CULTURECONVERSE_SESSIONS_DIR, else ./sessions. */
export function sessionsDir(dir: string | undefined, io: Pick<Streams, 'cwd' | 'env'>): string {
	const resolved = path.resolve(io.cwd, dir ?? io.env['CULTURECONVERSE_SESSIONS_DIR'] ?? 'sessions');
	// Caught here, before an episode runs, rather than as a failed save after its first model call.
	if (existsSync(resolved) && !statSync(resolved).isDirectory()) throw new UserError(`The sessions folder ${resolved} is a file, not a folder (--sessions-dir or CULTURECONVERSE_SESSIONS_DIR).`);
	return resolved;
}

/**
 * `roles`: the roles the command will call; one of them without a model (an endpoint other than
 * OpenAI's has no default) stops the command here, before anything runs.
 */
export function createRuntime(input: {options: RuntimeOptions; io: Streams; universe: Universe; roles?: readonly ModelRole[]; limiter?: Limiter; quiet?: boolean; settings?: ModelSettings}): Runtime {
	registerMocks();
	const {options, io, universe} = input;
	const workspace = workspaceDir(io.env, io.cwd);
	// A queue worker runs with the settings its batch recorded (src/queue/spec.ts), not its own flags.
	const settings = input.settings ?? resolveRoleSettings({options, env: io.env, cwd: io.cwd});
	requireRoles(settings, input.roles ?? ModelRole.options);
	if (!input.quiet) for (const role of input.roles ?? ModelRole.options) for (const notice of settings.roles[role].notices ?? []) io.stderr.write(`cultureconverse: ${role}: ${notice}\n`);
	const gateway = createGateway({...gatewayOptions(settings, {env: io.env, workspaceDir: workspace}), ...(input.limiter ? {limiter: input.limiter} : {})});
	const evidence = createEvidenceSource({
		universe,
		env: io.env,
		cwd: io.cwd,
		embedder: options.embedder,
		warn: (message) => io.stderr.write(`cultureconverse: ${message}\n`),
	});
	const checked = new Set<string>();
	const check = async (roles: readonly ModelRole[]) => {
		const key = [...roles].sort().join(',');
		if (checked.has(key)) return;
		await preflight(settings, roles, {env: io.env, warn: (message) => io.stderr.write(`cultureconverse: ${message}\n`)});
		checked.add(key);
	};
	// A stale session lock taken over is said (on a worker thread, stderr reaches the coordinator as a notice).
	return {universe, settings, gateway, store: new SessionStore(sessionsDir(options.sessionsDir, io), {onNotice: (message) => io.stderr.write(`cultureconverse: ${message}\n`)}), evidence: evidence.source, embedderId: evidence.embedderId, workspace, check};
}

/*
 * Services front ends reach the model layer through (the TUI imports nothing from src/llm): the model
 * each role would resolve to, and what a session's calls used and cost.
 */

/** The model every role would use with these options and this environment; throws a UserError when they cannot work. */
export function resolveRoles(options: ModelOptions, io: Pick<Streams, 'env' | 'cwd'>): Readonly<Record<ModelRole, RoleSettings>> {
	return resolveRoleSettings({options, env: io.env, cwd: io.cwd}).roles;
}

/** Tokens, calls and the estimated price of a session's calls so far (cached and mock calls cost nothing). */
export function sessionUsage(calls: readonly CallRecord[]): {readonly usage: UsageSummary; readonly cost: CostEstimate} {
	return {usage: summarizeCalls(calls), cost: estimateCost(calls)};
}
