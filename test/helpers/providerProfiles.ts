import {type FakeHandler, type FakeOpenAI, type FakeReply, type FakeRequest, defaultReply, startFakeOpenAI, structuredTarget} from './fakeOpenAI.js';
import {scriptedModel} from './scriptedModel.js';
import {THINKING_MARK} from './serverProfiles.js';

/*
 * Loopback servers for hosted providers, each written from its provider's own documentation (named
 * per profile below), layered on the fake server and the scripted model (which answers every stage
 * of an episode with a valid reply). What each imitates is what the model layer must get right for
 * that provider: the path its API lives under, how it takes the key, how its model list answers,
 * the shape of its error bodies, which structured modes and parameters it accepts or ignores, and
 * where it puts thinking text.
 */

export type ProviderName = 'azure' | 'azure-v1' | 'gemini' | 'groq' | 'together' | 'fireworks' | 'deepseek' | 'anthropic' | 'lmstudio';

export type ProviderServer = FakeOpenAI & {
	/** The base URL a user would set (Azure: the resource root, or its /openai/v1/). */
	readonly userBaseURL: string;
	/** The key the server accepts (empty for keyless local servers). */
	readonly key: string;
	/** A model (or deployment) it serves. */
	readonly model: string;
};

type Refusal = FakeReply | undefined;

const badRequest = (message: string, extra: Record<string, unknown> = {}): FakeReply => ({status: 400, body: {error: {message, type: 'invalid_request_error', param: null, code: null, ...extra}}});

/** Starts a provider's loopback server; `script` answers the stages (default: the scripted model). */
export async function startProvider(name: ProviderName, script: FakeHandler = scriptedModel()): Promise<ProviderServer> {
	const spec = SPECS[name];
	let thought = 0;
	const listed = spec.models.map((entry) => (typeof entry === 'string' ? {id: entry, object: 'model', created: 0, owned_by: 'system'} : {object: 'model', created: 0, ...entry}));
	const server = await startFakeOpenAI({
		prefix: spec.prefix,
		...(spec.route ? {route: spec.route} : {}),
		models: spec.models,
		// The model list takes the key too (it is how a preflight finds a bad one).
		routes: {
			[`GET ${spec.modelsPath ?? `${spec.prefix}/models`}`]: (request) => {
				const refusal = spec.refuse(request);
				if (refusal && 'status' in refusal) return {status: refusal.status, body: refusal.body};
				return {status: 200, body: spec.modelsBody ? spec.modelsBody(listed) : {object: 'list', data: listed}};
			},
		},
		handler: async (request) => {
			const refusal = spec.refuse(request);
			if (refusal) return refusal;
			// What the model is asked, as the provider passes it on (Anthropic drops response_format).
			const seen = spec.ignores ? {...request, body: Object.fromEntries(Object.entries(request.body).filter(([key]) => !spec.ignores!.includes(key)))} : request;
			const base = (await script(seen)) ?? (spec.ignores?.includes('response_format') && !structuredTarget(seen.body) && request.body.response_format ? {content: 'Sure, happy to help with that. Let me know what you would like.'} : defaultReply(seen));
			return spec.shape ? spec.shape(request, base, () => `${THINKING_MARK}-${++thought}: weigh the options first.`) : base;
		},
	});
	const userBaseURL = spec.userBaseURL ? spec.userBaseURL(server.port) : server.baseURL;
	return Object.assign(server, {userBaseURL, key: spec.key, model: spec.model});
}

type Spec = {
	readonly prefix: string;
	readonly route?: (request: FakeRequest) => 'chat' | 'models' | undefined;
	readonly userBaseURL?: (port: number) => string;
	readonly key: string;
	readonly model: string;
	readonly models: ReadonlyArray<string | {readonly id: string; readonly [key: string]: unknown}>;
	readonly modelsBody?: (data: ReadonlyArray<Record<string, unknown>>) => unknown;
	/** Where GET models lives, when not under the prefix. */
	readonly modelsPath?: string;
	/** The error the server answers before generating, if any (auth, model, parameters). */
	readonly refuse: (request: FakeRequest) => Refusal;
	/** Request fields the provider documents as ignored (the model never sees them). */
	readonly ignores?: readonly string[];
	/** The scripted reply as this provider sends it (thinking text where it puts it). */
	readonly shape?: (request: FakeRequest, reply: FakeReply, think: () => string) => FakeReply;
};

