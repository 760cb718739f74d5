import type {RoleSettings} from '../domain/session.js';
import {presetOf} from './presets.js';

/**
 * Which wire rules a request follows, decided from the role's provider preset (presets.ts) and the
 * model's family, never from the host alone. This is the one place that knows them:
 *
 * - OpenAI reasoning models (o1, o3, o4-mini, the gpt-5 family except gpt-5-chat) reject `max_tokens`
 *   ("Use 'max_completion_tokens' instead", 400 unsupported_parameter) and any `temperature`/`top_p`
 *   other than the default (400 unsupported_value). GPT-5.1 and later accept sampling settings only
 *   with `reasoning_effort: "none"`. This holds wherever the model is served: api.openai.com, an Azure
 *   deployment (whose name may hide the family: `"family": "reasoning"` says it), or a proxy.
 * - The preset names the token cap field (OpenAI, Azure and Groq take `max_completion_tokens`; most
 *   other servers only know `max_tokens`) and how reasoning effort is sent (OpenRouter: a
 *   `reasoning: {effort}` object; Anthropic and DeepSeek document that they ignore it).
 */

/** The model name without a router's vendor prefix ("openai/gpt-5-mini") or an Azure/Gemini path ("models/..."). */
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

/** The role's family: its `family` setting when given (a deployment name says nothing), else what the model name implies. */
export function familyOf(settings: Pick<RoleSettings, 'model' | 'family'>): 'reasoning' | 'chat' {
	return settings.family ?? (isReasoningFamily(settings.model) ? 'reasoning' : 'chat');
}

/** GPT-5.1 and later accept temperature/top_p when reasoning is switched off (`reasoning_effort: "none"`). */
function samplingAllowed(model: string, effort: RoleSettings['reasoningEffort']): boolean {
	return effort === 'none' && /^gpt-5\.[1-9]/.test(bareModel(model));
}

export type WireRules = {
	readonly tokenField: 'max_completion_tokens' | 'max_tokens';
	/** Whether temperature / top_p may be sent. */
	readonly sampling: boolean;
	/** How reasoning effort is sent; null when the provider ignores it (it is then not sent). */
	readonly effortField: 'reasoning_effort' | 'reasoning.effort' | null;
};

type WireSettings = Pick<RoleSettings, 'model' | 'baseURL' | 'reasoningEffort' | 'dialect' | 'preset' | 'family'>;

export function wireRules(settings: WireSettings): WireRules {
	const preset = presetOf(settings);
	const reasoning = familyOf(settings) === 'reasoning';
	// A reasoning model rejects max_tokens wherever it is served, except behind OpenRouter, which documents max_tokens for every model and translates it.
	const tokenField = preset.id === 'openrouter' ? 'max_tokens' : reasoning ? 'max_completion_tokens' : preset.tokenField;
	const effortField = preset.effort === 'ignored' ? null : preset.effort;
	return {tokenField, sampling: !reasoning || samplingAllowed(settings.model, settings.reasoningEffort), effortField};
}

const SAMPLING_KEYS = ['temperature', 'top_p'] as const;

/**
 * Settings as they will be sent: sampling values a reasoning model would reject are dropped, a
 * temperature above the provider's range is capped, a reasoning effort the provider ignores is not
 * sent; each with a notice that is printed once and recorded in the session (so a reader sees the
 * setting did not take effect, rather than a 400 on every call).
 */
export function fitToModel(settings: RoleSettings): RoleSettings {
	if (settings.provider !== 'openai') return settings;
	const rules = wireRules(settings);
	const preset = presetOf(settings);
	const notices: string[] = [...(settings.notices ?? [])];
	let next: RoleSettings = settings;
	if (!rules.sampling) {
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
	} else if (preset.temperatureMax !== undefined && next.temperature !== null && next.temperature > preset.temperatureMax) {
		notices.push(`temperature ${next.temperature} is sent as ${preset.temperatureMax}: ${preset.label} takes temperatures from 0 to ${preset.temperatureMax}`);
		next = {...next, temperature: preset.temperatureMax};
	}
	if (rules.effortField === null && settings.reasoningEffort) {
		notices.push(`reasoningEffort ${settings.reasoningEffort} is not sent: ${preset.label} documents that it ignores reasoning_effort`);
		next = {...next, reasoningEffort: null};
	}
	return notices.length > (settings.notices?.length ?? 0) ? {...next, notices} : next;
}
