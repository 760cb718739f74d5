import {type FakeHandler, type FakeOpenAI, type FakeReply, type FakeRequest, defaultReply, startFakeOpenAI} from './fakeOpenAI.js';
import {scriptedModel} from './scriptedModel.js';

/*
 * Loopback servers that behave the way real OpenAI-compatible servers are documented to, layered on
 * the fake server (which answers every stage with a valid reply through `scriptedModel`). Each
 * profile names the documents it follows:
 *
 * - vLLM: docs.vllm.ai "Reasoning Outputs" (v0.8-v0.26): with `--reasoning-parser` the thinking
 *   arrives in `reasoning_content` (renamed `reasoning` from v0.11), in the message and in stream
 *   deltas; without a parser it stays in `content` as `<think>...</think>`, and DeepSeek-R1 distills
 *   open the block in their chat template so only `</think>` appears. Errors are top-level
 *   `{"object": "error", "message", "type", "param", "code"}`; an unknown model is a 404
 *   ("The model `x` does not exist."); a prompt over `max_model_len` a 400. `/v1/models` entries say
 *   `owned_by: "vllm"` and `max_model_len`. `n` is honoured.
 * - Ollama: docs.ollama.com "OpenAI compatibility": local tags (`qwen3:8b`), an unknown model is a 404
 *   `{"error": {"message": "model \"x\" not found, try pulling it first", "type": "api_error"}}`
 *   (ollama/ollama issues, QAnything #555), thinking models answer in `reasoning` (since v0.12; older
 *   versions put `<think>` in content), `n` is ignored, the context window defaults to 4096 tokens
 *   and longer prompts are cut silently (the reply's prompt_tokens says so); native `/api/version`,
 *   `/api/show`, `/api/ps`.
 * - OpenAI: platform.openai.com error codes and the reasoning-model parameter rules as reported in
 *   the field (crush #422/#1216, pal-mcp-server #134, gollm #33, ComfyUI-Griptape #312):
 *   `max_tokens` -> 400 unsupported_parameter, temperature != 1 -> 400 unsupported_value, streaming
 *   for an unverified organisation -> 400 with param "stream", no credit -> 429 insufficient_quota,
 *   a wrong key -> 401 invalid_api_key.
 * - llama.cpp server (tools/server/README.md): one model, served whatever the request calls it,
 *   `/v1/models` entry `owned_by: "llamacpp"`, `response_format` json_schema with the schema read and
 *   `strict` ignored, `reasoning_content` with `--reasoning-format deepseek`, `/props` n_ctx, no `n`;
 *   a prompt over the slot's context is a 400 `exceed_context_size_error` ("request (N tokens) exceeds
 *   the available context size (M tokens), try increasing it", with n_prompt_tokens and n_ctx).
 * - OpenRouter (openrouter.ai/docs "Reasoning Tokens", "API Reference"): vendor-prefixed model names,
 *   thinking in `reasoning`, `reasoning: {effort}` request object, a 402 when credits run out.
 * - A proxy that echoes the key it was given in its 401 message.
 */

export type ThinkingStyle = 'none' | 'content' | 'content-draft' | 'close-only' | 'reasoning_content' | 'reasoning';

export type ServerProfile =
	| {readonly kind: 'vllm'; readonly models?: readonly string[]; readonly thinking?: ThinkingStyle; readonly maxModelLen?: number}
	| {readonly kind: 'ollama'; readonly models?: readonly string[]; readonly thinking?: 'none' | 'content' | 'reasoning'; readonly contextLength?: number; readonly usage?: 'always' | 'never-when-streaming'}
	| {readonly kind: 'openai'; readonly models?: readonly string[]; readonly key: string; readonly unverified?: boolean; readonly quota?: boolean}
	| {readonly kind: 'llamacpp'; readonly alias?: string; readonly thinking?: 'none' | 'reasoning_content' | 'content'; readonly nCtx?: number}
	| {readonly kind: 'openrouter'; readonly models?: readonly string[]; readonly key: string; readonly credits?: boolean}
	| {readonly kind: 'key-echo'};

