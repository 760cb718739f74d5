import {randomUUID} from 'node:crypto';
import path from 'node:path';
import {setTimeout as delay} from 'node:timers/promises';
import type {CallRecord, ModelRole, ProviderKind, RoleSettings} from '../domain/session.js';
import {type ResponseCache, createFileCache} from './cache.js';
import {type CallContext, CallRun} from './callRun.js';
import {type CapabilityStore, capabilitiesFile, capabilitiesOf, createCapabilityStore} from './capabilities.js';
import {MODEL_DEFAULTS} from './config.js';
import {type Limiter, type Pacing, createLimiter} from './limiter.js';
import {createMockProvider} from './mockProvider.js';
import {createOpenAIProvider} from './openaiProvider.js';
import type {Provider} from './provider.js';
import {type Recorder, createRecorder} from './recorder.js';
import {ReplaySource, createReplayProvider} from './replayProvider.js';
import type {ModelSettings, RetryPolicy} from './settings.js';
import {type CallEvent, ModelCallError, type ModelGateway, type ModelRequest} from './types.js';

export type GatewayOptions = {
	/** How each role reaches its model (from `resolveRoleSettings(...).roles`). */
	readonly settings: Readonly<Record<ModelRole, RoleSettings>>;
	/** Env var holding each role's API key. @default 'OPENAI_API_KEY' for every role */
	readonly apiKeyEnv?: Partial<Record<ModelRole, string>>;
	/** Workspace folder; the response cache lives in `<workspaceDir>/cache/`. */
	readonly workspaceDir: string;
	/** Use the content-addressed response cache. @default true */
	readonly cache?: boolean;
	/** Append every exchange to this JSONL file. @default null */
	readonly record?: string | null;
	/** Model calls in flight at once, across all roles. @default 4 */
	readonly concurrency?: number;
	/** Halve the calls in flight on a 429 and win them back one by one (AIMD). @default true */
	readonly adaptiveConcurrency?: boolean;
	/** How rate limits are met: by the server's rate headers, or AIMD alone (limiter.ts `Pacing`). @default 'headers' */
	readonly rateLimitPacing?: Pacing;
	/** @default {maxAttempts: 5, baseDelayMs: 1000, maxDelayMs: 30000} */
	readonly retry?: Partial<RetryPolicy>;
	/** Re-asks after an invalid structured reply. @default 2 */
	readonly validationRetries?: number;
	/** Where API keys are read from. @default process.env */
	readonly env?: NodeJS.ProcessEnv;
	/** Clock in epoch ms. @default Date.now */
	readonly now?: () => number;
	/** Waits between retries; injected so tests assert delays instead of waiting them. @default timers/promises setTimeout */
	readonly sleep?: (ms: number, signal?: AbortSignal) => Promise<void>;
	/** Jitter source in [0, 1). @default Math.random */
	readonly random?: () => number;
	/** Call id factory. @default crypto.randomUUID */
	readonly newId?: () => string;
	/** Pause between the mock provider's streamed words, in ms (from CULTURECONVERSE_MOCK_PACE_MS). @default 0 */
	readonly mockTokenDelayMs?: number;
	/** A limiter to share (one budget across the threads of a batch); default: a limiter of this gateway's own. */
	readonly limiter?: Limiter;
	/**
	 * What endpoints were found to accept (capabilities.ts). Default: the record `doctor` writes in the
	 * workspace (`<workspaceDir>/capabilities.json`), which runs read and extend; null negotiates in
	 * memory only.
	 */
	readonly capabilities?: CapabilityStore | null;
};

/** Gateway options from resolved settings plus the run's environment. */
export function gatewayOptions(settings: ModelSettings, context: {env: NodeJS.ProcessEnv; workspaceDir: string}): GatewayOptions {
	const {roles, apiKeyEnv, cache, record, concurrency, adaptiveConcurrency, rateLimitPacing, retry, validationRetries} = settings;
	const pace = Number(context.env['CULTURECONVERSE_MOCK_PACE_MS'] ?? 0);
	return {settings: roles, apiKeyEnv, cache, record, concurrency, adaptiveConcurrency, rateLimitPacing, retry, validationRetries, env: context.env, workspaceDir: context.workspaceDir, mockTokenDelayMs: Number.isFinite(pace) && pace > 0 ? Math.min(pace, 1000) : 0};
}

/**
 * The one door to every model, shared by all roles of a run: one limiter (a slot per HTTP attempt),
 * one cache, one recorder, one event stream. Each call runs as a CallRun.
 *
 * @example
 * const gateway = createGateway(gatewayOptions(resolveRoleSettings({options, env, cwd}), {env, workspaceDir}));
 * const {value} = await gateway.call({role: 'judge', stage: 'judge:honesty', prompt, schema: {name: 'judge_honesty', schema: Score}, mock: input, step});
 */
