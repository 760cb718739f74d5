import type {ProviderPreset, RoleSettings} from '../domain/session.js';

/**
 * What each provider is, in one table: the dialect the model layer speaks to it (auth, URL shape,
 * token cap field, how reasoning effort is sent), which structured modes to try and which of them its
 * server enforces by grammar, whether it honours `n`, how its model list answers, and what to tell a
 * user about its thinking text and its context. A role's preset is set with `--provider` or
 * `"provider"` in the config; without one it is guessed from the base URL's host (a guess `doctor`
 * states). Nothing outside the model layer reads this table: callers see negotiated capabilities
 * (capabilities.ts) and advice (advice.ts).
 *
 * Each row follows the provider's own documentation (named in `docs`); docs/providers.md is the
 * user's page for the same table.
 */

/** The structured modes, strongest first. `json_schema_strict` sends `strict: true`. */
export type StructuredMode = 'json_schema_strict' | 'json_schema' | 'json_object' | 'prompt';
export const STRUCTURED_MODES: readonly StructuredMode[] = ['json_schema_strict', 'json_schema', 'json_object', 'prompt'];

export type Preset = {
	readonly id: ProviderPreset;
	readonly label: string;
	/** The base URL the provider documents; null when it depends on the account (an Azure resource) or is unknown. */
	readonly baseURL: string | null;
	/** The environment variable the provider's docs name for its key: read when a role names no apiKeyEnv of its own and this one is set. */
	readonly keyEnv: string | null;
	/** A server on the user's machine: no key needed, and its calls cost nothing. */
	readonly local: boolean;
	readonly tokenField: 'max_completion_tokens' | 'max_tokens';
	/** How `reasoningEffort` is sent; `ignored` where the provider documents that it ignores it (then it is not sent, with a notice). */
	readonly effort: 'reasoning_effort' | 'reasoning.effort' | 'ignored';
	/** Structured modes to try, best first; the first one the server accepts is kept (capabilities.ts). */
	readonly structured: readonly StructuredMode[];
	/** Modes whose output the server constrains while decoding (a grammar, guided decoding, OpenAI strict). */
	readonly enforced: readonly StructuredMode[];
	/** `n` (several choices in one request): honoured, refused with a 400, ignored (one choice comes back), or not documented (`doctor` probes). */
	readonly n: 'yes' | 'refused' | 'ignored' | 'probe';
	/** How `GET /models` answers: OpenAI's list, a bare array (Together), base models rather than deployments (Azure), one model served under any name (llama.cpp), dated ids that aliases resolve to (Anthropic). */
	readonly models: 'list' | 'bare-array' | 'base-models' | 'any-name' | 'aliases';
	/** A prefix the list puts before ids that requests may leave out (Gemini: "models/"). */
	readonly idPrefix?: string;
	/** The highest temperature the server takes; a higher one is sent as this, with a notice (Anthropic: 1). */
	readonly temperatureMax?: number;
	/** What to change so thinking text comes apart from the answer. */
	readonly thinkFix: string;
	/** What to change when a prompt does not fit the server's context. */
	readonly contextFix: string;
	/** The documents this row follows. */
	readonly docs: string;
};

const TURN_THINKING_OFF = 'or turn thinking off for the role (e.g. extraBody {"chat_template_kwargs": {"enable_thinking": false}})';
const HOSTED_CONTEXT = 'use a model with a longer context window, or lower the role\'s maxTokens if it is set high';

