import path from 'node:path';
import {ModelRole, ProviderPreset, type ResponseFormatMode, type RoleSettings} from '../domain/session.js';
import {UserError} from '../util/errors.js';
import {nearMatches} from '../util/suggest.js';
import {CONFIG_FILE_NAME, type ConfigFile, MODEL_DEFAULTS, type RoleConfig, loadConfigFile} from './config.js';
import {azureShape} from './client.js';
import {fitToModel} from './modelFamily.js';
import {PRESETS, guessPreset, isLoopback, presetOfDialect} from './presets.js';

/**
 * What a caller chose about models, before the config file, env and defaults are applied. The face
 * builds it from its flags (commands/modelFlags.ts: --config, --model, --<role>-model, ...) and has
 * checked their syntax; a batch's worker threads receive it as it is. Absent means "not chosen".
 */
export type ModelOptions = {
	/** Config file to read. @default ./cultureconverse.config.json when present */
	readonly config?: string;
	/** Model of every role not named otherwise (by `roleModels` or the role's config entry). */
	readonly model?: string;
	/** Model per role ("mock", "replay:FILE" or a model name), over the role's config entry. */
	readonly roleModels?: Readonly<Partial<Record<ModelRole, string>>>;
	/** OpenAI-compatible endpoint of every role, over OPENAI_BASE_URL and the config file. */
	readonly baseUrl?: string;
	/** Provider preset of every role's endpoint. @default guessed from the base URL */
	readonly provider?: string;
	/** false: no response cache. @default the config file's, else true */
	readonly cache?: boolean;
	/** Append every model exchange to this JSONL file (relative to cwd). */
	readonly record?: string;
	/** Model calls in flight at once, across roles (a positive whole number). @default the config file's, else MODEL_DEFAULTS.concurrency */
	readonly concurrency?: number;
	/** false: whole replies in every role. @default auto (the role's or config file's choice) */
	readonly stream?: boolean;
	/** false: no endpoint check before model work. @default true */
	readonly preflight?: boolean;
	/** Largest reply read from a model, in KB, for every role (above 0). @default the config file's */
	readonly maxReplyKb?: number;
};

export type RetryPolicy = {
	/** HTTP attempts per request, the first included. @default 5 */
	readonly maxAttempts: number;
	/** Ceiling of the first backoff; doubles per attempt (full jitter). @default 1000 */
	readonly baseDelayMs: number;
	/** Largest backoff ceiling. @default 30000 */
	readonly maxDelayMs: number;
};