/** A unique marker put in every piece of thinking text, so tests can prove none of it leaks. */
export const THINKING_MARK = 'THINK-CANARY';

export type ProfiledServer = FakeOpenAI & {readonly profile: ServerProfile};

/** Starts a profile server; `script` answers the stages (default: the scripted model). */
export async function startServer(profile: ServerProfile, script: FakeHandler = scriptedModel()): Promise<ProfiledServer> {
	let thought = 0;
	const think = () => `${THINKING_MARK}-${++thought}: the user probably wants a short plan; let me check the constraints first.`;
	const served = servedModels(profile);
	const server = await startFakeOpenAI({
		models: listedModels(profile),
		routes: nativeRoutes(profile),
		handler: async (request) => {
			const refusal = refuse(profile, request, served);
			if (refusal) return refusal;
			const base = (await script(request)) ?? defaultReply(request);
			return shape(profile, request, base, think);
		},
	});
	return Object.assign(server, {profile});
}

function servedModels(profile: ServerProfile): ReadonlySet<string> | 'any' {
	switch (profile.kind) {
		case 'vllm':
			return new Set(profile.models ?? ['Qwen/Qwen3-8B']);
		case 'ollama':
			return new Set(profile.models ?? ['qwen3:8b']);
		case 'openai':
			return new Set(profile.models ?? ['gpt-5-mini', 'gpt-5-nano', 'gpt-4.1-mini']);
		case 'openrouter':
			return new Set(profile.models ?? ['openai/gpt-5-mini', 'qwen/qwen3-8b']);
		case 'llamacpp':
		case 'key-echo':
			return 'any';
	}
}

function listedModels(profile: ServerProfile): ReadonlyArray<string | {id: string; [key: string]: unknown}> {
	const served = servedModels(profile);
	switch (profile.kind) {
		case 'vllm':
			return [...(served as Set<string>)].map((id) => ({id, owned_by: 'vllm', root: id, max_model_len: profile.maxModelLen ?? 32768}));
		case 'ollama':
			return [...(served as Set<string>)].map((id) => ({id, owned_by: 'library'}));
		case 'openai':
			return [...(served as Set<string>)].map((id) => ({id, owned_by: 'system'}));
		case 'openrouter':
			return [...(served as Set<string>)];
		case 'llamacpp':
			return [{id: profile.alias ?? 'qwen3-8b-q4_k_m.gguf', owned_by: 'llamacpp', meta: {n_ctx_train: 40960}}];
		case 'key-echo':
			return [];
	}
}

function listedIds(profile: ServerProfile): string[] {
	return listedModels(profile).map((entry) => (typeof entry === 'string' ? entry : entry.id));
}

function nativeRoutes(profile: ServerProfile): Record<string, (request: FakeRequest) => {status: number; body: unknown}> {
	if (profile.kind === 'ollama') {
		return {
			'GET /api/version': () => ({status: 200, body: {version: '0.12.6'}}),
			'GET /api/ps': () => ({status: 200, body: {models: []}}),
			'POST /api/show': (request) =>
				servedModels(profile) !== 'any' && (servedModels(profile) as Set<string>).has(String(request.body['model']))
					? {status: 200, body: {parameters: 'stop "<|im_end|>"\ntemperature 0.6', model_info: {'general.architecture': 'qwen3', 'qwen3.context_length': 40960}}}
					: {status: 404, body: {error: `model '${String(request.body['model'])}' not found`}},
		};
	}
	if (profile.kind === 'openai' || profile.kind === 'openrouter' || profile.kind === 'key-echo') {
		// Listing models needs a valid key too (it is how the preflight finds a bad one).
		return {
			'GET /v1/models': (request) => {
				// Only the key matters for a listing: an account without credit may still list models.
				const authOnly = profile.kind === 'openai' ? {...profile, quota: false, unverified: false} : profile.kind === 'openrouter' ? {...profile, credits: true} : profile;
				const refusal = refuse(authOnly, {...request, body: {model: [...listedIds(profile)][0] ?? ''}}, 'any');
				if (refusal && 'status' in refusal) return {status: refusal.status, body: refusal.body};
				return {status: 200, body: {object: 'list', data: listedModels(profile).map((entry) => (typeof entry === 'string' ? {id: entry, object: 'model', created: 0, owned_by: 'system'} : {object: 'model', created: 0, ...entry}))}};
			},
		};
	}
	if (profile.kind === 'llamacpp') return {'GET /props': () => ({status: 200, body: {default_generation_settings: {n_ctx: profile.nCtx ?? 8192}, total_slots: 1}})};
	return {};
}