export const PRESETS: Readonly<Record<ProviderPreset, Preset>> = {
	openai: {
		id: 'openai',
		label: 'OpenAI',
		baseURL: 'https://api.openai.com/v1',
		keyEnv: 'OPENAI_API_KEY',
		local: false,
		tokenField: 'max_completion_tokens',
		effort: 'reasoning_effort',
		structured: ['json_schema_strict', 'json_object', 'prompt'],
		enforced: ['json_schema_strict'],
		n: 'yes',
		models: 'list',
		thinkFix: 'OpenAI never sends thinking text in the content; a proxy in front of it does',
		contextFix: HOSTED_CONTEXT,
		docs: 'platform.openai.com/docs/api-reference/chat, /docs/guides/structured-outputs, /docs/guides/error-codes',
	},
	azure: {
		id: 'azure',
		label: 'Azure OpenAI',
		baseURL: null,
		keyEnv: 'AZURE_OPENAI_API_KEY',
		local: false,
		tokenField: 'max_completion_tokens',
		effort: 'reasoning_effort',
		structured: ['json_schema_strict', 'json_object', 'prompt'],
		enforced: ['json_schema_strict'],
		n: 'yes',
		models: 'base-models',
		thinkFix: 'Azure OpenAI never sends thinking text in the content',
		contextFix: HOSTED_CONTEXT,
		docs: 'learn.microsoft.com/azure/ai-foundry/openai/reference (deployments URL, api-version, api-key header), /api-version-lifecycle (the v1 API), /concepts/content-filter',
	},
	gemini: {
		id: 'gemini',
		label: 'Google Gemini (OpenAI compatibility)',
		baseURL: 'https://generativelanguage.googleapis.com/v1beta/openai/',
		keyEnv: 'GEMINI_API_KEY',
		local: false,
		tokenField: 'max_tokens',
		effort: 'reasoning_effort',
		structured: ['json_schema', 'json_object', 'prompt'],
		enforced: ['json_schema'],
		n: 'probe',
		models: 'list',
		idPrefix: 'models/',
		thinkFix: 'thought summaries are switched on (extraBody google.thinking_config.include_thoughts): leave it out unless you want them; they are removed from the reply either way',
		contextFix: HOSTED_CONTEXT,
		docs: 'ai.google.dev/gemini-api/docs/openai (OpenAI compatibility: base URL, reasoning_effort, thought summaries in <thought> tags), ai.google.dev/gemini-api/docs/troubleshooting (error body: code, message, status, details[].reason)',
	},
	groq: {
		id: 'groq',
		label: 'Groq',
		baseURL: 'https://api.groq.com/openai/v1',
		keyEnv: 'GROQ_API_KEY',
		local: false,
		tokenField: 'max_completion_tokens',
		effort: 'reasoning_effort',
		structured: ['json_schema_strict', 'json_schema', 'json_object', 'prompt'],
		enforced: ['json_schema_strict'],
		n: 'refused',
		models: 'list',
		thinkFix: 'ask Groq for parsed reasoning (extraBody {"reasoning_format": "parsed"}) or none ({"reasoning_format": "hidden"})',
		contextFix: HOSTED_CONTEXT,
		docs: 'console.groq.com/docs/openai (n must be 1; logprobs, logit_bias, messages[].name refused), /docs/structured-outputs (strict mode on some models, best-effort json_schema, json_validate_failed with failed_generation), /docs/errors',
	},
	together: {
		id: 'together',
		label: 'Together AI',
		baseURL: 'https://api.together.xyz/v1',
		keyEnv: 'TOGETHER_API_KEY',
		local: false,
		tokenField: 'max_tokens',
		effort: 'reasoning_effort',
		structured: ['json_schema', 'json_object', 'prompt'],
		enforced: ['json_schema'],
		n: 'yes',
		models: 'bare-array',
		thinkFix: `Together sends reasoning models' thinking in the content for some models; it is removed either way, ${TURN_THINKING_OFF}`,
		contextFix: HOSTED_CONTEXT,
		docs: 'docs.together.ai/reference/models-1 (GET /models answers a bare array), docs.together.ai/docs/openai-api-compatibility, /docs/json-mode',
	},
	fireworks: {
		id: 'fireworks',
		label: 'Fireworks AI',
		baseURL: 'https://api.fireworks.ai/inference/v1',
		keyEnv: 'FIREWORKS_API_KEY',
		local: false,
		tokenField: 'max_tokens',
		effort: 'reasoning_effort',
		structured: ['json_schema', 'json_object', 'prompt'],
		enforced: ['json_schema', 'json_object'],
		n: 'yes',
		models: 'list',
		thinkFix: `Fireworks leaves reasoning models' <think> blocks in the content; they are removed either way, ${TURN_THINKING_OFF}`,
		contextFix: HOSTED_CONTEXT,
		docs: 'docs.fireworks.ai/tools-sdks/openai-compatibility, /structured-responses/structured-response-formatting (json_object with a schema, json_schema; grammar-constrained)',
	},
	deepseek: {
		id: 'deepseek',
		label: 'DeepSeek',
		baseURL: 'https://api.deepseek.com/v1',
		keyEnv: 'DEEPSEEK_API_KEY',
		local: false,
		tokenField: 'max_tokens',
		effort: 'ignored',
		structured: ['json_object', 'prompt'],
		enforced: [],
		n: 'ignored',
		models: 'list',
		thinkFix: 'deepseek-reasoner sends its thinking in reasoning_content, apart from the answer',
		contextFix: HOSTED_CONTEXT,
		docs: 'api-docs.deepseek.com/api/create-chat-completion (response_format text or json_object only: json_schema is "unavailable now"), /guides/json_mode (the prompt must say "json"), /guides/reasoning_model (reasoning_content)',
	},
	anthropic: {
		id: 'anthropic',
		label: 'Anthropic (OpenAI SDK compatibility)',
		baseURL: 'https://api.anthropic.com/v1/',
		keyEnv: 'ANTHROPIC_API_KEY',
		local: false,
		tokenField: 'max_tokens',
		effort: 'ignored',
		structured: ['prompt'],
		enforced: [],
		n: 'refused',
		models: 'aliases',
		temperatureMax: 1,
		thinkFix: 'Anthropic\'s OpenAI compatibility never returns thinking text',
		contextFix: HOSTED_CONTEXT,
		docs: 'docs.anthropic.com/en/api/openai-sdk (response_format, reasoning_effort, seed ignored; n must be exactly 1; temperature 0-1), /en/docs/about-claude/models (aliases such as claude-sonnet-4-5), /en/api/errors',
	},
	openrouter: {
		id: 'openrouter',
		label: 'OpenRouter',
		baseURL: 'https://openrouter.ai/api/v1',
		keyEnv: 'OPENROUTER_API_KEY',
		local: false,
		tokenField: 'max_tokens',
		effort: 'reasoning.effort',
		structured: ['json_schema_strict', 'json_object', 'prompt'],
		enforced: [],
		n: 'ignored',
		models: 'list',
		thinkFix: 'OpenRouter sends thinking in its reasoning field; to leave it out, send extraBody {"reasoning": {"exclude": true}}',
		contextFix: HOSTED_CONTEXT,
		docs: 'openrouter.ai/docs/api-reference/errors (error.code as the status; 200 with an error body or an SSE data event with error and finish_reason "error" once generation started; 402 credits; 403 moderation), /docs/use-cases/reasoning-tokens, /docs/features/provider-routing',
	},
	vllm: {
		id: 'vllm',
		label: 'vLLM',
		baseURL: 'http://localhost:8000/v1',
		keyEnv: 'VLLM_API_KEY',
		local: true,
		tokenField: 'max_tokens',
		effort: 'reasoning_effort',
		structured: ['json_schema_strict', 'json_object', 'prompt'],
		enforced: ['json_schema_strict', 'json_schema', 'json_object'],
		n: 'yes',
		models: 'list',
		thinkFix: 'serve the model with a reasoning parser (vllm serve MODEL --reasoning-parser qwen3, or deepseek_r1 for R1 distills)',
		contextFix: 'serve the model with a larger --max-model-len',
		docs: 'docs.vllm.ai/en/latest/serving/openai_compatible_server.html, /features/reasoning_outputs.html, /features/structured_outputs.html',
	},
	ollama: {
		id: 'ollama',
		label: 'Ollama',
		baseURL: 'http://localhost:11434/v1',
		keyEnv: null,
		local: true,
		tokenField: 'max_tokens',
		effort: 'reasoning_effort',
		structured: ['json_schema_strict', 'json_object', 'prompt'],
		enforced: ['json_schema_strict', 'json_schema', 'json_object'],
		n: 'ignored',
		models: 'list',
		thinkFix: 'upgrade Ollama to 0.12 or later: thinking then arrives in its own reasoning field',
		contextFix: 'start Ollama with OLLAMA_CONTEXT_LENGTH=16384 (or a Modelfile with PARAMETER num_ctx 16384); its OpenAI API cannot change it per request',
		docs: 'docs.ollama.com/api/openai-compatibility, github.com/ollama/ollama/blob/main/docs/faq.md (context length)',
	},
	llamacpp: {
		id: 'llamacpp',
		label: 'llama.cpp (llama-server)',
		baseURL: 'http://localhost:8080/v1',
		keyEnv: null,
		local: true,
		tokenField: 'max_tokens',
		effort: 'reasoning_effort',
		structured: ['json_schema_strict', 'json_object', 'prompt'],
		enforced: ['json_schema_strict', 'json_schema'],
		n: 'probe',
		models: 'any-name',
		thinkFix: 'start llama-server with --jinja --reasoning-format deepseek: thinking then arrives in reasoning_content',
		contextFix: 'start llama-server with a larger -c; its slots share that context (-c 16384 -np 2 gives each request 8192)',
		docs: 'github.com/ggml-org/llama.cpp/blob/master/tools/server/README.md (/v1/chat/completions, response_format, --reasoning-format, -c and -np, /props, errors such as exceed_context_size_error and stream error events)',
	},
	lmstudio: {
		id: 'lmstudio',
		label: 'LM Studio',
		baseURL: 'http://localhost:1234/v1',
		keyEnv: null,
		local: true,
		tokenField: 'max_tokens',
		effort: 'reasoning_effort',
		structured: ['json_schema_strict', 'prompt'],
		enforced: ['json_schema_strict', 'json_schema'],
		n: 'ignored',
		models: 'list',
		thinkFix: 'in LM Studio\'s Developer settings turn on "When applicable, separate reasoning_content and content in API responses"',
		contextFix: 'load the model with a larger context length (LM Studio: the model\'s load settings, or lms load MODEL --context-length 16384)',
		docs: 'lmstudio.ai/docs/app/api/endpoints/openai, /docs/app/api/structured-output (json_schema only: json_object is refused), lmstudio-ai/lmstudio-bug-tracker#189',
	},
	compatible: {
		id: 'compatible',
		label: 'OpenAI-compatible server',
		baseURL: null,
		keyEnv: null,
		local: false,
		tokenField: 'max_tokens',
		effort: 'reasoning_effort',
		structured: ['json_schema_strict', 'json_object', 'prompt'],
		enforced: [],
		n: 'probe',
		models: 'list',
		thinkFix: `serve the model with a reasoning parser (vLLM --reasoning-parser, llama.cpp --reasoning-format deepseek), ${TURN_THINKING_OFF}`,
		contextFix: 'serve the model with a longer context (vLLM --max-model-len, llama.cpp -c, Ollama OLLAMA_CONTEXT_LENGTH)',
		docs: 'platform.openai.com/docs/api-reference/chat (the shape every compatible server imitates)',
	},
};

