import type {ModelRole, RoleSettings} from '../domain/session.js';
import type {FailureKind} from './types.js';

/**
 * What to change after a failure that no retry fixes, naming the role, the flag or the environment
 * variable: the second half of every set-up error message.
 */
export function setupAdvice(kind: FailureKind | string, role: ModelRole, settings: Pick<RoleSettings, 'model' | 'baseURL'>, apiKeyEnv: string): string {
	const where = settings.baseURL ?? 'https://api.openai.com/v1';
	switch (kind) {
		case 'auth':
			return `The endpoint ${where} refused the key of the ${role} role: check the key in ${apiKeyEnv} (the role's apiKeyEnv).`;
		case 'quota':
			return `The account behind ${apiKeyEnv} has no quota or credit left for ${settings.model}: add credit or use another key; retrying cannot help.`;
		case 'not_found':
			return `${where} has no model '${settings.model}' (the ${role} role's): set --${role}-model, or --model for every role, to a model the server offers (\`npx cultureconverse doctor\` lists them).`;
		case 'context_length':
			return `The ${role} role's prompt does not fit ${settings.model}'s context window: raise the server's context (vLLM --max-model-len, Ollama OLLAMA_CONTEXT_LENGTH, llama.cpp -c) or lower the role's maxTokens.`;
		case 'stream_refused':
			return `${where} refused streaming for ${settings.model}: set "stream": false (or "auto") for the ${role} role, or pass --no-stream.`;
		case 'bad_request':
			return `${where} rejected a parameter of the ${role} role's request: compare the role's maxTokens, temperature, reasoningEffort and extraBody with the server's message.`;
		default:
			return `Check the ${role} role's settings (model ${settings.model} at ${where}).`;
	}
}

/** The closing message of a run stopped by the set-up breaker: what failed, how often, what to change. */
export function stopText(stop: {readonly kind: string; readonly role: ModelRole; readonly count: number; readonly message: string}, what: string, settings: Pick<RoleSettings, 'model' | 'baseURL'>, apiKeyEnv: string): string {
	return `Stopped: ${stop.count} ${what} in a row failed the same way (${stop.kind}, ${stop.role} role); nothing more was started and everything finished is saved.\n  ${stop.message}\n  ${setupAdvice(stop.kind, stop.role, settings, apiKeyEnv)}\n`;
}