const tokensOf = (request: FakeRequest) => Math.ceil((request.body.messages ?? []).reduce((sum, message) => sum + message.content.length, 0) / 4);

/** The error a server answers with before it generates anything, if any. */
function refuse(profile: ServerProfile, request: FakeRequest, served: ReadonlySet<string> | 'any'): FakeReply | undefined {
	const model = String(request.body.model ?? '');
	const body = request.body as Record<string, unknown>;
	switch (profile.kind) {
		case 'key-echo': {
			const key = String(request.headers['authorization'] ?? '').replace(/^Bearer\s+/i, '');
			return {status: 401, body: {error: {message: `Incorrect API key provided: ${key}. You can find your API key in your account settings.`, type: 'invalid_request_error', param: null, code: 'invalid_api_key'}}};
		}
		case 'openai':
		case 'openrouter': {
			if (request.headers['authorization'] !== `Bearer ${profile.key}`) {
				const given = String(request.headers['authorization'] ?? '').replace(/^Bearer\s+/i, '');
				const shown = given.length > 8 ? `${given.slice(0, 3)}****${given.slice(-4)}` : given;
				return profile.kind === 'openai'
					? {status: 401, body: {error: {message: `Incorrect API key provided: ${shown}. You can find your API key at https://platform.openai.com/account/api-keys.`, type: 'invalid_request_error', param: null, code: 'invalid_api_key'}}}
					: {status: 401, body: {error: {code: 401, message: 'No auth credentials found'}}};
			}
			if (served !== 'any' && !served.has(model)) {
				return profile.kind === 'openai'
					? {status: 404, body: {error: {message: `The model \`${model}\` does not exist or you do not have access to it.`, type: 'invalid_request_error', param: null, code: 'model_not_found'}}}
					: {status: 400, body: {error: {code: 400, message: `${model} is not a valid model ID`}}};
			}
			if (profile.kind === 'openrouter') return profile.credits === false ? {status: 402, body: {error: {code: 402, message: 'Insufficient credits. Add more using https://openrouter.ai/settings/credits'}}} : undefined;
			if (profile.quota) return {status: 429, body: {error: {message: 'You exceeded your current quota, please check your plan and billing details.', type: 'insufficient_quota', param: null, code: 'insufficient_quota'}}};
			const reasoningModel = /^(o[134]|gpt-5)(?!-chat)/.test(model);
			if (reasoningModel && 'max_tokens' in body) return badRequest("Unsupported parameter: 'max_tokens' is not supported with this model. Use 'max_completion_tokens' instead.", 'max_tokens', 'unsupported_parameter');
			if (reasoningModel && body['temperature'] !== undefined && body['temperature'] !== 1) return badRequest(`Unsupported value: 'temperature' does not support ${String(body['temperature'])} with this model. Only the default (1) value is supported.`, 'temperature', 'unsupported_value');
			if (profile.unverified && request.body.stream) return badRequest('Your organization must be verified to stream this model. Please go to: https://platform.openai.com/settings/organization/general and click on Verify Organization. If you just verified, it can take up to 15 minutes for access to propagate.', 'stream', 'unsupported_value');
			return undefined;
		}
		case 'vllm': {
			if (!(served as Set<string>).has(model)) return {status: 404, body: {object: 'error', message: `The model \`${model}\` does not exist.`, type: 'NotFoundError', param: null, code: 404}};
			const limit = profile.maxModelLen ?? 32768;
			const asked = tokensOf(request) + Number(body['max_tokens'] ?? body['max_completion_tokens'] ?? 0);
			if (asked > limit) return {status: 400, body: {object: 'error', message: `This model's maximum context length is ${limit} tokens. However, you requested ${asked} tokens. Please reduce the length of the messages or completion.`, type: 'BadRequestError', param: null, code: 400}};
			return undefined;
		}
		case 'ollama':
			if (!(served as Set<string>).has(model)) return {status: 404, body: {error: {message: `model "${model}" not found, try pulling it first`, type: 'api_error', param: null, code: null}}};
			return undefined;
		case 'llamacpp': {
			// tools/server: a prompt longer than a slot's context is refused, not cut (exceed_context_size_error).
			const nCtx = profile.nCtx ?? 8192;
			const promptTokens = tokensOf(request);
			if (promptTokens > nCtx) return {status: 400, body: {error: {code: 400, message: `request (${promptTokens} tokens) exceeds the available context size (${nCtx} tokens), try increasing it`, type: 'exceed_context_size_error', n_prompt_tokens: promptTokens, n_ctx: nCtx}}};
			const format = request.body.response_format;
			if (format?.type === 'json_schema' && !format.json_schema?.schema) return {status: 400, body: {error: {code: 400, message: 'json_schema: "schema" is required', type: 'invalid_request_error'}}};
			return undefined;
		}
	}
}

