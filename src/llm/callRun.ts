import type {CallRecord, ChatMessage, RoleSettings, TokenUsage} from '../domain/session.js';
import {type CacheEntry, type ResponseCache, cacheKey} from './cache.js';
import type {Limiter} from './limiter.js';
import {type Exchange, type Provider, type RawReply, type WireFormat, emitWords} from './provider.js';
import type {Recorder} from './recorder.js';
import {classifyError, retryDelay} from './retry.js';
import type {RetryPolicy} from './settings.js';
import {feedbackMessage, parseReply, prepareMessages, wireFormat} from './structured.js';
import {type CallEvent, type FailureKind, ModelCallError, type ModelRequest, type ModelResponse, type StructuredSpec} from './types.js';
import {ZERO_USAGE, addUsage, estimateUsage} from './usage.js';

/** What every call of one gateway shares. */
export type CallContext = {
	readonly policy: RetryPolicy;
	readonly validationRetries: number;
	readonly limiter: Limiter;
	/** Null when caching is off. */
	readonly cache: ResponseCache | null;
	readonly recorder: () => Recorder | null;
	readonly emit: (event: CallEvent) => void;
	readonly now: () => number;
	readonly sleep: (ms: number, signal?: AbortSignal) => Promise<void>;
	readonly random: () => number;
	readonly newId: () => string;
};

/** A failure that ends the call; turned into a ModelCallError carrying the finished record. */
class CallFailure extends Error {
	constructor(
		message: string,
		readonly kind: FailureKind,
	) {
		super(message);
	}
}

type Accepted = RawReply & {readonly key: string | null; readonly fromCache: boolean};

/**
 * One model call from start to CallRecord: cache lookups, attempts with retries and backoff,
 * empty/truncated handling, parse + validate + re-ask, recording and events. Providers make single
 * attempts; everything about "again" lives here.
 */
export class CallRun<T> {
	private readonly id: string;
	private readonly startedAt: number;
	private readonly format: WireFormat;
	private readonly spec: StructuredSpec<unknown> | undefined;
	private attempts = 0;
	private readonly retries: CallRecord['retries'] = [];
	private validationRetries = 0;
	private tokens: TokenUsage = ZERO_USAGE;
	/** True while every reply so far came from the cache. */
	private allCached = true;
	/** Exchanges to store once the call succeeds (a failed call stores nothing, so a rerun tries again). */
	private readonly toCache: CacheEntry[] = [];
	private model: string;
	private messages: ChatMessage[];
	private lastText: string | null = null;

	constructor(
		private readonly context: CallContext,
		private readonly request: ModelRequest<T>,
		private readonly settings: RoleSettings,
		private readonly provider: Provider,
	) {
		this.id = context.newId();
		this.startedAt = context.now();
		this.spec = request.schema as StructuredSpec<unknown> | undefined;
		this.format = wireFormat(this.spec, settings.structured);
		this.model = settings.model;
		this.messages = prepareMessages(request.prompt.messages, this.format);
	}

	async run(): Promise<ModelResponse<T>> {
		const {request, settings, context} = this;
		this.emit({type: 'call_started', callId: this.id, role: request.role, stage: request.stage, model: settings.model, provider: settings.provider, step: request.step, maxAttempts: context.policy.maxAttempts, timeoutMs: settings.timeoutMs, request: this.messages});
		try {
			for (let ask = 0; ; ask++) {
				const reply = await this.exchange();
				this.keep(reply);
				if (!request.schema) return this.succeed(reply.text as T, reply.text);
				const outcome = parseReply(reply.text, request.schema, request.validate);
				if (outcome.ok) return this.succeed(outcome.value, reply.text);
				if (ask >= context.validationRetries) throw new CallFailure(`invalid output after ${ask + 1} repl${ask === 0 ? 'y' : 'ies'}: ${outcome.problems.join('; ')}`, 'invalid_output');
				// Re-ask inside the same conversation: the model sees its own reply and every problem.
				this.validationRetries++;
				this.messages = [...this.messages, {role: 'assistant', content: reply.text}, {role: 'user', content: feedbackMessage(outcome.problems)}];
				await this.retryAfter(`invalid output: ${outcome.problems[0] ?? 'unknown problem'}`, 0);
			}
		} catch (error) {
			const failure = error instanceof CallFailure ? error : request.signal?.aborted ? new CallFailure('aborted', 'aborted') : null;
			if (!failure) throw error;
			const call = this.record(false, failure.message);
			this.emit({type: 'call_failed', call, kind: failure.kind});
			throw new ModelCallError(`${request.stage} (${request.role}, ${settings.provider}:${settings.model}) failed: ${failure.message}`, failure.kind, call);
		}
	}