/** The presets a user may name (`--provider`), in the order the docs list them. */
export const PRESET_IDS: readonly ProviderPreset[] = ['openai', 'azure', 'gemini', 'groq', 'together', 'fireworks', 'deepseek', 'anthropic', 'openrouter', 'vllm', 'ollama', 'llamacpp', 'lmstudio'];

/**
 * A guess at the preset from a base URL's host, for roles that name none. Only hosts the providers
 * document count: a path such as `/openai/` says nothing (Groq's base is `/openai/v1`, Gemini's
 * `/v1beta/openai/`, gateways and proxies use it too). Unknown hosts are `compatible`; `doctor`
 * refines that from the server's model list (vLLM, llama.cpp, Ollama) and says it guessed.
 */
export function guessPreset(baseURL: string | null): ProviderPreset {
	if (baseURL === null) return 'openai';
	let host: string;
	try {
		host = new URL(baseURL).hostname.toLowerCase();
	} catch {
		return 'compatible';
	}
	const is = (name: string) => host === name || host.endsWith(`.${name}`);
	if (host === 'api.openai.com') return 'openai';
	if (is('openai.azure.com') || is('cognitiveservices.azure.com') || is('services.ai.azure.com')) return 'azure';
	if (host === 'generativelanguage.googleapis.com') return 'gemini';
	if (host === 'api.groq.com') return 'groq';
	if (is('together.xyz') || is('together.ai')) return 'together';
	if (host === 'api.fireworks.ai') return 'fireworks';
	if (host === 'api.deepseek.com') return 'deepseek';
	if (host === 'api.anthropic.com') return 'anthropic';
	if (is('openrouter.ai')) return 'openrouter';
	return 'compatible';
}