function badRequest(message: string, param: string, code: string): FakeReply {
	return {status: 400, body: {error: {message, type: 'invalid_request_error', param, code}}};
}

/** The scripted reply as this server would send it: thinking where the server puts it, usage as it reports it, choices for `n`. */
function shape(profile: ServerProfile, request: FakeRequest, reply: FakeReply, think: () => string): FakeReply {
	if (!('content' in reply) && !('json' in reply)) return reply;
	const content = 'json' in reply ? JSON.stringify(reply.json) : reply.content;
	const n = Number((request.body as Record<string, unknown>)['n'] ?? 1);
	const choices = n > 1 && (profile.kind === 'vllm' || profile.kind === 'openai') ? Array.from({length: n - 1}, (_, i) => `${content} (choice ${i + 2})`) : undefined;
	const base = {...('content' in reply ? reply : {}), content, ...(choices ? {choices} : {})};
	const style = 'thinking' in profile ? (profile.thinking ?? 'none') : profile.kind === 'openrouter' ? 'reasoning' : 'none';
	let out: FakeReply & {content: string} = base;
	if (style === 'content') out = {...base, content: `<think>\n${think()}\n</think>\n\n${content}`};
	// A JSON draft inside the thinking, of another shape than the answer.
	else if (style === 'content-draft') out = {...base, content: `<think>\n${think()} Draft: {"plan": "first try", "ok": false}\n</think>\n\n${content}`};
	else if (style === 'close-only') out = {...base, content: `${think()}\n</think>\n\n${content}`};
	else if (style === 'reasoning_content' || style === 'reasoning') out = {...base, reasoning: {field: style, text: think()}};
	if (profile.kind === 'ollama') {
		// Ollama cuts a prompt longer than its context window and counts only what it kept.
		const limit = profile.contextLength ?? 4096;
		const prompt = Math.min(tokensOf(request), limit);
		const completion = Math.ceil(out.content.length / 4);
		if (request.body.stream && profile.usage !== 'always') return {...out, usage: null};
		return {...out, usage: {prompt_tokens: prompt, completion_tokens: completion, total_tokens: prompt + completion}};
	}
	return out;
}
