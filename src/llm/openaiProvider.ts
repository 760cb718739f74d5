import OpenAI, {APIConnectionError, APIConnectionTimeoutError, APIUserAbortError} from 'openai';
import type {ChatCompletionCreateParamsBase} from 'openai/resources/chat/completions';
import type {ModelRole, RoleSettings, TokenUsage} from '../domain/session.js';
import type {Exchange, FinishReason, Provider, RawReply} from './provider.js';
import {assertNever} from './structured.js';

/** Where requests go when a role has no base URL (passed explicitly so the SDK never reads process.env itself). */
export const OPENAI_BASE_URL = 'https://api.openai.com/v1';

/**
 * Placeholder key for keyless endpoints (a local vLLM or Ollama behind a base URL): the SDK refuses
 * to start without one. Settings resolution already rejects api.openai.com without a key.
 */
const KEYLESS = 'no-key';

export type OpenAIProviderOptions = {
	/** The API key for a role, read at call time from the env var its settings name. */
	readonly apiKeyFor: (role: ModelRole) => string | undefined;
	/** Extra env-derived client options; kept injectable so tests never depend on the host's env. */
	readonly organization?: string | null;
	readonly project?: string | null;
};

/**
 * The only provider that talks to a network, always through the official SDK. One attempt per call:
 * the SDK's own retries are off (`maxRetries: 0`) because the gateway's loop owns retries, their
 * records and their events.
 */
export function createOpenAIProvider(options: OpenAIProviderOptions): Provider {
	const clients = new Map<string, OpenAI>();
	const clientFor = (settings: RoleSettings, apiKey: string): OpenAI => {
		const baseURL = settings.baseURL ?? OPENAI_BASE_URL;
		const id = JSON.stringify([baseURL, apiKey, settings.timeoutMs]);
		let client = clients.get(id);
		if (!client) {
			client = new OpenAI({baseURL, apiKey, maxRetries: 0, timeout: settings.timeoutMs, organization: options.organization ?? null, project: options.project ?? null});
			clients.set(id, client);
		}
		return client;
	};

	return {
		kind: 'openai',
		remote: true,
		async complete(exchange) {
			const client = clientFor(exchange.settings, options.apiKeyFor(exchange.role) || KEYLESS);
			// Our own deadline covers the whole attempt, streamed body included; the SDK's timeout stops
			// at the response headers.
			const controller = new AbortController();
			let timedOut = false;
			const timer = setTimeout(() => {
				timedOut = true;
				controller.abort();
			}, exchange.settings.timeoutMs);
			const forward = () => controller.abort(exchange.signal?.reason);
			if (exchange.signal?.aborted) forward();
			exchange.signal?.addEventListener('abort', forward, {once: true});
			const requestOptions = {signal: controller.signal, headers: callHeaders(exchange)};
			try {
				const body = chatBody(exchange);
				if (exchange.onToken && exchange.format.type === 'text') return await streamed(client, body, requestOptions, exchange.onToken);
				const completion = await client.chat.completions.create({...body, stream: false}, requestOptions);
				// A proxy may answer 200 with something that is not a completion: treat it as an empty reply.
				const choice = completion.choices?.[0];
				return {
					text: choice?.message.content ?? '',
					finishReason: finishReasonOf(choice?.finish_reason),
					usage: usageOf(completion.usage),
					...(choice?.message.refusal ? {refusal: choice.message.refusal} : {}),
				};
			} catch (error) {
				if (timedOut) throw new APIConnectionTimeoutError({message: `no complete reply within ${exchange.settings.timeoutMs} ms`});
				throw error;
			} finally {
				clearTimeout(timer);
				exchange.signal?.removeEventListener('abort', forward);
			}
		},
	};
}

async function streamed(client: OpenAI, body: ChatCompletionCreateParamsBase, requestOptions: {signal: AbortSignal; headers: Record<string, string>}, onToken: (delta: string) => void): Promise<RawReply> {
	const stream = await client.chat.completions.create({...body, stream: true, stream_options: {include_usage: true}}, requestOptions);
	let text = '';
	let finishReason: FinishReason = 'other';
	let usage: TokenUsage | null = null;
	let finished = false;
	for await (const chunk of stream) {
		const choice = chunk.choices?.[0];
		const delta = choice?.delta?.content;
		if (delta) {
			text += delta;
			onToken(delta);
		}
		if (choice?.finish_reason) {
			finished = true;
			finishReason = finishReasonOf(choice.finish_reason);
		}
		if (chunk.usage) usage = usageOf(chunk.usage);
	}
	// The SDK ends the iteration quietly when the request is aborted (our deadline included), and a
	// dropped connection can end it without a finish_reason: neither is a complete reply.
	if (requestOptions.signal.aborted) throw new APIUserAbortError();
	if (!finished) throw new APIConnectionError({message: 'the stream ended without a finish_reason (connection closed early)'});
	return {text, finishReason, usage};
}

/**
 * The request body (pure, so tests can check it without a server).
 *
 * Token cap: api.openai.com takes `max_completion_tokens` and rejects `max_tokens` for reasoning
 * models (o-series, gpt-5), while many OpenAI-compatible servers (older vLLM, llama.cpp, proxies)
 * only know `max_tokens`; so the field depends on the host. Temperature is omitted when null because
 * several models accept only their default and reject any explicit value.
 */
export function chatBody(exchange: Pick<Exchange, 'settings' | 'messages' | 'format'>): ChatCompletionCreateParamsBase {
	const {settings, messages, format} = exchange;
	const body: ChatCompletionCreateParamsBase = {model: settings.model, messages: messages.map(({role, content}) => ({role, content}))};
	if (settings.temperature !== null) body.temperature = settings.temperature;
	if (settings.reasoningEffort) body.reasoning_effort = settings.reasoningEffort;
	if (settings.maxTokens !== null) {
		if (usesMaxCompletionTokens(settings.baseURL)) body.max_completion_tokens = settings.maxTokens;
		else body.max_tokens = settings.maxTokens;
	}
	switch (format.type) {
		case 'json_schema':
			body.response_format = {type: 'json_schema', json_schema: {name: format.name, strict: true, schema: {...format.jsonSchema}}};
			break;
		case 'json_object':
			body.response_format = {type: 'json_object'};
			break;
		case 'prompt':
		case 'text':
			break;
		default:
			assertNever(format);
	}
	return body;
}

export function usesMaxCompletionTokens(baseURL: string | null): boolean {
	if (baseURL === null) return true;
	try {
		return new URL(baseURL).hostname === 'api.openai.com';
	} catch {
		return false;
	}
}

/** Role and stage travel as headers so proxies can route or meter by them and test fakes can script by them. */
function callHeaders(exchange: Pick<Exchange, 'role' | 'stage'>): Record<string, string> {
	return {'x-cultureconverse-role': exchange.role, 'x-cultureconverse-stage': exchange.stage.replace(/[^\x20-\x7e]/g, '?')};
}

function finishReasonOf(reason: string | null | undefined): FinishReason {
	if (reason === 'stop') return 'stop';
	if (reason === 'length') return 'length';
	return 'other';
}

function usageOf(usage: OpenAI.CompletionUsage | null | undefined): TokenUsage | null {
	if (!usage) return null;
	return {prompt: usage.prompt_tokens, completion: usage.completion_tokens, total: usage.total_tokens};
}
