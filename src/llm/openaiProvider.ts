import OpenAI, {APIConnectionError, APIConnectionTimeoutError, APIError, APIUserAbortError} from 'openai';
import type {ChatCompletionCreateParamsBase} from 'openai/resources/chat/completions';
import type {ModelRole, TokenUsage} from '../domain/session.js';
import {createClientCache} from './client.js';
import {errorInCompletion} from './openaiFetch.js';
import {wireRules} from './modelFamily.js';
import type {Exchange, FinishReason, Provider, RawReply} from './provider.js';
import {assertNever} from './structured.js';
import {replyBudget} from './replyLimit.js';

export {OPENAI_BASE_URL} from './client.js';

export type OpenAIProviderOptions = {
	/** The API key for a role, read at call time from the env var its settings name. */
	readonly apiKeyFor: (role: ModelRole) => string | undefined;
	/** Extra env-derived client options; kept injectable so tests never depend on the host's env. */
	readonly organization?: string | null;
	readonly project?: string | null;
};

/**
 * The only provider that talks to a network, always through the official SDK (its Azure client for
 * Azure's deployments URL: client.ts). One attempt per call: the SDK's own retries are off because
 * the gateway's loop owns retries, their records and their events.
 */
export function createOpenAIProvider(options: OpenAIProviderOptions): Provider {
	const clientFor = createClientCache();

	return {
		kind: 'openai',
		remote: true,
		async complete(exchange) {
			const {settings} = exchange;
			const client = clientFor({baseURL: settings.baseURL, preset: settings.preset, dialect: settings.dialect, apiVersion: settings.apiVersion, apiKey: options.apiKeyFor(exchange.role), timeoutMs: settings.timeoutMs, organization: options.organization ?? null, project: options.project ?? null});
			// Our own deadline: a whole reply must arrive within timeoutMs, and a stream may stay
			// silent between chunks for at most timeoutMs (a long answer that keeps coming is not hung).
			// The SDK's own timeout stops at the response headers.
			const deadline = new Deadline(settings.timeoutMs, exchange.signal);
			const requestOptions = {signal: deadline.signal, headers: callHeaders(exchange)};
			try {
				const body = chatBody(exchange);
				if (exchange.stream && exchange.format.type === 'text') return await streamed(client, body, requestOptions, exchange, deadline);
				const {data: completion, response} = await client.chat.completions.create({...body, stream: false}, requestOptions).withResponse();
				const failed = errorInCompletion(completion);
				if (failed) throw failed;
				// A proxy may answer 200 with something that is not a completion: treat it as an empty reply.
				const choices = completion.choices ?? [];
				const first = choices[0];
				const message = first?.message as (OpenAI.ChatCompletionMessage & ReasoningFields) | undefined;
				return {
					text: message?.content ?? '',
					...(choices.length > 1 ? {choices: choices.map((choice) => choice.message?.content ?? '')} : {}),
					reasoning: reasoningOf(message),
					finishReason: finishReasonOf(first?.finish_reason),
					usage: usageOf(completion.usage),
					streamed: false,
					...(message?.refusal ? {refusal: message.refusal} : {}),
					headers: response.headers,
				};
			} catch (error) {
				if (deadline.expired) throw new APIConnectionTimeoutError({message: deadline.message()});
				throw error;
			} finally {
				deadline.clear();
			}
		},
	};
}

/** Fields servers use for thinking text sent apart from the answer. */
type ReasoningFields = {reasoning_content?: string | null; reasoning?: string | null};

function reasoningOf(fields: ReasoningFields | undefined | null): string | null {
	const text = fields?.reasoning_content ?? fields?.reasoning;
	return typeof text === 'string' && text.trim() !== '' ? text : null;
}

/** An abort that fires after `ms` of silence (`touch()` restarts the wait) or when `outer` aborts. */
class Deadline {
	private readonly controller = new AbortController();
	private timer: NodeJS.Timeout | undefined;
	private idle = false;
	expired = false;
	private readonly forward = () => this.controller.abort(this.outer?.reason);

	constructor(
		private readonly ms: number,
		private readonly outer: AbortSignal | undefined,
	) {
		if (outer?.aborted) this.forward();
		outer?.addEventListener('abort', this.forward, {once: true});
		this.arm();
	}

	get signal(): AbortSignal {
		return this.controller.signal;
	}

	/** From now on the deadline is an idle timeout: each chunk restarts it. */
	touch(): void {
		this.idle = true;
		this.arm();
	}

	message(): string {
		return this.idle ? `the stream sent nothing for ${this.ms} ms` : `no complete reply within ${this.ms} ms`;
	}

	clear(): void {
		clearTimeout(this.timer);
		this.outer?.removeEventListener('abort', this.forward);
	}

	private arm(): void {
		clearTimeout(this.timer);
		this.timer = setTimeout(() => {
			this.expired = true;
			this.controller.abort();
		}, this.ms);
	}
}

