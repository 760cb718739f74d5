import type {CallRecord, ChatMessage, ModelRole, RoleSettings, TokenUsage} from '../domain/session.js';
import {truncatedAdvice} from './advice.js';
import {type CacheEntry, type ResponseCache, cacheKey} from './cache.js';
import {type Capabilities, type CapabilityStore, capabilitiesOf, nextMode} from './capabilities.js';
import {type Limiter, headersOf} from './limiter.js';
import {isLocal} from './presets.js';
import {type Exchange, type FinishReason, type Provider, type RawReply, type WireFormat, emitWords} from './provider.js';
import {joinReasoning, reasoningStreamSplitter, splitReasoning} from './reasoning.js';
import type {Recorder} from './recorder.js';
import {type Classified, type Refusal, classifyError, retryDelay} from './retry.js';
import {cleanReply, fromServer, maskedTokenStream} from './serverText.js';
import {ReplyBudget, type ReplyCut, describeCut, replyLimitBytes, withReplyLimit} from './replyLimit.js';
import type {RetryPolicy} from './settings.js';
import {schemaFidelity} from './schemaFidelity.js';
import {feedbackMessage, modeOfFormat, parseReply, prepareMessages, wireFormat} from './structured.js';
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
	/** What each endpoint and model was found to accept (capabilities.ts); null for a gateway that negotiates nothing. */
	readonly capabilities: CapabilityStore | null;
};

/** A failure that ends the call; turned into a ModelCallError carrying the finished record. */
class CallFailure extends Error {
	constructor(
		message: string,
		readonly kind: FailureKind,
		readonly refused?: Refusal,
	) {
		super(message);
	}
}