const bearer = (request: FakeRequest) => String(request.headers['authorization'] ?? '').replace(/^Bearer\s+/i, '');
const model = (request: FakeRequest) => String(request.body.model ?? '');
const isChat = (request: FakeRequest) => request.method === 'POST';
const withContent = (reply: FakeReply, content: (text: string) => string): FakeReply => ('json' in reply ? {content: content(JSON.stringify(reply.json))} : 'content' in reply ? {...reply, content: content(reply.content)} : reply);

/**
 * Azure OpenAI (learn.microsoft.com/azure/ai-foundry/openai/reference; /api-version-lifecycle for v1;
 * /concepts/content-filter). Deployments URL: POST /openai/deployments/{deployment}/chat/completions
 * ?api-version=..., key in the `api-key` header; without api-version a 404 "Resource not found"; an
 * unknown deployment a 404 DeploymentNotFound; a wrong key a 401 "Access denied due to invalid
 * subscription key or wrong API endpoint". GET /openai/models lists base models, never deployments.
 * The deployment `gpt5mini` runs gpt-5-mini, a reasoning model: temperature other than 1 is a 400
 * unsupported_value and max_tokens a 400 unsupported_parameter. The v1 API (/openai/v1/...) takes the
 * same key as `api-key` or as a Bearer token and the deployment name as `model`.
 */
function azureSpec(v1: boolean): Spec {
	const key = 'azure-key-0123456789abcdef0123456789ab';
	const deployments = new Set(['gpt5mini']);
	const deploymentOf = (request: FakeRequest) => (v1 ? model(request) : (/^\/openai\/deployments\/([^/]+)\/chat\/completions$/.exec(request.path)?.[1] ?? ''));
	return {
		prefix: v1 ? '/openai/v1' : '/openai',
		modelsPath: v1 ? '/openai/v1/models' : '/openai/models',
		route: (request) => {
			if (v1) return request.path === '/openai/v1/models' ? 'models' : request.path === '/openai/v1/chat/completions' ? 'chat' : undefined;
			if (request.path === '/openai/models' && request.query.get('api-version')) return 'models';
			return /^\/openai\/deployments\/[^/]+\/chat\/completions$/.test(request.path) && request.query.get('api-version') ? 'chat' : undefined;
		},
		userBaseURL: (port) => (v1 ? `http://127.0.0.1:${port}/openai/v1/` : `http://127.0.0.1:${port}`),
		key,
		model: 'gpt5mini',
		models: [
			{id: 'gpt-5-mini-2025-08-07', owned_by: 'system', capabilities: {chat_completion: true}, lifecycle_status: 'generally-available'},
			{id: 'gpt-4o-2024-11-20', owned_by: 'system', capabilities: {chat_completion: true}, lifecycle_status: 'generally-available'},
		],
		refuse: (request) => {
			const given = String(request.headers['api-key'] ?? (v1 ? bearer(request) : ''));
			if (given !== key) return {status: 401, body: {error: {code: '401', message: 'Access denied due to invalid subscription key or wrong API endpoint. Make sure to provide a valid key for an active subscription and use a correct regional API endpoint for your resource.'}}};
			if (!isChat(request)) return undefined;
			if (!deployments.has(deploymentOf(request))) return {status: 404, body: {error: {code: 'DeploymentNotFound', message: 'The API deployment for this resource does not exist. If you created the deployment within the last 5 minutes, please wait a moment and try again.'}}};
			const body = request.body as Record<string, unknown>;
			if ('max_tokens' in body) return badRequest("Unsupported parameter: 'max_tokens' is not supported with this model. Use 'max_completion_tokens' instead.", {param: 'max_tokens', code: 'unsupported_parameter'});
			if (body['temperature'] !== undefined && body['temperature'] !== 1) return badRequest(`Unsupported value: 'temperature' does not support ${String(body['temperature'])} with this model. Only the default (1) value is supported.`, {param: 'temperature', code: 'unsupported_value'});
			if (/FILTER-ME-PROMPT/.test(JSON.stringify(request.body.messages))) {
				return {status: 400, body: {error: {message: "The response was filtered due to the prompt triggering Azure OpenAI's content management policy. Please modify your prompt and retry.", type: null, param: 'prompt', code: 'content_filter', status: 400, innererror: {code: 'ResponsibleAIPolicyViolation', content_filter_result: {violence: {filtered: true, severity: 'medium'}}}}}};
			}
			return undefined;
		},
	};
}