export function createGateway(options: GatewayOptions): ModelGateway {
	const env = options.env ?? process.env;
	const now = options.now ?? Date.now;
	const sleep = options.sleep ?? ((ms: number, signal?: AbortSignal) => delay(ms, undefined, {signal}));
	const random = options.random ?? Math.random;
	const newId = options.newId ?? randomUUID;
	const policy: RetryPolicy = {...MODEL_DEFAULTS.retry, ...options.retry};
	const validationRetries = options.validationRetries ?? MODEL_DEFAULTS.validationRetries;
	const limiter = options.limiter ?? createLimiter(options.concurrency ?? MODEL_DEFAULTS.concurrency, {adaptive: options.adaptiveConcurrency ?? true, pacing: options.rateLimitPacing ?? 'headers'});
	const cache: ResponseCache | null = options.cache === false ? null : createFileCache(path.join(options.workspaceDir, 'cache'));
	let recorder: Recorder | null = null;
	const record = options.record ?? null;
	const listeners = new Set<(event: CallEvent) => void>();
	const replaySources = new Map<string, ReplaySource>();
	const providers: Record<ProviderKind, Provider> = {
		openai: createOpenAIProvider({
			apiKeyFor: (role) => env[options.apiKeyEnv?.[role] ?? MODEL_DEFAULTS.apiKeyEnv],
			organization: env['OPENAI_ORG_ID'] ?? null,
			project: env['OPENAI_PROJECT_ID'] ?? null,
		}),
		mock: createMockProvider({tokenDelayMs: options.mockTokenDelayMs}),
		replay: createReplayProvider((file) => {
			let source = replaySources.get(file);
			if (!source) replaySources.set(file, (source = new ReplaySource(file)));
			return source;
		}),
	};

	const emit = (event: CallEvent) => {
		for (const listener of listeners) listener(event);
	};
	const noticed = new Set<string>();
	const capabilities = options.capabilities === undefined ? createCapabilityStore(capabilitiesFile(options.workspaceDir)) : (options.capabilities ?? createCapabilityStore(null));
	const apiKeyEnvs = [...new Set([MODEL_DEFAULTS.apiKeyEnv, ...Object.values(options.apiKeyEnv ?? {})])];
	const context: CallContext = {
		secrets: () => apiKeyEnvs.map((name) => env[name]).filter((key): key is string => typeof key === 'string' && key.length > 0),
		streamOff: new Set(),
		capabilities,
		firstNotice: (role, message) => {
			const key = `${role}\u0000${message}`;
			if (noticed.has(key)) return false;
			noticed.add(key);
			return true;
		},
		policy,
		validationRetries,
		limiter,
		cache,
		recorder: () => (record ? (recorder ??= createRecorder(record)) : null),
		emit,
		now,
		sleep,
		random,
		newId,
	};
	const settingsOf = (role: ModelRole): RoleSettings => {
		const settings = options.settings[role];
		if (!settings) throw new Error(`no model settings for role ${role}`);
		return settings;
	};
	const call = <T>(request: ModelRequest<T>) => {
		const settings = request.settings ?? settingsOf(request.role);
		// Commands check their roles up front (requireRoles); reaching this is a bug, not a set-up error.
		if (settings.provider === 'openai' && settings.model === '') throw new Error(`the ${request.role} role has no model (the command did not call requireRoles for it)`);
		return new CallRun(context, request, settings, providers[settings.provider]).run();
	};

	return {
		settings: settingsOf,
		call,
		async sample(request, count) {
			const settings = request.settings ?? settingsOf(request.role);
			const out: Array<{text: string; call: CallRecord}> = [];
			// `n` when the role says the server honours it, or (unset) when doctor found it does.
			const found = settings.provider === 'openai' ? capabilitiesOf(settings, capabilities.get(settings)).n : null;
			const useN = count > 1 && settings.supportsN !== false && (settings.supportsN === true || found === true) && capabilities.get(settings)?.n !== false;
			if (useN) {
				try {
					const response = await call({...request, n: count, sample: 0});
					for (const text of (response.texts ?? [response.text]).slice(0, count)) out.push({text, call: response.call});
				} catch (error) {
					// The server refuses `n` although the role says it supports it: best-of asks N times instead, said once and recorded.
					if (!(error instanceof ModelCallError) || (error.refused !== 'n' && error.refused !== 'routing')) throw error;
					capabilities.learn(settings, {n: false, refusal: {what: 'n', message: error.call.error ?? error.message}}, 'learned');
					const message = `the server refused n=${count} (${error.call.error ?? error.message}); best-of-${count} asks ${count} times instead (set "supportsN": false for the ${request.role} role)`;
					if (context.firstNotice(request.role, message)) {
						const notice = {type: 'notice', role: request.role, message} as const;
						emit(notice);
						request.onEvent?.(notice);
					}
				}
			}
			// Samples the server did not return (Ollama and llama.cpp ignore `n`), or every sample when it cannot.
			const missing = Array.from({length: count - out.length}, (_, i) => out.length + i);
			const more = await Promise.all(missing.map((sample) => call({...request, sample}).then((response) => ({text: response.text, call: response.call}))));
			return [...out, ...more];
		},
		capabilities(role, given) {
			const settings = given ?? settingsOf(role);
			return settings.provider === 'openai' ? capabilitiesOf(settings, capabilities.get(settings)) : null;
		},
		concurrency() {
			return {limit: limiter.limit, max: limiter.max};
		},
		onEvent(listener) {
			listeners.add(listener);
			return () => listeners.delete(listener);
		},
	};
}