/** The old `dialect` setting, read as a preset (it said which parameter rules a proxy's endpoint follows). */
export function presetOfDialect(dialect: RoleSettings['dialect']): ProviderPreset | undefined {
	return dialect === undefined ? undefined : dialect === 'compatible' ? 'compatible' : dialect;
}

/** The preset a role speaks: set, else from the old `dialect`, else guessed from its URL. */
export function presetOf(settings: Pick<RoleSettings, 'preset' | 'dialect' | 'baseURL'>): Preset {
	return PRESETS[settings.preset ?? presetOfDialect(settings.dialect) ?? guessPreset(settings.baseURL)];
}

/** True for a loopback base URL (a server on this machine, whatever it is). */
export function isLoopback(baseURL: string | null): boolean {
	if (baseURL === null) return false;
	try {
		const host = new URL(baseURL).hostname.toLowerCase().replace(/^\[|\]$/g, '');
		return host === 'localhost' || host.endsWith('.localhost') || /^127\./.test(host) || host === '::1' || host === '0.0.0.0';
	} catch {
		return false;
	}
}

/** Calls that cost nothing: a local preset or any loopback server. */
export function isLocal(settings: Pick<RoleSettings, 'preset' | 'dialect' | 'baseURL'>): boolean {
	return presetOf(settings).local || isLoopback(settings.baseURL);
}

/** Whether the server constrains `mode`'s output while decoding (so a schema's limits are enforced, not only checked after). */
export function grammarEnforced(preset: Preset, mode: StructuredMode): boolean {
	return preset.enforced.includes(mode);
}