/**
 * Gemini's OpenAI compatibility (ai.google.dev/gemini-api/docs/openai): base
 * /v1beta/openai/, Bearer key; the model list names `models/gemini-2.5-flash`, requests may say
 * `gemini-2.5-flash`; errors are google.rpc objects (code, message, status, details[].reason), sent
 * as a list on this endpoint: a bad key is a 400 INVALID_ARGUMENT / API_KEY_INVALID ("API key not
 * valid. Please pass a valid API key."), an unknown model a 404 NOT_FOUND. With thought summaries on,
 * replies open with `<thought>...</thought>`.
 */
const geminiSpec: Spec = {
	prefix: '/v1beta/openai',
	key: 'AIzaSyTEST-gemini-0123456789abcdefghij',
	model: 'gemini-2.5-flash',
	models: [{id: 'models/gemini-2.5-flash', owned_by: 'google'}, {id: 'models/gemini-2.5-pro', owned_by: 'google'}],
	refuse: (request) => {
		if (bearer(request) !== geminiSpec.key) return {status: 400, body: [{error: {code: 400, message: 'API key not valid. Please pass a valid API key.', status: 'INVALID_ARGUMENT', details: [{'@type': 'type.googleapis.com/google.rpc.ErrorInfo', reason: 'API_KEY_INVALID', domain: 'googleapis.com', metadata: {service: 'generativelanguage.googleapis.com'}}]}}]};
		if (!isChat(request)) return undefined;
		const name = model(request).replace(/^models\//, '');
		if (name !== 'gemini-2.5-flash' && name !== 'gemini-2.5-pro') return {status: 404, body: [{error: {code: 404, message: `models/${name} is not found for API version v1main, or is not supported for generateContent. Call ListModels to see the list of available models and their supported methods.`, status: 'NOT_FOUND'}}]};
		return undefined;
	},
	shape: (_request, reply, think) => withContent(reply, (text) => `<thought>${think()}</thought>${text}`),
};

/**
 * Groq (console.groq.com/docs/openai, /docs/structured-outputs, /docs/errors): base /openai/v1,
 * Bearer key; `n` other than 1 is a 400; strict json_schema only on some models (llama-3.3-70b is not
 * one: a 400); best-effort json_schema is checked by Groq after generation, and a reply that breaks
 * the schema is a 400 `json_validate_failed` carrying `failed_generation`.
 */
const groqSpec: Spec = (() => {
	let validated = 0;
	const spec: Spec = {
		prefix: '/openai/v1',
		key: 'gsk_TESTgroq0123456789abcdefghijklmnop',
		model: 'llama-3.3-70b-versatile',
		models: [{id: 'llama-3.3-70b-versatile', owned_by: 'Meta'}, {id: 'openai/gpt-oss-20b', owned_by: 'OpenAI'}],
		refuse: (request) => {
			if (bearer(request) !== spec.key) return {status: 401, body: {error: {message: 'Invalid API Key', type: 'invalid_request_error', code: 'invalid_api_key'}}};
			if (!isChat(request)) return undefined;
			if (model(request) !== 'llama-3.3-70b-versatile' && model(request) !== 'openai/gpt-oss-20b') return {status: 404, body: {error: {message: `The model \`${model(request)}\` does not exist or you do not have access to it.`, type: 'invalid_request_error', code: 'model_not_found'}}};
			const n = Number((request.body as Record<string, unknown>)['n'] ?? 1);
			if (n !== 1) return badRequest("'n' : number must be at most 1", {param: 'n'});
			const format = request.body.response_format;
			if (format?.type === 'json_schema' && format.json_schema?.strict === true && model(request) !== 'openai/gpt-oss-20b') return badRequest(`response_format \`json_schema\` with strict: true is not supported with model \`${model(request)}\``, {param: 'response_format'});
			// Every third best-effort reply breaks the schema the first time: Groq fails it itself.
			if (format?.type === 'json_schema' && request.stage === 'blueprint' && validated++ % 3 === 0) return badRequest("Failed to generate JSON. Please adjust your prompt. See 'failed_generation' for more details.", {code: 'json_validate_failed', failed_generation: '{"public": {"initialMessage": "Hello"}'});
			return undefined;
		},
	};
	return spec;
})();

/**
 * Together AI (docs.together.ai/reference/models-1, /docs/openai-api-compatibility, /docs/json-mode):
 * GET /models answers a bare JSON array of model objects (the OpenAI SDK's list reads it as empty);
 * json_schema is honoured without strict; errors in OpenAI's shape.
 */
const togetherSpec: Spec = {
	prefix: '/v1',
	key: 'tgp_v1_TESTtogether0123456789abcdefghij',
	model: 'meta-llama/Llama-3.3-70B-Instruct-Turbo',
	models: [{id: 'meta-llama/Llama-3.3-70B-Instruct-Turbo', type: 'chat', display_name: 'Llama 3.3 70B Instruct Turbo', organization: 'Meta', context_length: 131072}, {id: 'Qwen/Qwen2.5-72B-Instruct-Turbo', type: 'chat', organization: 'Qwen', context_length: 32768}],
	modelsBody: (data) => data,
	refuse: (request) => {
		if (bearer(request) !== togetherSpec.key) return {status: 401, body: {error: {message: 'Invalid API key provided. You can find your API key at https://api.together.xyz/settings/api-keys.', type: 'invalid_request_error', param: null, code: 'invalid_api_key'}}};
		if (!isChat(request)) return undefined;
		if (!['meta-llama/Llama-3.3-70B-Instruct-Turbo', 'Qwen/Qwen2.5-72B-Instruct-Turbo'].includes(model(request))) return {status: 404, body: {error: {message: `Unable to access model ${model(request)}. Please visit https://api.together.ai/models to view the list of supported models.`, type: 'invalid_request_error', param: null, code: 'model_not_available'}}};
		return undefined;
	},
};

/**
 * Fireworks AI (docs.fireworks.ai/tools-sdks/openai-compatibility, /structured-responses): base
 * /inference/v1, model ids `accounts/fireworks/models/...`; reasoning models such as DeepSeek R1
 * leave `<think>` blocks in the content; errors `{"error": {object, type, message}}`.
 */
const fireworksSpec: Spec = {
	prefix: '/inference/v1',
	key: 'fw_TESTfireworks0123456789abcdefghijk',
	model: 'accounts/fireworks/models/deepseek-r1',
	models: [{id: 'accounts/fireworks/models/deepseek-r1', owned_by: 'fireworks', context_length: 163840}, {id: 'accounts/fireworks/models/llama-v3p1-8b-instruct', owned_by: 'fireworks'}],
	refuse: (request) => {
		if (bearer(request) !== fireworksSpec.key) return {status: 401, body: {error: {object: 'error', type: 'invalid_request_error', message: 'The API key you provided is invalid.'}}};
		if (!isChat(request)) return undefined;
		if (!model(request).startsWith('accounts/fireworks/models/')) return {status: 404, body: {error: {object: 'error', type: 'invalid_request_error', code: 'NOT_FOUND', message: 'Model not found, inaccessible, and/or not deployed'}}};
		return undefined;
	},
	shape: (_request, reply, think) => withContent(reply, (text) => `<think>\n${think()}\n</think>\n\n${text}`),
};

/**
 * DeepSeek (api-docs.deepseek.com/api/create-chat-completion, /guides/json_mode,
 * /guides/reasoning_model): response_format `json_schema` is a 400 "This response_format type is
 * unavailable now"; `json_object` needs the word "json" in the prompt; deepseek-reasoner sends its
 * thinking in `reasoning_content`; a bad key is a 401 authentication_error.
 */
const deepseekSpec: Spec = {
	prefix: '/v1',
	key: 'sk-TESTdeepseek0123456789abcdefghijkl',
	model: 'deepseek-chat',
	models: [{id: 'deepseek-chat', owned_by: 'deepseek'}, {id: 'deepseek-reasoner', owned_by: 'deepseek'}],
	refuse: (request) => {
		if (bearer(request) !== deepseekSpec.key) return {status: 401, body: {error: {message: `Authentication Fails, Your api key: ****${bearer(request).slice(-4)} is invalid`, type: 'authentication_error', param: null, code: 'invalid_request_error'}}};
		if (!isChat(request)) return undefined;
		if (model(request) !== 'deepseek-chat' && model(request) !== 'deepseek-reasoner') return badRequest('Model Not Exist', {code: 'invalid_request_error'});
		const format = request.body.response_format;
		if (format && format.type !== 'text' && format.type !== 'json_object') return badRequest('This response_format type is unavailable now', {code: 'invalid_request_error'});
		if (format?.type === 'json_object' && !/json/i.test(JSON.stringify(request.body.messages))) return badRequest("Prompt must contain the word 'json' in some form to use 'response_format' of type 'json_object'.", {code: 'invalid_request_error'});
		return undefined;
	},
	shape: (request, reply, think) => (model(request) === 'deepseek-reasoner' && ('content' in reply || 'json' in reply) ? {...('content' in reply ? reply : {content: JSON.stringify((reply as {json: unknown}).json)}), reasoning: {field: 'reasoning_content', text: think()}} : reply),
};

/**
 * Anthropic's OpenAI SDK compatibility (docs.anthropic.com/en/api/openai-sdk; /en/docs/about-claude/models;
 * /en/api/errors): base /v1/; `response_format`, `reasoning_effort` and `seed` are ignored (the model
 * never sees them), `n` must be exactly 1, temperature runs 0 to 1; GET /v1/models needs `x-api-key`
 * and lists dated ids that aliases (`claude-sonnet-4-5`) resolve to; errors
 * `{"type": "error", "error": {"type": "authentication_error" | "not_found_error", "message"}}`.
 */
const anthropicSpec: Spec = {
	prefix: '/v1',
	userBaseURL: (port) => `http://127.0.0.1:${port}/v1/`,
	key: 'sk-ant-api03-TESTanthropic0123456789abcdefghij',
	model: 'claude-sonnet-4-5',
	models: [{id: 'claude-sonnet-4-5-20250929', type: 'model', display_name: 'Claude Sonnet 4.5', created_at: '2025-09-29T00:00:00Z'}, {id: 'claude-haiku-4-5-20251001', type: 'model', display_name: 'Claude Haiku 4.5', created_at: '2025-10-01T00:00:00Z'}],
	modelsBody: (data) => ({data: data.map(({object: _object, created: _created, owned_by: _owner, ...entry}) => entry), has_more: false, first_id: data[0]?.['id'], last_id: data[data.length - 1]?.['id']}),
	refuse: (request) => {
		const given = isChat(request) ? String(request.headers['x-api-key'] ?? bearer(request)) : String(request.headers['x-api-key'] ?? '');
		if (!given) return {status: 401, body: {type: 'error', error: {type: 'authentication_error', message: 'x-api-key header is required'}}};
		if (given !== anthropicSpec.key) return {status: 401, body: {type: 'error', error: {type: 'authentication_error', message: 'invalid x-api-key'}}};
		if (!isChat(request)) return undefined;
		if (!/^claude-(sonnet-4-5|haiku-4-5)(-\d{8})?$/.test(model(request))) return {status: 404, body: {type: 'error', error: {type: 'not_found_error', message: `model: ${model(request)}`}}};
		const body = request.body as Record<string, unknown>;
		if (body['n'] !== undefined && body['n'] !== 1) return {status: 400, body: {type: 'error', error: {type: 'invalid_request_error', message: 'n: Only n = 1 is supported'}}};
		if (typeof body['temperature'] === 'number' && body['temperature'] > 1) return {status: 400, body: {type: 'error', error: {type: 'invalid_request_error', message: 'temperature: range: 0..1'}}};
		return undefined;
	},
	ignores: ['response_format', 'reasoning_effort', 'seed'],
};

/**
 * LM Studio (lmstudio.ai/docs/app/api/endpoints/openai, /docs/app/api/structured-output;
 * lmstudio-ai/lmstudio-bug-tracker#189): no key; `response_format` json_schema is enforced, `json_object`
 * is a 400 `{"error": "'response_format.type' must be 'json_schema' or 'text'"}` (a string, not an
 * object); the model list marks entries `owned_by: "organization_owner"`.
 */
const lmstudioSpec: Spec = {
	prefix: '/v1',
	key: '',
	model: 'qwen2.5-7b-instruct',
	models: [{id: 'qwen2.5-7b-instruct', owned_by: 'organization_owner'}, {id: 'text-embedding-nomic-embed-text-v1.5', owned_by: 'organization_owner'}],
	refuse: (request) => {
		if (!isChat(request)) return undefined;
		if (model(request) !== 'qwen2.5-7b-instruct') return {status: 404, body: {error: {message: `Model "${model(request)}" not found. Please specify a valid model.`, type: 'invalid_request_error', param: 'model', code: 'model_not_found'}}};
		const format = request.body.response_format;
		if (format && format.type !== 'json_schema' && format.type !== 'text') return {status: 400, body: {error: "'response_format.type' must be 'json_schema' or 'text'"}};
		return undefined;
	},
};

const SPECS: Readonly<Record<ProviderName, Spec>> = {
	azure: azureSpec(false),
	'azure-v1': azureSpec(true),
	gemini: geminiSpec,
	groq: groqSpec,
	together: togetherSpec,
	fireworks: fireworksSpec,
	deepseek: deepseekSpec,
	anthropic: anthropicSpec,
	lmstudio: lmstudioSpec,
};
