import path from 'node:path';
import type {FlagSpec, Flags} from '../commands/types.js';
import {ModelRole, type ResponseFormatMode, type RoleSettings} from '../domain/session.js';
import {UserError} from '../util/errors.js';
import {type ConfigFile, MODEL_DEFAULTS, type RoleConfig, loadConfigFile} from './config.js';

/** Flags every command that calls models accepts (merge into a command's `flags`). */
export const modelFlags: Record<string, FlagSpec> = {
	config: {type: 'string', description: 'Config file (default: ./cultureconverse.config.json when present)'},
	generatorModel: {type: 'string', description: 'Model for blueprint and shard generation ("mock", "replay:FILE" or a model name)'},
	validatorModel: {type: 'string', description: 'Model for blueprint and shard audits'},
	simulatorModel: {type: 'string', description: 'Model for the simulated user'},
	assistantModel: {type: 'string', description: 'Model for the assistant under test'},
	judgeModel: {type: 'string', description: 'Model for the judge'},
	baseUrl: {type: 'string', description: 'OpenAI-compatible endpoint for every role (overrides OPENAI_BASE_URL and the config file)'},
	cache: {type: 'boolean', default: true, description: 'Use the response cache (--no-cache to call the model every time)'},
	record: {type: 'string', description: 'Append every model exchange to this JSONL file (play it back with --<role>-model replay:FILE)'},
	concurrency: {type: 'number', description: `Model calls in flight at once, across roles (default ${MODEL_DEFAULTS.concurrency})`},
};

export type RetryPolicy = {
	/** HTTP attempts per request, the first included. @default 5 */
	readonly maxAttempts: number;
	/** Ceiling of the first backoff; doubles per attempt (full jitter). @default 1000 */
	readonly baseDelayMs: number;
	/** Largest backoff ceiling. @default 30000 */
	readonly maxDelayMs: number;
};

/** Everything `createGateway` needs, resolved from flags, config file, env and defaults. */
export type ModelSettings = {
	readonly roles: Readonly<Record<ModelRole, RoleSettings>>;
	/** Name of the env var that holds each role's API key (the key itself is read at call time). */
	readonly apiKeyEnv: Readonly<Record<ModelRole, string>>;
	readonly concurrency: number;
	readonly adaptiveConcurrency: boolean;
	readonly cache: boolean;
	readonly retry: RetryPolicy;
	readonly validationRetries: number;
	/** Absolute path of the --record file, or null. */
	readonly record: string | null;
	/** Absolute path of the config file read, or null. */
	readonly configFile: string | null;
	/** True when no base URL and no API key was found anywhere: unnamed roles run on the mock. */
	readonly offline: boolean;
};

const ROLES = ModelRole.options;

/**
 * Resolves every role's settings. Precedence: flags > config file > env (OPENAI_BASE_URL and the key
 * variables) > defaults. With no base URL and no API key anywhere, roles default to the offline mock;
 * once any endpoint is configured they default to `gpt-5-mini` on it, and only an explicit
 * `"mock"` model selects the mock. `"replay:FILE"` plays back a recording.
 *
 * @example
 * const settings = resolveRoleSettings({flags: cli.flags, env: io.env, cwd: io.cwd});
 * const gateway = createGateway(gatewayOptions(settings, {env: io.env, workspaceDir: workspaceDir(io.env, io.cwd)}));
 */