/** Everything `createGateway` needs, resolved from the caller's options, config file, env and defaults. */
export type ModelSettings = {
	readonly roles: Readonly<Record<ModelRole, RoleSettings>>;
	/** Name of the env var that holds each role's API key (the key itself is read at call time). */
	readonly apiKeyEnv: Readonly<Record<ModelRole, string>>;
	readonly concurrency: number;
	readonly adaptiveConcurrency: boolean;
	/** How rate limits are met (llm/limiter.ts `Pacing`); absent means 'headers'. */
	readonly rateLimitPacing?: 'headers' | 'aimd';
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
 * const settings = resolveRoleSettings({options: modelOptionsFromFlags(cli.flags), env: io.env, cwd: io.cwd});
 * requireRoles(settings, ['assistant', 'judge']);
 * const gateway = createGateway(gatewayOptions(settings, {env: io.env, workspaceDir: workspaceDir(io.env, io.cwd)}));
 */
export function resolveRoleSettings(input: {options: ModelOptions; env: NodeJS.ProcessEnv; cwd: string}): ModelSettings {
	const {options, env, cwd} = input;
	const loaded = loadConfigFile({explicit: options.config, cwd});
	const config: ConfigFile = loaded?.config ?? {};
	const flagBaseURL = options.baseUrl;
	if (flagBaseURL !== undefined && !/^https?:\/\/\S+$/.test(flagBaseURL)) throw new UserError(`--base-url '${flagBaseURL}' is not an http(s) URL.`);

	const flagProvider = options.provider;
	if (flagProvider !== undefined && !ProviderPreset.safeParse(flagProvider).success) {
		const near = nearMatches(flagProvider, ProviderPreset.options, 2);
		throw new UserError(`--provider '${flagProvider}' is not a provider this tool knows${near.length > 0 ? ` (did you mean ${near.join(' or ')}?)` : ''}: use one of ${ProviderPreset.options.join(', ')}.`);
	}

	const roleConfig = (role: ModelRole): RoleConfig => config.roles?.[role] ?? {};
	// The preset a role names (flag, role, top level, the older "dialect"); undefined = guess from the URL.
	const namedPresetOf = (role: ModelRole): ProviderPreset | undefined =>
		(flagProvider as ProviderPreset | undefined) ?? roleConfig(role).provider ?? config.provider ?? presetOfDialect(roleConfig(role).dialect ?? config.dialect);
	const baseURLOf = (role: ModelRole) => {
		const given = flagBaseURL ?? roleConfig(role).baseURL ?? config.baseURL ?? nonEmpty(env['OPENAI_BASE_URL']);
		if (given !== undefined) return given;
		const named = namedPresetOf(role);
		// OpenAI's own endpoint stays null (the SDK default); other presets go where their docs say.
		return named === undefined || named === 'openai' ? null : PRESETS[named].baseURL;
	};
	const keyEnvOf = (role: ModelRole) => {
		const set = roleConfig(role).apiKeyEnv ?? config.apiKeyEnv;
		if (set) return set;
		// The provider's own variable (GROQ_API_KEY, GEMINI_API_KEY, ...) when it is set; else OPENAI_API_KEY.
		const documented = PRESETS[namedPresetOf(role) ?? guessPreset(baseURLOf(role))].keyEnv;
		return documented && nonEmpty(env[documented]) ? documented : MODEL_DEFAULTS.apiKeyEnv;
	};
	const offline = ROLES.every((role) => baseURLOf(role) === null && !nonEmpty(env[keyEnvOf(role)])) && !nonEmpty(env[MODEL_DEFAULTS.apiKeyEnv]);
	const streamFlag = options.stream;

	const roles = {} as Record<ModelRole, RoleSettings>;
	const apiKeyEnv = {} as Record<ModelRole, string>;
	const unset: ModelRole[] = [];
	for (const role of ROLES) {
		const rc = roleConfig(role);
		const named = options.roleModels?.[role] ?? rc.model ?? options.model ?? config.model;
		const namedPreset = namedPresetOf(role);
		if (namedPreset === 'azure' && baseURLOf(role) === null) {
			throw new UserError(`The ${role} role is on Azure OpenAI but has no base URL: set --base-url (or "baseURL") to your resource, e.g. https://RESOURCE.openai.azure.com/openai/v1/ (the v1 API) or https://RESOURCE.openai.azure.com (deployments URL; the model is then the deployment name).`);
		}
		const baseURL = baseURLOf(role);
		const preset = namedPreset ?? guessPreset(baseURL);
		const model = named ?? (offline ? 'mock' : preset === 'openai' ? MODEL_DEFAULTS.model : preset === 'azure' && baseURL ? (azureDeploymentOf(baseURL) ?? '') : '');
		if (model === '') unset.push(role);
		const common = {
			temperature: rc.temperature ?? null,
			maxTokens: rc.maxTokens ?? null,
			timeoutMs: rc.timeoutMs ?? MODEL_DEFAULTS.timeoutMs,
			structured: rc.structured ?? config.structured ?? (MODEL_DEFAULTS.structured as ResponseFormatMode),
			reasoningEffort: rc.reasoningEffort ?? null,
			...optional('stream', streamFlag === false ? false : (rc.stream ?? config.stream)),
			...optional('extraBody', rc.extraBody),
			...optional('dialect', rc.dialect ?? config.dialect),
			...optional('supportsN', rc.supportsN),
			...optional('schemaFidelity', fixedFidelity(rc.schemaFidelity ?? config.schemaFidelity)),
			...optional('maxReplyKB', options.maxReplyKb ?? rc.maxReplyKB ?? config.maxReplyKB),
		};
		roles[role] = {...common, ...providerOf(model, cwd), baseURL: null};
		if (roles[role].provider === 'openai') {
			const wire = {preset, ...(namedPreset === undefined ? {presetGuessed: true} : {}), ...optional('family', rc.family ?? config.family), ...optional('apiVersion', rc.apiVersion ?? config.apiVersion)};
			roles[role] = fitToModel({...roles[role], baseURL, ...wire});
			if (model !== '' && !nonEmpty(env[keyEnvOf(role)])) requireKey(role, model, baseURL, preset, keyEnvOf(role));
		}
		apiKeyEnv[role] = keyEnvOf(role);
	}

	const retry = config.retry ?? {};
	return {
		roles,
		apiKeyEnv,
		concurrency: options.concurrency ?? config.concurrency ?? MODEL_DEFAULTS.concurrency,
		adaptiveConcurrency: config.adaptiveConcurrency ?? true,
		rateLimitPacing: config.rateLimitPacing ?? 'headers',
		cache: options.cache === false ? false : (config.cache ?? MODEL_DEFAULTS.cache),
		retry: {
			maxAttempts: retry.maxAttempts ?? MODEL_DEFAULTS.retry.maxAttempts,
			baseDelayMs: retry.baseDelayMs ?? MODEL_DEFAULTS.retry.baseDelayMs,
			maxDelayMs: retry.maxDelayMs ?? MODEL_DEFAULTS.retry.maxDelayMs,
		},
		validationRetries: config.validationRetries ?? MODEL_DEFAULTS.validationRetries,
		record: options.record === undefined ? null : path.resolve(cwd, options.record),
		configFile: loaded?.file ?? null,
		offline,
		unset,
		prices: config.prices ?? {},
		preflight: options.preflight !== false,
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
			'`npx cultureconverse doctor` lists the models the server offers.',
	);
}

/**
 * A hosted provider always needs a key: stop before anything runs when none is set, naming the
 * variables read. Local servers and loopback URLs (a test server, a tunnel) are left to answer.
 */
function requireKey(role: ModelRole, model: string, baseURL: string | null, preset: ProviderPreset, keyEnv: string): void {
	const row = PRESETS[preset];
	if (row.local || preset === 'compatible' || isLoopback(baseURL)) return;
	// A variable the role names itself is the only one read; otherwise the provider's own, then OPENAI_API_KEY.
	const names = keyEnv !== MODEL_DEFAULTS.apiKeyEnv && keyEnv !== row.keyEnv ? [keyEnv] : [...new Set([row.keyEnv ?? keyEnv, MODEL_DEFAULTS.apiKeyEnv])];
	throw new UserError(`The ${role} role uses ${model} on ${row.label} (${baseURL ?? 'https://api.openai.com/v1'}) but no API key is set: set ${names.join(' or ')}, or name your own variable with "apiKeyEnv"; or use --${role}-model mock.`);
}

/** The deployment an Azure deployments URL names (it is then the role's model unless one is named). */
function azureDeploymentOf(baseURL: string): string | null {
	try {
		const shape = azureShape(baseURL, undefined);
		return shape.kind === 'deployments' ? shape.deployment : null;
	} catch {
		return null;
	}
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
	if (model === 'mock' || model === 'mock:rubric') return {provider: 'mock', model: 'mock', replayFile: null};
	if (model.startsWith('replay:')) {
		const file = model.slice('replay:'.length);
		if (!file) throw new UserError('A replay model needs a file: replay:PATH (a file written by --record).');
		return {provider: 'replay', model, replayFile: path.resolve(cwd, file)};
	}
	return {provider: 'openai', model, replayFile: null};
}

/** An explicit fidelity is kept on the role; auto is decided per call from the server's kind (llm/schemaFidelity.ts). */
function fixedFidelity(choice: 'auto' | 'portable' | 'enforced' | undefined): 'portable' | 'enforced' | undefined {
	return choice === 'auto' ? undefined : choice;
}

function nonEmpty(value: string | undefined): string | undefined {
	return value !== undefined && value.trim() !== '' ? value : undefined;
}