/** The request changed (a structured mode or option the server refused is dropped): build it again and ask again. */
class AskAgain extends Error {}

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
	private format: WireFormat;
	/** What the endpoint was found to accept, re-read after each step down. */
	private capabilities: Capabilities | undefined;
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
	/** The re-asks so far (the model's reply and the feedback), after the prompt's own messages. */
	private tail: ChatMessage[] = [];
	/** A token cap raised for a re-ask after a cut structured reply ("more room"); null = the role's own. */
	private maxTokensOverride: number | null = null;
	private finishReason: FinishReason | undefined;
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
		this.capabilities = provider.kind === 'openai' ? capabilitiesOf(settings, context.capabilities?.get(settings) ?? null) : undefined;
		const mode = this.capabilities?.structured ?? (settings.structured === 'auto' ? 'json_schema_strict' : settings.structured === 'json_schema' ? 'json_schema_strict' : settings.structured);
		this.format = wireFormat(this.spec, mode, schemaFidelity(settings, mode));
		this.model = settings.model;
		this.messages = prepareMessages(request.prompt.messages, this.format);
	}

	/** The conversation for the current format: the prompt (with the schema spelled out where the mode needs it) and every re-ask. */
	private rebuild(): void {
		this.messages = [...prepareMessages(this.request.prompt.messages, this.format), ...this.tail];
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
				this.tail = [...this.tail, {role: 'assistant', content: reply.text}, {role: 'user', content: feedbackMessage(outcome.problems)}];
				this.rebuild();
				await this.retryAfter(`invalid output: ${outcome.problems[0] ?? 'unknown problem'}`, 0);
			}
		} catch (error) {
			const failure = error instanceof CallFailure ? error : request.signal?.aborted ? new CallFailure('aborted', 'aborted') : null;
			if (!failure) throw error;
			const message = this.mask(failure.message);
			const call = this.record(false, message);
			this.emit({type: 'call_failed', call, kind: failure.kind});
			throw new ModelCallError(`${request.stage} (${request.role}, ${settings.provider}:${settings.model}${settings.baseURL ? ` at ${settings.baseURL}` : ''}) failed: ${message}`, failure.kind, call, failure.refused);
		}
	}

	/** Whether this call streams: free text with a listener, unless the role says no or its server refused. */
	private get streaming(): boolean {
		const {request, settings, context} = this;
		if (this.format.type !== 'text' || !request.onToken) return false;
		if (settings.stream === false) return false;
		return settings.stream === true || !context.streamOff.has(request.role);
	}

	/** One request until a usable reply; asked again from the start when a refusal changed the request. */
	private async exchange(): Promise<Accepted> {
		for (;;) {
			try {
				return await this.exchangeOnce();
			} catch (error) {
				if (!(error instanceof AskAgain)) throw error;
			}
		}
	}

	/** One request (fixed messages) until a usable reply: the cache, else attempts with retries. */
	private async exchangeOnce(): Promise<Accepted> {
		const {request, provider, context} = this;
		const settings = this.maxTokensOverride === null ? this.settings : {...this.settings, maxTokens: this.maxTokensOverride};
		const messages = this.messages;
		const n = Math.max(1, request.n ?? 1);
		const key = provider.remote && context.cache
			? cacheKey({provider: settings.provider, baseURL: settings.baseURL, model: settings.model, messages, format: this.format, temperature: settings.temperature, maxTokens: this.settings.maxTokens, reasoningEffort: settings.reasoningEffort, sample: request.sample, trial: request.trial, repeat: request.repeat, n, extraBody: settings.extraBody})
			: null;
		const hit = key ? context.cache!.get(key) : null;
		if (hit) {
			this.attempts++;
			const reply: Clean = {text: hit.text, choices: hit.choices ?? [hit.text], reasoning: hit.reasoning ?? null, finishReason: hit.finishReason ?? 'stop', usage: hit.usage, tokensEstimated: hit.tokensEstimated ?? false};
			this.book(reply);
			if (this.format.type === 'text') emitWords(hit.text, request.onToken);
			return {...reply, key, fromCache: true};
		}
		const {policy} = context;
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
				...(this.capabilities ? {capabilities: this.capabilities} : {}),
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
				if (provider.remote && failure.status !== undefined) context.limiter.observe({ticket, endpoint: settings.baseURL ?? 'default', rateLimited: failure.kind === 'rate_limited', headers: headersOf(error)});
				const detail = this.mask(failure.serverMessage ?? failure.detail ?? (error instanceof Error ? error.message : String(error)));
				if (failure.refused) await this.stepDown(failure, detail, n);
				if (failure.failedGeneration !== undefined) {
					// Groq checked the reply against the schema itself and refused it: the model's text is a
					// reply like any other that broke the schema, so it is re-asked, not the end of the call.
					const reply = await this.clean({text: failure.failedGeneration, finishReason: 'other', usage: null}, false);
					this.book(reply);
					return {...reply, key: null, fromCache: false};
				}
				if (failure.kind === 'stream_refused' && stream && settings.stream !== true) {
					// The server will not stream to this account (OpenAI, for organisations that are not
					// verified): whole replies from now on, said once; this attempt does not count.
					context.streamOff.add(request.role);
					if (this.capabilities) context.capabilities?.learn(this.settings, {stream: false, refusal: {what: 'stream', message: detail}}, 'learned');
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
			if (provider.remote) {
				context.limiter.observe({ticket, endpoint: settings.baseURL ?? 'default', rateLimited: false, headers: raw.headers, ...(raw.usage ? {tokens: raw.usage.total} : {})});
				context.limiter.succeeded();
			}
			if (!stream && request.onToken && this.format.type === 'text' && reply.text) request.onToken(reply.text);
			if (reply.cut) {
				// Read only up to the role's size limit: free text is kept as far as it arrived, recorded as
				// cut with its size; a structured reply that long is no answer (re-asking would read as much again).
				this.cut = reply.cut;
				if (this.format.type !== 'text') throw new CallFailure(describeCut(request.role, reply.cut), 'too_large');
				return {...reply, key, fromCache: false};
			}
			if (reply.finishReason === 'content_filter') {
				// A provider's content filter cut the reply (Azure): a partial free-text reply is kept and
				// marked (the turn records it, reports leave it out); nothing to keep is this item's failure.
				if (this.format.type !== 'text' || reply.text.trim() === '') throw new CallFailure(`the provider's content filter blocked the reply (finish_reason "content_filter")${reply.text.trim() ? '' : ': no text came back'}`, 'content_filter');
				return {...reply, key, fromCache: false};
			}
			if (reply.text.trim() === '') {
				const reason = reply.refusal ? `refusal: ${reply.refusal}` : reply.reasoning ? (reply.finishReason === 'length' ? 'the token cap was spent on reasoning: no answer came' : 'empty answer after the reasoning') : 'empty reply';
				if (reply.finishReason === 'length' && reply.reasoning) throw new CallFailure(`${reason}; ${truncatedAdvice(request.role, settings, reply.usage, {reasoning: true})}`, 'truncated');
				if (attempt >= policy.maxAttempts) throw new CallFailure(`${reason} after ${attempt} attempt(s)`, 'empty');
				await this.retryAfter(reason, retryDelay({attempt, policy, retryAfterMs: null, random: context.random}));
				continue;
			}
			if (reply.finishReason === 'length' && this.format.type !== 'text') {
				// A cut structured reply cannot parse: ask once more with twice the room it had.
				const room = this.moreRoom(settings, reply.usage);
				if (room === null || attempt >= policy.maxAttempts) throw new CallFailure(`reply truncated (finish_reason "length")${this.maxTokensOverride !== null ? ` even with ${this.maxTokensOverride} tokens of room` : ''}; ${truncatedAdvice(request.role, this.settings, reply.usage, {reasoning: false})}`, 'truncated');
				this.maxTokensOverride = room;
				await this.retryAfter(`truncated: asked again with a ${room}-token cap`, 0);
				throw new AskAgain();
			}
			// A cut free-text reply (finish_reason "length") is kept and marked: asking again under the same
			// cap gives another cut reply; the turn says it is cut and reports can leave it out.
			return {...reply, key, fromCache: false};
		}
	}

	/**
	 * A server refused part of the request that the call can do without: a structured mode (the next
	 * one on the provider's ladder, down to prompt-only), `stream_options` (usage is counted locally),
	 * OpenRouter's routing (no provider takes a parameter: the structured mode again). What was learnt
	 * is recorded for the endpoint and model, said once, and the request is asked again. `n` and
	 * `reasoning_effort` are left to the caller (best-of falls back to single requests; an effort the
	 * role asked for is not silently dropped).
	 */
	private async stepDown(failure: Classified, detail: string, n: number): Promise<void> {
		const {context, request} = this;
		const settings = this.settings;
		if (!this.capabilities) return;
		if (failure.refused === 'stream_options') {
			context.capabilities?.learn(settings, {includeUsage: false, refusal: {what: 'stream_options', message: detail}}, 'learned');
			this.capabilities = {...this.capabilities, includeUsage: false};
			this.notice(`the server refused stream_options (${detail}); streamed ${request.role} replies are asked for without usage, whose tokens are counted locally`);
			await this.retryAfter('stream_options refused: asked again without it', 0);
			throw new AskAgain();
		}
		if ((failure.refused === 'response_format' || failure.refused === 'routing') && this.format.type !== 'text' && !(failure.refused === 'routing' && n > 1)) {
			const mode = modeOfFormat(this.format)!;
			if (settings.structured !== 'auto') throw new CallFailure(`${failure.reason}: ${detail}; the ${request.role} role's structured mode is set to "${settings.structured}" by hand: set "structured": "auto" (or another mode) so the tool uses what the server accepts`, 'bad_request', failure.refused);
			const next = nextMode(settings, mode);
			if (next === null) return;
			context.capabilities?.learn(settings, {structured: next, refusal: {what: `structured:${mode}`, message: detail}}, 'learned');
			this.capabilities = capabilitiesOf(settings, context.capabilities?.get(settings) ?? null);
			if (this.capabilities.structured !== next) this.capabilities = {...this.capabilities, structured: next};
			this.format = wireFormat(this.spec, next);
			this.rebuild();
			this.notice(`${settings.baseURL ?? 'the endpoint'} refused structured mode ${mode} for ${settings.model} (${detail}); ${request.role} calls use ${next} from now on (recorded for this endpoint and model)`);
			await this.retryAfter(`structured mode ${mode} refused: asked again in ${next}`, 0);
			throw new AskAgain();
		}
	}

	/** The token cap for a re-ask after a cut structured reply: twice the room it had, or null when it already had that. */
	private moreRoom(settings: RoleSettings, usage: TokenUsage | null): number | null {
		if (this.maxTokensOverride !== null) return null;
		const had = settings.maxTokens ?? usage?.completion ?? null;
		if (had === null || had <= 0) return null;
		return Math.min(32_768, Math.max(1024, had * 2));
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
		this.finishReason = reply.finishReason;
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
				...(reply.finishReason === 'length' || reply.finishReason === 'content_filter' ? {finishReason: reply.finishReason} : {}),
			});
		}
	}

	private succeed<V>(value: V, text: string, choices: readonly string[]): ModelResponse<V> {
		for (const entry of this.toCache) this.context.cache?.set(entry);
		const call = this.record(true, null);
		this.emit({type: 'call_done', call});
		const cut = this.finishReason === 'length' || this.finishReason === 'content_filter' ? this.finishReason : undefined;
		return {value, text, texts: choices.length > 0 ? choices : [text], call, ...(cut ? {cut} : {})};
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
			...(this.finishReason ? {finishReason: this.finishReason} : {}),
			...(modeOfFormat(this.format) ? {structuredMode: modeOfFormat(this.format)!} : {}),
			...(settings.provider === 'openai' && isLocal(settings) ? {local: true} : {}),
			...(this.cut ? {cut: this.cut} : {}),
		};
	}
}
