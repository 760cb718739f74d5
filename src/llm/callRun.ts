import type {CallRecord, ChatMessage, ModelRole, RoleSettings, TokenUsage} from '../domain/session.js';
import {type CacheEntry, type ResponseCache, cacheKey} from './cache.js';
import type {Limiter} from './limiter.js';
import {type Exchange, type Provider, type RawReply, type WireFormat, emitWords} from './provider.js';
import {joinReasoning, reasoningStreamSplitter, splitReasoning} from './reasoning.js';
import type {Recorder} from './recorder.js';
import {type Classified, classifyError, retryDelay} from './retry.js';
import {cleanReply, fromServer, maskedTokenStream} from './serverText.js';
import {ReplyBudget, type ReplyCut, describeCut, replyLimitBytes, withReplyLimit} from './replyLimit.js';
import type {RetryPolicy} from './settings.js';
import {feedbackMessage, parseReply, prepareMessages, wireFormat} from './structured.js';
import {type CallEvent, type FailureKind, ModelCallError, type ModelRequest, type ModelResponse, type StructuredSpec} from './types.js';
import {ZERO_USAGE, addUsage, countUsage, estimateUsage} from './usage.js';

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
	/** The API keys this run holds, so nothing a server echoes back is stored or printed with one in it. */
	readonly secrets: () => readonly string[];
	/** Roles whose server refused streaming: their free-text calls ask for whole replies from then on. */
	readonly streamOff: Set<ModelRole>;
	/** True the first time a role's notice is given in this run (notices are said once). */
	readonly firstNotice: (role: ModelRole, message: string) => boolean;
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

/** A reply with thinking text taken out of every choice. */
type Clean = RawReply & {readonly choices: readonly string[]; readonly reasoning: string | null; readonly reasoningIn?: 'content' | 'field'; readonly tokensEstimated: boolean};
type Accepted = Clean & {readonly key: string | null; readonly fromCache: boolean};

/**
 * One model call from start to CallRecord: cache lookups, attempts with retries and backoff,
 * empty/truncated handling, reasoning separation, parse + validate + re-ask, recording and events.
 * Providers make single attempts; everything about "again" lives here.
 */
