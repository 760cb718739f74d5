import {existsSync, readFileSync} from 'node:fs';
import path from 'node:path';
import {z} from 'zod';
import {registerSchema} from '../domain/registry.js';
import {ProviderPreset, ReasoningEffort, ResponseFormatMode, StreamMode} from '../domain/session.js';
import {DataError, UserError, zodProblems} from '../util/errors.js';
import {looksLikeSecret} from './secrets.js';

/** The file looked up in the working directory when `--config` is not given. */
export const CONFIG_FILE_NAME = 'cultureconverse.config.json';

/** Defaults applied by `resolveRoleSettings` for anything no flag, config file or env var sets. */
export const MODEL_DEFAULTS = {
	/** Model of every role on OpenAI's own endpoint when nothing names one (other endpoints have no default). */
	model: 'gpt-5-mini',
	apiKeyEnv: 'OPENAI_API_KEY',
	concurrency: 4,
	cache: true,
	retry: {maxAttempts: 5, baseDelayMs: 1000, maxDelayMs: 30_000},
	validationRetries: 2,
	timeoutMs: 120_000,
	structured: 'auto',
} as const;

const envVarName = z.string().regex(/^[A-Za-z_][A-Za-z0-9_]*$/, 'must be the NAME of an environment variable (the key itself never goes in a file)');
const url = z.url({protocol: /^https?$/}).describe('OpenAI-compatible endpoint, e.g. http://localhost:8000/v1');

const SchemaFidelityChoice = z
	.enum(['auto', 'portable', 'enforced'])
	.describe('how much of each reply\'s JSON schema is sent: enforced keeps string length limits (llama.cpp and vLLM enforce them by grammar), portable leaves them out (servers that refuse them); auto (default) decides from the server\'s kind');

/** Per-role endpoint and sampling settings; every field is optional and falls back to the top level. */
export const RoleConfig = z.strictObject({
	model: z.string().min(1).optional().describe('"mock" for the offline mock provider, "replay:FILE" to play back a --record file'),
	baseURL: url.optional(),
	apiKeyEnv: envVarName.optional().describe('environment variable holding this role\'s API key'),
	temperature: z.number().min(0).max(2).nullable().optional().describe('omitted from requests when null or unset (some models accept only their default)'),
	maxTokens: z.number().int().positive().nullable().optional().describe('reply token cap; unset = the endpoint\'s default'),
	timeoutMs: z.number().int().positive().optional().describe(`per-attempt timeout (default ${MODEL_DEFAULTS.timeoutMs})`),
	structured: ResponseFormatMode.optional().describe('auto (default: what the server was found to accept, strict json_schema then json_object then prompt-only; `doctor` finds it) | json_schema | json_object | prompt, to fix one mode by hand'),
	reasoningEffort: ReasoningEffort.nullable().optional().describe('none | minimal | low | medium | high | xhigh, passed through as reasoning_effort (OpenRouter: reasoning.effort); which values a model accepts is up to the server; unset = the model\'s default'),
	stream: StreamMode.optional().describe('stream free-text replies: true, false, or "auto" (default: stream, and switch to whole replies for the rest of the run when the server refuses streaming)'),
	extraBody: z.record(z.string(), z.unknown()).optional().describe('JSON merged into every request body of the role, e.g. {"chat_template_kwargs": {"enable_thinking": false}}, {"seed": 7}, {"top_p": 0.9}, {"provider": {"order": ["groq"]}}; never a key'),
	dialect: z.enum(['openai', 'azure', 'openrouter', 'compatible']).optional().describe('older form of "provider" (openai, azure, openrouter or compatible); "provider" wins when both are set'),
	schemaFidelity: SchemaFidelityChoice.optional(),
	supportsN: z.boolean().optional().describe('the server returns several choices for one request (`n`): best-of-N then asks once instead of N times (OpenAI and vLLM do; Ollama and llama.cpp do not). `doctor` probes it'),
	provider: ProviderPreset.optional().describe('which provider the endpoint is (openai, azure, gemini, groq, together, fireworks, deepseek, anthropic, openrouter, vllm, ollama, llamacpp, lmstudio, compatible): sets auth, URL shape, parameter rules and error shapes; default: guessed from the base URL\'s host'),
	family: z.enum(['reasoning', 'chat']).optional().describe('the model\'s family when its name does not say (an Azure deployment name): reasoning models get no temperature and max_completion_tokens'),
	apiVersion: z.string().regex(/^\d{4}-\d{2}-\d{2}(-preview)?$/, 'an Azure api-version such as 2024-10-21').optional().describe('Azure deployments URL only: the api-version query (default 2024-10-21; one in the base URL wins)'),
	maxReplyKB: z.number().positive().max(1024 * 1024).optional().describe('largest reply read, in KB; a longer one is cut there and recorded as cut (default 256 for the assistant, 64 for the structured roles)'),
});
export type RoleConfig = z.infer<typeof RoleConfig>;

export const RetryConfig = z.strictObject({
	maxAttempts: z.number().int().min(1).max(20).optional().describe(`HTTP attempts per request, first one included (default ${MODEL_DEFAULTS.retry.maxAttempts})`),
	baseDelayMs: z.number().int().nonnegative().optional().describe(`first backoff ceiling (default ${MODEL_DEFAULTS.retry.baseDelayMs})`),
	maxDelayMs: z.number().int().nonnegative().optional().describe(`largest backoff (default ${MODEL_DEFAULTS.retry.maxDelayMs})`),
});