export function resolveRoleSettings(options: {flags: Flags; env: NodeJS.ProcessEnv; cwd: string}): ModelSettings {
	const {flags, env, cwd} = options;
	const loaded = loadConfigFile({explicit: stringFlag(flags, 'config'), cwd});
	const config: ConfigFile = loaded?.config ?? {};
	const flagBaseURL = stringFlag(flags, 'baseUrl');
	if (flagBaseURL !== undefined && !/^https?:\/\/\S+$/.test(flagBaseURL)) throw new UserError(`--base-url '${flagBaseURL}' is not an http(s) URL.`);

	const roleConfig = (role: ModelRole): RoleConfig => config.roles?.[role] ?? {};
	const keyEnvOf = (role: ModelRole) => roleConfig(role).apiKeyEnv ?? config.apiKeyEnv ?? MODEL_DEFAULTS.apiKeyEnv;
	const baseURLOf = (role: ModelRole) => flagBaseURL ?? roleConfig(role).baseURL ?? config.baseURL ?? nonEmpty(env['OPENAI_BASE_URL']) ?? null;
	const offline = ROLES.every((role) => baseURLOf(role) === null && !nonEmpty(env[keyEnvOf(role)])) && !nonEmpty(env[MODEL_DEFAULTS.apiKeyEnv]);

	const roles = {} as Record<ModelRole, RoleSettings>;
	const apiKeyEnv = {} as Record<ModelRole, string>;
	for (const role of ROLES) {
		const rc = roleConfig(role);
		const model = stringFlag(flags, `${role}Model`) ?? rc.model ?? config.model ?? (offline ? 'mock' : MODEL_DEFAULTS.model);
		const common = {
			temperature: rc.temperature ?? null,
			maxTokens: rc.maxTokens ?? null,
			timeoutMs: rc.timeoutMs ?? MODEL_DEFAULTS.timeoutMs,
			structured: rc.structured ?? (MODEL_DEFAULTS.structured as ResponseFormatMode),
			reasoningEffort: rc.reasoningEffort ?? null,
		};
		roles[role] = {...common, ...providerOf(model, cwd), baseURL: null};
		if (roles[role].provider === 'openai') {
			roles[role] = {...roles[role], baseURL: baseURLOf(role)};
			if (roles[role].baseURL === null && !nonEmpty(env[keyEnvOf(role)])) {
				throw new UserError(`The ${role} role uses ${model} on api.openai.com but the environment variable ${keyEnvOf(role)} (its apiKeyEnv) is not set. Set it, or give the role a baseURL, or use --${role}-model mock.`);
			}
		}
		apiKeyEnv[role] = keyEnvOf(role);
	}

	const retry = config.retry ?? {};
	return {
		roles,
		apiKeyEnv,
		concurrency: concurrencyOf(flags, config),
		adaptiveConcurrency: config.adaptiveConcurrency ?? true,
		cache: flags['cache'] === false ? false : (config.cache ?? MODEL_DEFAULTS.cache),
		retry: {
			maxAttempts: retry.maxAttempts ?? MODEL_DEFAULTS.retry.maxAttempts,
			baseDelayMs: retry.baseDelayMs ?? MODEL_DEFAULTS.retry.baseDelayMs,
			maxDelayMs: retry.maxDelayMs ?? MODEL_DEFAULTS.retry.maxDelayMs,
		},
		validationRetries: config.validationRetries ?? MODEL_DEFAULTS.validationRetries,
		record: stringFlag(flags, 'record') === undefined ? null : path.resolve(cwd, stringFlag(flags, 'record')!),
		configFile: loaded?.file ?? null,
		offline,
	};
}

/** True when any role runs on the offline mock (its output is not a model measurement). */
export function usesMock(roles: Readonly<Record<ModelRole, RoleSettings>>): boolean {
	return ROLES.some((role) => roles[role].provider === 'mock');
}

/** "mock", "replay:FILE" or a real model name. */
function providerOf(model: string, cwd: string): Pick<RoleSettings, 'provider' | 'model' | 'replayFile'> {
	if (model === 'mock') return {provider: 'mock', model: 'mock', replayFile: null};
	if (model.startsWith('replay:')) {
		const file = model.slice('replay:'.length);
		if (!file) throw new UserError('A replay model needs a file: replay:PATH (a file written by --record).');
		return {provider: 'replay', model, replayFile: path.resolve(cwd, file)};
	}
	return {provider: 'openai', model, replayFile: null};
}

function concurrencyOf(flags: Flags, config: ConfigFile): number {
	const value = flags['concurrency'];
	if (value === undefined) return config.concurrency ?? MODEL_DEFAULTS.concurrency;
	if (typeof value !== 'number' || !Number.isInteger(value) || value < 1) throw new UserError(`--concurrency must be a positive whole number (got ${String(value)}).`);
	return value;
}

function stringFlag(flags: Flags, name: string): string | undefined {
	const value = flags[name];
	if (value === undefined || value === '') return undefined;
	if (typeof value !== 'string') throw new UserError(`--${name.replace(/[A-Z]/g, (c) => `-${c.toLowerCase()}`)} needs a value.`);
	return value;
}

function nonEmpty(value: string | undefined): string | undefined {
	return value !== undefined && value.trim() !== '' ? value : undefined;
}
