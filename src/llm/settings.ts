import path from 'node:path';
import type {FlagSpec, Flags} from '../commands/types.js';
import {ModelRole, type ResponseFormatMode, type RoleSettings} from '../domain/session.js';
import {UserError} from '../util/errors.js';
import {CONFIG_FILE_NAME, type ConfigFile, MODEL_DEFAULTS, type RoleConfig, loadConfigFile} from './config.js';
import {dialectOf, fitToModel} from './modelFamily.js';

/** Flags every command that calls models accepts (merge into a command's `flags`). */
export const modelFlags: Record<string, FlagSpec> = {
	config: {type: 'string', description: 'Config file (default: ./cultureconverse.config.json when present)'},
	model: {type: 'string', description: 'Model for every role not named otherwise (by a --<role>-model flag or the role\'s entry in the config file)'},
	generatorModel: {type: 'string', description: 'Model for blueprint and shard generation ("mock", "replay:FILE" or a model name)'},
	validatorModel: {type: 'string', description: 'Model for blueprint and shard audits'},
	simulatorModel: {type: 'string', description: 'Model for the simulated user'},
	assistantModel: {type: 'string', description: 'Model for the assistant under test'},
	judgeModel: {type: 'string', description: 'Model for the judge'},
	baseUrl: {type: 'string', description: 'OpenAI-compatible endpoint for every role (overrides OPENAI_BASE_URL and the config file)'},
	cache: {type: 'boolean', default: true, description: 'Use the response cache (--no-cache to call the model every time)'},
	record: {type: 'string', description: 'Append every model exchange to this JSONL file (play it back with --<role>-model replay:FILE)'},
	concurrency: {type: 'number', description: `Model calls in flight at once, across roles (default ${MODEL_DEFAULTS.concurrency})`},
	stream: {type: 'boolean', default: true, description: '--no-stream asks for whole replies in every role (e.g. for an OpenAI organisation that is not verified); by default streaming is auto: tried, and dropped for the run if the server refuses it'},
	preflight: {type: 'boolean', default: true, description: 'Before model work, check that every endpoint answers and lists every role\'s model (--no-preflight skips it)'},
	maxReplyKb: {type: 'number', description: 'Largest reply read from a model, in KB, for every role (default 256 for the assistant, 64 for the others); a longer one is cut there and recorded as cut'},
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
	/** Roles on an endpoint that is not OpenAI's with no model named anywhere: a command that uses one refuses to start (`requireRoles`). */
	readonly unset: readonly ModelRole[];
	/** USD per million tokens from the config file, over the built-in list. */
	readonly prices: Readonly<Record<string, {readonly input: number; readonly output: number}>>;
	/** Check endpoints before model work (`--no-preflight` turns it off). */
	readonly preflight: boolean;
};

const ROLES = ModelRole.options;

/**
 * Resolves every role's settings. Precedence: `--<role>-model` > the role's config entry > `--model`
 * > the config file's top-level `model` > the default; endpoints: `--base-url` > the role's config >
 * the config's top level > OPENAI_BASE_URL. With no base URL and no API key anywhere, roles default
 * to the offline mock. On OpenAI's own endpoint an unnamed role gets `gpt-5-mini`; on any other
 * endpoint (vLLM, Ollama, llama.cpp, OpenRouter, a proxy) there is no default model, so an unnamed
 * role is listed in `unset` and a command that needs it stops with a message naming the role and
 * the flag (a silent `gpt-5-mini` only ever produced a 404). `"mock"` selects the mock,
 * `"replay:FILE"` plays back a recording. Settings a reasoning model would reject are dropped with a
 * notice (`fitToModel`).
 *
 * @example
 * const settings = resolveRoleSettings({flags: cli.flags, env: io.env, cwd: io.cwd});
 * requireRoles(settings, ['assistant', 'judge']);
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
	const streamFlag = flags['stream'];

	const roles = {} as Record<ModelRole, RoleSettings>;
	const apiKeyEnv = {} as Record<ModelRole, string>;
	const unset: ModelRole[] = [];
	for (const role of ROLES) {
		const rc = roleConfig(role);
		const named = stringFlag(flags, `${role}Model`) ?? rc.model ?? stringFlag(flags, 'model') ?? config.model;
		const baseURL = baseURLOf(role);
		const onOpenAI = baseURL === null || (rc.dialect ?? config.dialect ?? dialectOf(baseURL)) === 'openai';
		const model = named ?? (offline ? 'mock' : onOpenAI ? MODEL_DEFAULTS.model : '');
		if (model === '') unset.push(role);
		const common = {
			temperature: rc.temperature ?? null,
			maxTokens: rc.maxTokens ?? null,
			timeoutMs: rc.timeoutMs ?? MODEL_DEFAULTS.timeoutMs,
			structured: rc.structured ?? (MODEL_DEFAULTS.structured as ResponseFormatMode),
			reasoningEffort: rc.reasoningEffort ?? null,
			...optional('stream', streamFlag === false ? false : (rc.stream ?? config.stream)),
			...optional('extraBody', rc.extraBody),
			...optional('dialect', rc.dialect ?? config.dialect),
			...optional('supportsN', rc.supportsN),
			...optional('maxReplyKB', replyKBFlag(flags) ?? rc.maxReplyKB ?? config.maxReplyKB),
		};
		roles[role] = {...common, ...providerOf(model, cwd), baseURL: null};
		if (roles[role].provider === 'openai') {
			roles[role] = fitToModel({...roles[role], baseURL});
			if (baseURL === null && model !== '' && !nonEmpty(env[keyEnvOf(role)])) {
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
		unset,
		prices: config.prices ?? {},
		preflight: flags['preflight'] !== false,
	};
}

/**
 * Stops a command before it starts when a role it uses has no model (an endpoint other than
 * OpenAI's has no default): one message naming every such role, the endpoint and the flags to set.
 */
export function requireRoles(settings: Pick<ModelSettings, 'unset' | 'roles'>, needed: readonly ModelRole[]): void {
	const missing = needed.filter((role) => settings.unset.includes(role));
	if (missing.length === 0) return;
	const endpoints = [...new Set(missing.map((role) => settings.roles[role].baseURL ?? 'the default endpoint'))];
	const flags = missing.map((role) => `--${role}-model`).join(', ');
	throw new UserError(
		`No model is set for the ${listOf(missing)} role${missing.length > 1 ? 's' : ''} on ${endpoints.join(', ')}. ` +
			`Only OpenAI's own endpoint has a default model; name yours with --model NAME (every role), or ${flags}, or "model" in ${CONFIG_FILE_NAME}. ` +
			'`cultureconverse doctor` lists the models the server offers.',
	);
}

function listOf(items: readonly string[]): string {
	return items.length <= 1 ? (items[0] ?? '') : `${items.slice(0, -1).join(', ')} and ${items[items.length - 1]}`;
}

function optional<K extends string, V>(key: K, value: V | undefined): Partial<Record<K, V>> {
	return value === undefined ? {} : ({[key]: value} as Record<K, V>);
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

/** `--max-reply-kb N`: the reply-size limit of every role (llm/replyLimit.ts), over the config's. */
function replyKBFlag(flags: Flags): number | undefined {
	const value = flags['maxReplyKb'];
	if (value === undefined) return undefined;
	if (typeof value !== 'number' || !Number.isFinite(value) || value <= 0 || value > 1024 * 1024) throw new UserError(`--max-reply-kb must be a number of kilobytes above 0 (got ${String(value)}).`);
	return value;
}