/**
 * `cultureconverse.config.json`: how each role reaches its model. API keys are never read from this
 * file; it names the environment variables that hold them.
 */
export const ConfigFile = z.strictObject({
	$schema: z.string().optional().describe('ignored; lets editors validate the file'),
	model: z.string().min(1).optional().describe(`model for every role without its own (default ${MODEL_DEFAULTS.model} on OpenAI's endpoint; no default elsewhere)`),
	baseURL: url.optional(),
	apiKeyEnv: envVarName.optional().describe(`environment variable holding the API key (default ${MODEL_DEFAULTS.apiKeyEnv})`),
	concurrency: z.number().int().min(1).max(256).optional().describe(`model calls in flight at once, across all roles (default ${MODEL_DEFAULTS.concurrency})`),
	adaptiveConcurrency: z.boolean().optional().describe('halve the calls in flight on a 429 and win them back one by one after successes (default true)'),
	rateLimitPacing: z.enum(['headers', 'aimd']).optional().describe('headers (default): space calls by the rate-limit headers a server sends (x-ratelimit-*, anthropic-ratelimit-*, retry-after) and narrow on a 429 only without them; aimd: narrow on every 429 (the behaviour before header pacing)'),
	cache: z.boolean().optional().describe('content-addressed response cache in the workspace (default true)'),
	stream: StreamMode.optional().describe('default of every role\'s "stream"'),
	dialect: z.enum(['openai', 'azure', 'openrouter', 'compatible']).optional().describe('default of every role\'s "dialect"'),
	provider: ProviderPreset.optional().describe('default of every role\'s "provider"'),
	structured: ResponseFormatMode.optional().describe('default of every role\'s "structured" (default auto)'),
	family: z.enum(['reasoning', 'chat']).optional().describe('default of every role\'s "family"'),
	apiVersion: z.string().regex(/^\d{4}-\d{2}-\d{2}(-preview)?$/, 'an Azure api-version such as 2024-10-21').optional().describe('default of every role\'s "apiVersion"'),
	schemaFidelity: SchemaFidelityChoice.optional(),
	prices: z
		.record(z.string().describe('model name as sent'), z.strictObject({input: z.number().nonnegative(), output: z.number().nonnegative()}))
		.optional()
		.describe('USD per million tokens, for the running cost estimate of models the tool does not know (or to correct its figures)'),
	retry: RetryConfig.optional(),
	maxReplyKB: z.number().positive().max(1024 * 1024).optional().describe('default of every role\'s "maxReplyKB"'),
	validationRetries: z.number().int().min(0).max(10).optional().describe(`re-asks after an invalid structured reply (default ${MODEL_DEFAULTS.validationRetries})`),
	roles: z
		.strictObject({
			generator: RoleConfig.optional(),
			validator: RoleConfig.optional(),
			simulator: RoleConfig.optional(),
			assistant: RoleConfig.optional(),
			judge: RoleConfig.optional(),
		})
		.optional(),
});
export type ConfigFile = z.infer<typeof ConfigFile>;

registerSchema('config', ConfigFile, `${CONFIG_FILE_NAME}: model endpoints per role, retries, cache, concurrency`);

/**
 * Finds and validates the config file: `explicit` (from `--config`, must exist) or
 * `<cwd>/cultureconverse.config.json` when present. Returns null when there is none.
 */
export function loadConfigFile(options: {explicit?: string | undefined; cwd: string}): {file: string; config: ConfigFile} | null {
	const file = options.explicit ? path.resolve(options.cwd, options.explicit) : path.join(options.cwd, CONFIG_FILE_NAME);
	if (!existsSync(file)) {
		if (options.explicit) throw new UserError(`Config file ${file} does not exist (given by --config).`);
		return null;
	}
	return {file, config: parseConfigText(readFileSync(file, 'utf8'), file)};
}

/** Parses and validates config text; every problem names the file and the field. */
export function parseConfigText(text: string, file: string): ConfigFile {
	let raw: unknown;
	try {
		raw = JSON.parse(text);
	} catch (error) {
		throw new DataError(file, [`not valid JSON (${(error as Error).message})`]);
	}
	const keyFields = findKeyFields(raw);
	if (keyFields.length > 0) {
		throw new DataError(
			file,
			keyFields.map((field) => `${field}: API keys are never read from files; set the key in an environment variable and name it with "apiKeyEnv"`),
		);
	}
	const parsed = ConfigFile.safeParse(raw);
	if (!parsed.success) throw new DataError(file, zodProblems(parsed.error));
	return parsed.data;
}

/** Paths of fields that look like a pasted secret, so the error explains apiKeyEnv instead of "unrecognized key". */
function findKeyFields(raw: unknown, prefix = ''): string[] {
	if (typeof raw !== 'object' || raw === null || Array.isArray(raw)) return [];
	const found: string[] = [];
	for (const [key, value] of Object.entries(raw)) {
		const here = prefix ? `${prefix}.${key}` : key;
		if (/^(api[_-]?key|key|secret|token|password|authorization|bearer)$/i.test(key)) found.push(here);
		else if (typeof value === 'string' && looksLikeSecret(value)) found.push(here);
		else found.push(...findKeyFields(value, here));
	}
	return found;
}
