import type {ModelRole, RoleSettings, TokenUsage} from '../domain/session.js';
import {presetOf} from './presets.js';
import type {FailureKind} from './types.js';

type AdviceSettings = Pick<RoleSettings, 'model' | 'baseURL'> & Partial<Pick<RoleSettings, 'preset' | 'dialect' | 'maxTokens' | 'structured' | 'reasoningEffort'>>;

/**
 * What to change after a failure that no retry fixes, naming the role, the flag or the environment
 * variable, in the words of the role's provider (presets.ts): the second half of every set-up error
 * message. `serverMessage` (what the server said) refines it where one status means several things.
 */
export function setupAdvice(kind: FailureKind | string, role: ModelRole, settings: AdviceSettings, apiKeyEnv: string, serverMessage = ''): string {
	const where = settings.baseURL ?? 'https://api.openai.com/v1';
	const preset = presetOf({preset: settings.preset, dialect: settings.dialect, baseURL: settings.baseURL});
	switch (kind) {
		case 'auth':
			return `The endpoint ${where} (${preset.label}) refused the key of the ${role} role: check the key in ${apiKeyEnv} (the role's apiKeyEnv)${preset.keyEnv && preset.keyEnv !== apiKeyEnv ? `, or set ${preset.keyEnv}, the variable ${preset.label}'s docs name` : ''}.`;
		case 'quota':
			return `The account behind ${apiKeyEnv} has no quota or credit left for ${settings.model}: add credit or use another key; retrying cannot help.`;
		case 'not_found':
			if (preset.id === 'azure') return `${where} has no deployment '${settings.model}' (the ${role} role's): on Azure the model is the deployment's name (Azure AI Foundry > Deployments), not the base model's; set --${role}-model, or --model for every role, to it.`;
			return `${where} has no model '${settings.model}' (the ${role} role's): set --${role}-model, or --model for every role, to a model the server offers (\`npx cultureconverse doctor\` lists them).`;
		case 'context_length':
			return `The ${role} role's prompt does not fit ${settings.model}'s context: ${preset.contextFix}${settings.maxTokens ? `, or lower the role's maxTokens (${settings.maxTokens}: the reply's room counts against the context too)` : ''}.`;
		case 'stream_refused':
			return `${where} refused streaming for ${settings.model}: set "stream": false (or "auto") for the ${role} role, or pass --no-stream.`;
		case 'content_filter':
			return `${preset.label}'s content filter blocked the ${role} role's prompt or reply: that item is left out and the rest go on (it is not a set-up failure); if it happens often, review the content filter of the deployment or the provider's moderation settings.`;
		case 'bad_request':
			if (/no endpoints found that can handle the requested parameters/i.test(serverMessage)) {
				return `OpenRouter found no provider for ${settings.model} that takes every parameter the ${role} role sends (a response_format, n, reasoning, or extraBody field): leave "structured" on auto, drop the parameter, or widen routing (extraBody {"provider": {"require_parameters": false}}).`;
			}
			if (/reasoning_effort|reasoning\.effort/i.test(serverMessage) && settings.reasoningEffort) return `${where} refuses reasoning_effort "${settings.reasoningEffort}" for ${settings.model}: remove "reasoningEffort" from the ${role} role, or use a value the model takes.`;
			if (/response_format|json_schema|json_object/i.test(serverMessage) && settings.structured && settings.structured !== 'auto') return `${where} refuses the ${role} role's structured mode "${settings.structured}": set "structured": "auto" so the tool uses what the server accepts.`;
			return `${where} rejected a parameter of the ${role} role's request: compare the role's maxTokens, temperature, reasoningEffort and extraBody with the server's message.`;
		// Connections: the failure's own text (connection.ts) names the cause and its fix; this adds how the setting is read.
		case 'tls':
			return `NODE_EXTRA_CA_CERTS is read once, when a process starts: set it in the environment that starts cultureconverse (docs/networks.md).`;
		case 'proxy':
			return `HTTPS_PROXY, HTTP_PROXY and NO_PROXY (either case) are read from the environment of the cultureconverse process (docs/networks.md).`;
		case 'network':
		case 'timeout':
			return `The ${role} role could not reach ${where}: the cause and its fix are above (docs/networks.md lists each one).`;
		case 'truncated':
			return truncatedAdvice(role, {...settings, maxTokens: settings.maxTokens ?? null}, null, {reasoning: false});
		default:
			return `Check the ${role} role's settings (model ${settings.model} at ${where}).`;
	}
}

/**
 * What to change after a reply cut by a cap: "raise maxTokens" only when the role's maxTokens was
 * the cap (the reply used about all of it); with no maxTokens set, the cap was the server's own (its
 * slot's context on llama.cpp, Ollama's window), so the fix is on the server.
 */
export function truncatedAdvice(role: ModelRole, settings: Pick<RoleSettings, 'model' | 'baseURL' | 'maxTokens'> & Partial<Pick<RoleSettings, 'preset' | 'dialect'>>, usage: TokenUsage | null, options: {readonly reasoning: boolean}): string {
	const preset = presetOf({preset: settings.preset, dialect: settings.dialect, baseURL: settings.baseURL});
	const thinking = options.reasoning ? ', or lower its reasoningEffort (or turn thinking off, e.g. extraBody {"chat_template_kwargs": {"enable_thinking": false}})' : '';
	if (settings.maxTokens !== null && (usage === null || usage.completion >= settings.maxTokens * 0.9)) return `raise maxTokens for the ${role} role (it is ${settings.maxTokens})${thinking}`;
	const used = usage ? ` (${usage.prompt} prompt + ${usage.completion} reply tokens)` : '';
	if (settings.maxTokens !== null) return `the reply stopped before the role's maxTokens (${settings.maxTokens}), so the server's context was the cap${used}: ${preset.contextFix}${thinking}`;
	return `no maxTokens is set for the ${role} role, so the cap was the server's own${used}: ${preset.local ? preset.contextFix : `set a maxTokens for the role (${preset.label} applies a default output limit)`}${thinking}`;
}

/** The closing message of a run stopped by the set-up breaker: what failed, how often, what to change. */
export function stopText(stop: {readonly kind: string; readonly role: ModelRole; readonly count: number; readonly message: string}, what: string, settings: AdviceSettings, apiKeyEnv: string): string {
	return `Stopped: ${stop.count} ${what} in a row failed the same way (${stop.kind}, ${stop.role} role); nothing more was started and everything finished is saved.\n  ${stop.message}\n  ${setupAdvice(stop.kind, stop.role, settings, apiKeyEnv, stop.message)}\n`;
}