	/** One request (fixed messages) until a usable reply: the cache, else attempts with retries. */
	private async exchange(): Promise<Accepted> {
		const {request, settings, provider, context} = this;
		const messages = this.messages;
		const key = provider.remote && context.cache ? cacheKey({provider: settings.provider, baseURL: settings.baseURL, model: settings.model, messages, format: this.format, temperature: settings.temperature, maxTokens: settings.maxTokens, reasoningEffort: settings.reasoningEffort, sample: request.sample, trial: request.trial, repeat: request.repeat}) : null;
		const hit = key ? context.cache!.get(key) : null;
		if (hit) {
			this.attempts++;
			const reply: RawReply = {text: hit.text, finishReason: 'stop', usage: hit.usage};
			this.consume(reply);
			if (this.format.type === 'text') emitWords(hit.text, request.onToken);
			return {...reply, key, fromCache: true};
		}
		const exchange: Exchange = {
			role: request.role,
			stage: request.stage,
			settings,
			messages,
			format: this.format,
			schema: this.spec,
			onToken: this.format.type === 'text' ? request.onToken : undefined,
			signal: request.signal,
			request: {...(request as unknown as ModelRequest<unknown>), prompt: {...request.prompt, messages}},
		};
		const {policy} = context;
		let truncatedOnce = false;
		for (let attempt = 1; ; attempt++) {
			this.attempts++;
			if (request.signal?.aborted) throw new CallFailure('aborted', 'aborted');
			let reply: RawReply;
			try {
				reply = provider.remote ? await context.limiter.run(() => provider.complete(exchange), request.signal) : await provider.complete(exchange);
			} catch (error) {
				if (request.signal?.aborted) throw new CallFailure('aborted', 'aborted');
				const failure = classifyError(error, context.now());
				if (!failure) throw error;
				if (failure.kind === 'rate_limited' && provider.remote) context.limiter.rateLimited();
				const detail = error instanceof Error ? error.message : String(error);
				if (!failure.retryable || attempt >= policy.maxAttempts) throw new CallFailure(`${failure.reason}${failure.retryable ? ` after ${attempt} attempt(s)` : ''}: ${detail}`, failure.kind);
				await this.retryAfter(failure.reason, retryDelay({attempt, policy, retryAfterMs: failure.retryAfterMs, random: context.random}));
				continue;
			}
			this.consume(reply);
			if (provider.remote) context.limiter.succeeded();
			if (reply.text.trim() === '') {
				const reason = reply.refusal ? `refusal: ${reply.refusal}` : 'empty reply';
				if (attempt >= policy.maxAttempts) throw new CallFailure(`${reason} after ${attempt} attempt(s)`, 'empty');
				await this.retryAfter(reason, retryDelay({attempt, policy, retryAfterMs: null, random: context.random}));
				continue;
			}
			if (reply.finishReason === 'length') {
				// A cut-off reply is usually the token cap, so one more try is all that is worth paying for.
				if (truncatedOnce || attempt >= policy.maxAttempts) throw new CallFailure(`reply truncated (finish_reason "length") on ${truncatedOnce ? 'two attempts' : 'the last attempt'}; raise maxTokens for the ${request.role} role`, 'truncated');
				truncatedOnce = true;
				await this.retryAfter('truncated', 0);
				continue;
			}
			return {...reply, key, fromCache: false};
		}
	}

	/** To the gateway's listeners and the request's own. */
	private emit(event: CallEvent): void {
		this.context.emit(event);
		this.request.onEvent?.(event);
	}

	/** Records why the next attempt happens and waits. Streaming consumers discard partial tokens on this event. */
	private async retryAfter(reason: string, delayMs: number): Promise<void> {
		const {request, context} = this;
		this.retries.push({attempt: this.attempts, reason, delayMs});
		this.emit({type: 'call_retried', callId: this.id, role: request.role, stage: request.stage, attempt: this.attempts, reason, delayMs});
		if (delayMs > 0) await context.sleep(delayMs, request.signal);
	}

	/** Books every reply received: tokens, the model that answered, the recording. */
	private consume(reply: RawReply): void {
		this.tokens = addUsage(this.tokens, reply.usage ?? estimateUsage(this.messages, reply.text));
		this.lastText = reply.text;
		if (reply.model) this.model = reply.model;
		this.context.recorder()?.append({
			stage: this.request.stage,
			role: this.request.role,
			model: this.model,
			request: {messages: this.messages, responseFormat: this.format.type, schemaName: this.spec?.name ?? null},
			response: {text: reply.text, usage: reply.usage, finishReason: reply.finishReason},
		});
	}

	/**
	 * Notes a reply the conversation went on with. Every such exchange of a successful call is
	 * cached, the invalid replies that led to a re-ask included, so a rerun replays the same
	 * conversation from the cache without a network call.
	 */
	private keep(reply: Accepted): void {
		this.allCached &&= reply.fromCache;
		if (reply.key && !reply.fromCache) this.toCache.push({key: reply.key, createdAt: new Date(this.context.now()).toISOString(), model: this.model, text: reply.text, usage: reply.usage});
	}

	private succeed<V>(value: V, text: string): ModelResponse<V> {
		for (const entry of this.toCache) this.context.cache?.set(entry);
		const call = this.record(true, null);
		this.emit({type: 'call_done', call});
		return {value, text, call};
	}

	/** The finished record. `attempts` counts cache hits too, so it is never 0. */
	private record(ok: boolean, error: string | null): CallRecord {
		const {request, settings} = this;
		return {
			id: this.id,
			step: request.step,
			role: request.role,
			stage: request.stage,
			provider: settings.provider,
			model: this.model,
			prompt: request.prompt.id,
			promptHash: request.prompt.hash,
			responseFormat: this.format.type,
			startedAt: new Date(this.startedAt).toISOString(),
			latencyMs: Math.max(0, this.context.now() - this.startedAt),
			attempts: Math.max(1, this.attempts),
			retries: [...this.retries],
			validationRetries: this.validationRetries,
			tokens: this.tokens,
			cached: ok && this.allCached,
			ok,
			error,
			request: [...this.messages],
			response: this.lastText,
		};
	}
}