async function streamed(client: OpenAI, body: ChatCompletionCreateParamsBase, requestOptions: {signal: AbortSignal; headers: Record<string, string>}, exchange: Exchange, deadline: Deadline): Promise<RawReply> {
	// Usage in the last chunk, where the server was not found to refuse stream_options (capabilities.ts).
	const usageOption = exchange.capabilities?.includeUsage === false ? {} : {stream_options: {include_usage: true}};
	const {data: stream, response} = await client.chat.completions.create({...body, stream: true, ...usageOption}, requestOptions).withResponse();
	let text = '';
	let reasoning = '';
	let finishReason: FinishReason = 'other';
	let usage: TokenUsage | null = null;
	let finished = false;
	for await (const chunk of stream) {
		deadline.touch();
		const choice = chunk.choices?.[0];
		const delta = choice?.delta as ({content?: string | null} & ReasoningFields) | undefined;
		const content = delta?.content;
		if (content) {
			text += content;
			exchange.onToken?.(content);
		}
		const thought = delta?.reasoning_content ?? delta?.reasoning;
		if (typeof thought === 'string') reasoning += thought;
		if (choice?.finish_reason) {
			finished = true;
			finishReason = finishReasonOf(choice.finish_reason);
			// OpenRouter ends a failed generation with finish_reason "error" (with an error field the SDK
			// throws on; without one, this is the same failure): a failed attempt, never a reply.
			if (finishReason === 'error') throw new APIError(undefined, {message: 'the server ended the stream with finish_reason "error"', code: 'server_error'}, undefined, undefined);
		}
		if (chunk.usage) usage = usageOf(chunk.usage);
	}
	// The SDK ends the iteration quietly when the request is aborted (our deadline included), and a
	// dropped connection can end it without a finish_reason: neither is a complete reply.
	if (requestOptions.signal.aborted) throw new APIUserAbortError();
	// Ended by the reply-size limit, not by the server: what arrived up to it is the (cut) reply.
	if (!finished && replyBudget()?.cut) return {text, reasoning: reasoning.trim() === '' ? null : reasoning, finishReason: 'length', usage, streamed: true, headers: response.headers};
	if (!finished) throw new APIConnectionError({message: 'the stream ended without a finish_reason (connection closed early)'});
	return {text, reasoning: reasoning.trim() === '' ? null : reasoning, finishReason, usage, streamed: true, headers: response.headers};
}

/** Keys of the request body that `extraBody` may not replace: they are how this tool reads the reply. */
const PROTECTED = new Set(['model', 'messages', 'stream', 'stream_options', 'n']);

/**
 * The request body (pure, so tests can check it without a server). Parameter rules come from the
 * model's family and the endpoint (`wireRules`), never from the host alone; `extraBody` is merged
 * last, so a role can send any server-specific field (vLLM's `chat_template_kwargs` or
 * `guided_json`, `seed`, `top_p`, OpenRouter's `provider`).
 */
export function chatBody(exchange: Pick<Exchange, 'settings' | 'messages' | 'format'> & {readonly n?: number}): ChatCompletionCreateParamsBase {
	const {settings, messages, format} = exchange;
	const rules = wireRules(settings);
	const body: ChatCompletionCreateParamsBase & Record<string, unknown> = {model: settings.model, messages: messages.map(({role, content}) => ({role, content}))};
	if (settings.temperature !== null && rules.sampling) body.temperature = settings.temperature;
	if (settings.reasoningEffort && rules.effortField !== null) {
		if (rules.effortField === 'reasoning.effort') body['reasoning'] = {effort: settings.reasoningEffort};
		else body.reasoning_effort = settings.reasoningEffort as ChatCompletionCreateParamsBase['reasoning_effort'];
	}
	if (settings.maxTokens !== null) body[rules.tokenField] = settings.maxTokens;
	if (exchange.n !== undefined && exchange.n > 1) body.n = exchange.n;
	switch (format.type) {
		case 'json_schema':
			body.response_format = {type: 'json_schema', json_schema: {name: format.name, strict: format.strict !== false, schema: {...format.jsonSchema}}};
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
	for (const [key, value] of Object.entries(settings.extraBody ?? {})) if (!PROTECTED.has(key)) body[key] = value;
	return body;
}

/** Role and stage travel as headers so proxies can route or meter by them and test fakes can script by them. */
function callHeaders(exchange: Pick<Exchange, 'role' | 'stage'>): Record<string, string> {
	return {'x-cultureconverse-role': exchange.role, 'x-cultureconverse-stage': exchange.stage.replace(/[^\x20-\x7e]/g, '?')};
}

function finishReasonOf(reason: string | null | undefined): FinishReason {
	if (reason === 'stop' || reason === 'length' || reason === 'content_filter' || reason === 'error') return reason;
	return 'other';
}

function usageOf(usage: OpenAI.CompletionUsage | null | undefined): TokenUsage | null {
	if (!usage || typeof usage.prompt_tokens !== 'number') return null;
	const completion = usage.completion_tokens ?? 0;
	return {prompt: usage.prompt_tokens, completion, total: usage.total_tokens ?? usage.prompt_tokens + completion};
}
