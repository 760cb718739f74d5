import type {RoleSettings} from '../domain/session.js';

/**
 * Which wire rules a request follows, decided from the endpoint and the model's family, never from
 * the host alone. This is the one place that knows them:
 *
 * - OpenAI reasoning models (o1, o3, o4-mini, the gpt-5 family except gpt-5-chat) reject `max_tokens`
 *   ("Use 'max_completion_tokens' instead", 400 unsupported_parameter) and any `temperature`/`top_p`
 *   other than the default (400 unsupported_value). GPT-5.1 and later accept sampling settings only
 *   with `reasoning_effort: "none"`. This holds wherever the model is served: api.openai.com, Azure's
 *   `/openai/v1` (whose host is not api.openai.com), or a proxy.
 * - api.openai.com and Azure take `max_completion_tokens` for every chat model; most other
 *   OpenAI-compatible servers (older vLLM, llama.cpp, Ollama) only know `max_tokens`.
 * - OpenRouter documents `max_tokens` for every model (it translates for the upstream provider) and
 *   a unified `reasoning: {effort}` object.
 */
export type ServerDialect = 'openai' | 'azure' | 'openrouter' | 'compatible';

export function dialectOf(baseURL: string | null): ServerDialect {
	if (baseURL === null) return 'openai';
	let url: URL;
	try {
		url = new URL(baseURL);
	} catch {
		return 'compatible';
	}
	const host = url.hostname.toLowerCase();
	if (host === 'api.openai.com') return 'openai';
	if (host.endsWith('.openai.azure.com') || host.endsWith('.cognitiveservices.azure.com') || /\/openai(\/|$)/.test(url.pathname)) return 'azure';
	if (host === 'openrouter.ai' || host.endsWith('.openrouter.ai')) return 'openrouter';
	return 'compatible';
}

/** The model name without a router's vendor prefix ("openai/gpt-5-mini") or an Ollama tag (":latest"). */
export function bareModel(model: string): string {
	const last = model.split('/').pop() ?? model;
	return last.toLowerCase();
}

/** True for OpenAI's reasoning families: o1, o3, o4, and gpt-5* except the non-reasoning gpt-5-chat. */
export function isReasoningFamily(model: string): boolean {
	const name = bareModel(model);
	if (/^gpt-5(\.\d+)?-chat/.test(name)) return false;
	return /^o[134](-|$)/.test(name) || /^gpt-5/.test(name);
}

/** GPT-5.1 and later accept temperature/top_p when reasoning is switched off (`reasoning_effort: "none"`). */
function samplingAllowed(model: string, effort: RoleSettings['reasoningEffort']): boolean {
	return effort === 'none' && /^gpt-5\.[1-9]/.test(bareModel(model));
}

export type WireRules = {
	readonly tokenField: 'max_completion_tokens' | 'max_tokens';
	/** Whether temperature / top_p may be sent. */
	readonly sampling: boolean;
	/** How reasoning effort is sent. */
	readonly effortField: 'reasoning_effort' | 'reasoning.effort';
};

export function wireRules(settings: Pick<RoleSettings, 'model' | 'baseURL' | 'reasoningEffort' | 'dialect'>): WireRules {
	const dialect = settings.dialect ?? dialectOf(settings.baseURL);
	const reasoning = isReasoningFamily(settings.model);
	const tokenField = dialect === 'openrouter' ? 'max_tokens' : reasoning || dialect === 'openai' || dialect === 'azure' ? 'max_completion_tokens' : 'max_tokens';
	return {tokenField, sampling: !reasoning || samplingAllowed(settings.model, settings.reasoningEffort), effortField: dialect === 'openrouter' ? 'reasoning.effort' : 'reasoning_effort'};
}

const SAMPLING_KEYS = ['temperature', 'top_p'] as const;

/**
 * Settings as they will be sent: sampling values a reasoning model would reject are dropped, each
 * with a notice that is printed once and recorded in the session (so a reader sees the setting did
 * not take effect, rather than a 400 on every call).
 */
export function fitToModel(settings: RoleSettings): RoleSettings {
	if (settings.provider !== 'openai') return settings;
	const rules = wireRules(settings);
	if (rules.sampling) return settings;
	const notices: string[] = [...(settings.notices ?? [])];
	let next: RoleSettings = settings;
	if (settings.temperature !== null && settings.temperature !== 1) {
		notices.push(`temperature ${settings.temperature} is not sent: ${settings.model} is a reasoning model and accepts only its default`);
		next = {...next, temperature: null};
	}
	const extra = settings.extraBody;
	if (extra && SAMPLING_KEYS.some((key) => key in extra)) {
		const kept = Object.fromEntries(Object.entries(extra).filter(([key]) => !(SAMPLING_KEYS as readonly string[]).includes(key)));
		notices.push(`${SAMPLING_KEYS.filter((key) => key in extra).join(' and ')} in extraBody not sent: ${settings.model} is a reasoning model and accepts only the defaults`);
		next = {...next, extraBody: kept};
	}
	return notices.length > (settings.notices?.length ?? 0) ? {...next, notices} : next;
}