export class CallRun<T> {
	private readonly id: string;
	private readonly startedAt: number;
	private readonly format: WireFormat;
	private readonly spec: StructuredSpec<unknown> | undefined;
	private attempts = 0;
	private readonly retries: CallRecord['retries'] = [];
	private readonly statuses: Array<number | null> = [];
	private validationRetries = 0;
	private tokens: TokenUsage = ZERO_USAGE;
	private tokensEstimated = false;
	/** True while every reply so far came from the cache. */
	private allCached = true;
	/** Exchanges to store once the call succeeds (a failed call stores nothing, so a rerun tries again). */
	private readonly toCache: CacheEntry[] = [];
	private model: string;
	private messages: ChatMessage[];
	private lastText: string | null = null;
	private lastChoices: readonly string[] = [];
	private reasoning: string | null = null;
	private reasoningIn: 'content' | 'field' | undefined;
	private streamed: boolean | undefined;
	private cut: ReplyCut | undefined;

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
				if (!request.schema) return this.succeed(reply.text as T, reply.text, reply.choices);
				const outcome = parseReply(reply.text, request.schema, request.validate);
				if (outcome.ok) return this.succeed(outcome.value, reply.text, reply.choices);
				if (ask >= context.validationRetries) throw new CallFailure(`invalid output after ${ask + 1} repl${ask === 0 ? 'y' : 'ies'}: ${outcome.problems.join('; ')}`, 'invalid_output');
				// Re-ask inside the same conversation: the model sees its own (clean) reply and every problem.
				this.validationRetries++;
				this.messages = [...this.messages, {role: 'assistant', content: reply.text}, {role: 'user', content: feedbackMessage(outcome.problems)}];
				await this.retryAfter(`invalid output: ${outcome.problems[0] ?? 'unknown problem'}`, 0);
			}
		} catch (error) {
			const failure = error instanceof CallFailure ? error : request.signal?.aborted ? new CallFailure('aborted', 'aborted') : null;
			if (!failure) throw error;
			const message = this.mask(failure.message);
			const call = this.record(false, message);
			this.emit({type: 'call_failed', call, kind: failure.kind});
			throw new ModelCallError(`${request.stage} (${request.role}, ${settings.provider}:${settings.model}${settings.baseURL ? ` at ${settings.baseURL}` : ''}) failed: ${message}`, failure.kind, call);
		}
	}

	/** Whether this call streams: free text with a listener, unless the role says no or its server refused. */
	private get streaming(): boolean {
		const {request, settings, context} = this;
		if (this.format.type !== 'text' || !request.onToken) return false;
		if (settings.stream === false) return false;
		return settings.stream === true || !context.streamOff.has(request.role);
	}

	/** One request (fixed messages) until a usable reply: the cache, else attempts with retries. */
	private async exchange(): Promise<Accepted> {
		const {request, settings, provider, context} = this;
		const messages = this.messages;
		const n = Math.max(1, request.n ?? 1);
		const key = provider.remote && context.cache
			? cacheKey({provider: settings.provider, baseURL: settings.baseURL, model: settings.model, messages, format: this.format, temperature: settings.temperature, maxTokens: settings.maxTokens, reasoningEffort: settings.reasoningEffort, sample: request.sample, trial: request.trial, repeat: request.repeat, n, extraBody: settings.extraBody})
			: null;
		const hit = key ? context.cache!.get(key) : null;
		if (hit) {
			this.attempts++;
			const reply: Clean = {text: hit.text, choices: hit.choices ?? [hit.text], reasoning: hit.reasoning ?? null, finishReason: 'stop', usage: hit.usage, tokensEstimated: hit.tokensEstimated ?? false};
			this.book(reply);
			if (this.format.type === 'text') emitWords(hit.text, request.onToken);
			return {...reply, key, fromCache: true};
		}
		const {policy} = context;
		let truncatedOnce = false;
		for (let attempt = 1; ; attempt++) {
			this.attempts++;
			if (request.signal?.aborted) throw new CallFailure('aborted', 'aborted');
			const stream = this.streaming;
			// Tokens reach the listener through the server-text door too (keys masked, even split over tokens).
			const tokens = stream && request.onToken ? maskedTokenStream(request.onToken, context.secrets()) : null;
			const exchange: Exchange = {
				role: request.role,
				stage: request.stage,
				settings,
				messages,
				format: this.format,
				schema: this.spec,
				// Thinking text at the start of a streamed reply never reaches the live view.
				onToken: tokens ? reasoningStreamSplitter({onContent: tokens.push}) : undefined,
				stream,
				n,
				signal: request.signal,
				request: {...(request as unknown as ModelRequest<unknown>), prompt: {...request.prompt, messages}},
			};
			let raw: RawReply;
			let ticket: number | undefined;
			try {
				// The reply is read up to the role's size limit, where its bytes arrive (replyLimit.ts).
				const budget = new ReplyBudget(replyLimitBytes(request.role, settings));
				const complete = () => withReplyLimit(budget, () => provider.complete(exchange));
				raw = provider.remote
					? await context.limiter.run((slot) => {
							ticket = slot.ticket;
							return complete();
						}, request.signal, settings.baseURL ?? 'default')
					: await complete();
				if (budget.cut) raw = {...raw, finishReason: 'length', cut: budget.cut};
			} catch (error) {
				if (request.signal?.aborted) throw new CallFailure('aborted', 'aborted');
				const classified = classifyError(error, context.now());
				if (!classified) throw error;
				// What the server said (its message, an error code that may echo the key) enters here.
				const failure: Classified = {...classified, reason: this.mask(classified.reason), ...(classified.serverMessage !== undefined ? {serverMessage: this.mask(classified.serverMessage)} : {})};
				this.statuses.push(failure.status ?? null);
				if (failure.kind === 'rate_limited' && provider.remote) context.limiter.rateLimited(ticket);
				const detail = this.mask(failure.serverMessage ?? (error instanceof Error ? error.message : String(error)));
				if (failure.kind === 'stream_refused' && stream && settings.stream !== true) {
					// The server will not stream to this account (OpenAI, for organisations that are not
					// verified): whole replies from now on, said once; this attempt does not count.
					context.streamOff.add(request.role);
					this.notice(`the server refused to stream (${detail}); ${request.role} replies are asked for whole for the rest of the run (set "stream": false for this role to skip the attempt)`);
					attempt--;
					this.statuses.pop();
					continue;
				}
				if (!failure.retryable || attempt >= policy.maxAttempts) throw new CallFailure(this.failureText(failure, attempt, detail), failure.kind);
				await this.retryAfter(failure.reason, retryDelay({attempt, policy, retryAfterMs: failure.retryAfterMs, random: context.random}));
				continue;
			}
			tokens?.flush();
			const reply = await this.clean(cleanReply(raw, context.secrets()), stream);
			this.book(reply);
			if (provider.remote) context.limiter.succeeded();
			if (!stream && request.onToken && this.format.type === 'text' && reply.text) request.onToken(reply.text);
			if (reply.cut) {
				// Read only up to the role's size limit: free text is kept as far as it arrived, recorded as
				// cut with its size; a structured reply that long is no answer (re-asking would read as much again).
				this.cut = reply.cut;
				if (this.format.type !== 'text') throw new CallFailure(describeCut(request.role, reply.cut), 'too_large');
				return {...reply, key, fromCache: false};
			}
			if (reply.text.trim() === '') {
				const reason = reply.refusal ? `refusal: ${reply.refusal}` : reply.reasoning ? (reply.finishReason === 'length' ? 'the token cap was spent on reasoning: no answer came' : 'empty answer after the reasoning') : 'empty reply';
				if (reply.finishReason === 'length' && reply.reasoning) throw new CallFailure(`${reason}; raise maxTokens for the ${request.role} role, or lower its reasoningEffort (or turn thinking off, e.g. extraBody {"chat_template_kwargs": {"enable_thinking": false}})`, 'truncated');
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

	/** The final message of a failed attempt: what the server said, how often, and for set-up errors what to change. */
	private failureText(failure: Classified, attempt: number, detail: string): string {
		const statuses = this.statuses.filter((status): status is number => status !== null);
		const history = attempt > 1 && statuses.length > 1 ? ` (statuses: ${statuses.join(', ')})` : '';
		const count = failure.retryable ? ` after ${attempt} attempt(s)${history}` : '';
		return `${failure.reason}${count}: ${detail}`;
	}

	/**
	 * Thinking text out of every choice (and the server's own reasoning field kept beside it); tokens
	 * counted locally when the server sent no usage.
	 */
	private async clean(raw: RawReply, stream: boolean): Promise<Clean> {
		const choices = (raw.choices && raw.choices.length > 0 ? raw.choices : [raw.text]).map((text) => splitReasoning(text));
		const first = choices[0]!;
		let usage = raw.usage;
		let tokensEstimated = false;
		if (!usage) {
			usage = this.provider.kind === 'mock' ? estimateUsage(this.messages, raw.text) : await countUsage(this.messages, choices.map((choice) => choice.content).join(''));
			tokensEstimated = true;
		} else this.checkPromptCut(usage);
		const inContent = choices.some((choice) => choice.reasoning !== null);
		const reasoning = joinReasoning(raw.reasoning, ...choices.map((choice) => choice.reasoning));
		return {
			...raw,
			text: first.content,
			choices: choices.map((choice) => choice.content),
			reasoning,
			...(reasoning ? {reasoningIn: inContent ? ('content' as const) : ('field' as const)} : {}),
			usage,
			tokensEstimated,
			streamed: raw.streamed ?? stream,
		};
	}

	/**
	 * A server that counts far fewer prompt tokens than the prompt can hold cut it to fit its context
	 * window (Ollama does so silently at 4,096 tokens unless OLLAMA_CONTEXT_LENGTH is raised). Four
	 * characters per token overestimates no language, so a count under two thirds of that is a cut.
	 */
	private checkPromptCut(usage: TokenUsage): void {
		const chars = this.messages.reduce((sum, message) => sum + message.content.length, 0);
		if (chars < 8000 || usage.prompt * 1.5 >= chars / 4) return;
		this.notice(
			`the server counted ${usage.prompt} prompt tokens for a prompt of about ${Math.round(chars / 4)} or more: it is probably cutting prompts to fit its context window (Ollama: set OLLAMA_CONTEXT_LENGTH, e.g. 16384; vLLM: --max-model-len). Scores made from cut prompts are not valid`,
		);
	}

	/** A `notice` event to the gateway's listeners and the request's own, once per role and message. */
	private notice(message: string): void {
		if (this.context.firstNotice(this.request.role, message)) this.emit({type: 'notice', role: this.request.role, message});
	}

	private mask(text: string): string {
		return fromServer(text, this.context.secrets());
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

	/** Books every reply received: tokens, the model that answered, reasoning, the recording. */
	private book(reply: Clean): void {
		this.tokens = addUsage(this.tokens, reply.usage ?? ZERO_USAGE);
		this.tokensEstimated ||= reply.tokensEstimated;
		this.lastText = reply.text;
		this.lastChoices = reply.choices;
		this.reasoning = joinReasoning(this.reasoning, reply.reasoning);
		if (reply.reasoningIn) this.reasoningIn = this.reasoningIn === 'content' ? 'content' : reply.reasoningIn;
		if (reply.streamed !== undefined) this.streamed = reply.streamed;
		if (reply.model) this.model = reply.model;
		this.context.recorder()?.append({
			stage: this.request.stage,
			role: this.request.role,
			model: this.model,
			request: {messages: this.messages, responseFormat: this.format.type, schemaName: this.spec?.name ?? null},
			response: {text: reply.text, usage: reply.tokensEstimated ? null : reply.usage, finishReason: reply.finishReason, reasoning: reply.reasoning, ...(reply.choices.length > 1 ? {choices: [...reply.choices]} : {})},
		});
	}

	/**
	 * Notes a reply the conversation went on with. Every such exchange of a successful call is
	 * cached, the invalid replies that led to a re-ask included, so a rerun replays the same
	 * conversation from the cache without a network call.
	 */
	private keep(reply: Accepted): void {
		this.allCached &&= reply.fromCache;
		// A cut reply is not kept: a rerun asks again rather than replay a reply nobody read whole.
		if (reply.key && !reply.fromCache && !reply.cut) {
			this.toCache.push({
				key: reply.key,
				createdAt: new Date(this.context.now()).toISOString(),
				model: this.model,
				text: reply.text,
				usage: reply.usage,
				...(reply.choices.length > 1 ? {choices: [...reply.choices]} : {}),
				...(reply.reasoning ? {reasoning: reply.reasoning} : {}),
				...(reply.tokensEstimated ? {tokensEstimated: true} : {}),
			});
		}
	}

	private succeed<V>(value: V, text: string, choices: readonly string[]): ModelResponse<V> {
		for (const entry of this.toCache) this.context.cache?.set(entry);
		const call = this.record(true, null);
		this.emit({type: 'call_done', call});
		return {value, text, texts: choices.length > 0 ? choices : [text], call};
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
			reasoning: this.reasoning,
			...(this.reasoningIn ? {reasoningIn: this.reasoningIn} : {}),
			...(this.tokensEstimated ? {tokensEstimated: true} : {}),
			...(this.streamed !== undefined && this.format.type === 'text' && request.onToken ? {streamed: this.streamed} : {}),
			...(this.lastChoices.length > 1 ? {choices: [...this.lastChoices]} : {}),
			...(this.statuses.length > 0 ? {attemptStatuses: [...this.statuses]} : {}),
			...(this.cut ? {cut: this.cut} : {}),
		};
	}
}
