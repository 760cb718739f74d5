import {z} from 'zod';
import {Blueprint} from './blueprint.js';
import {Evidence} from './kb.js';
import {Seed} from './seed.js';
import {Shard} from './shards.js';
import {Template} from './template.js';
import {Persona} from './universe.js';

/** The five model roles (paper Table 9). */
export const ModelRole = z.enum(['generator', 'validator', 'simulator', 'assistant', 'judge']);
export type ModelRole = z.infer<typeof ModelRole>;

export const ProviderKind = z.enum(['openai', 'mock', 'replay']);
export type ProviderKind = z.infer<typeof ProviderKind>;

/**
 * How a role asks for structured replies: `auto` (the default) uses what the server was found to
 * accept (src/llm/capabilities.ts: strict json_schema, then json_object, then prompt-only), the others
 * fix one mode by hand.
 */
export const ResponseFormatMode = z.enum(['json_schema', 'json_object', 'prompt', 'auto']);
export type ResponseFormatMode = z.infer<typeof ResponseFormatMode>;

/** The provider presets (src/llm/presets.ts): what an endpoint is, so the model layer speaks its dialect. */
export const ProviderPreset = z.enum(['openai', 'azure', 'gemini', 'groq', 'together', 'fireworks', 'deepseek', 'anthropic', 'openrouter', 'vllm', 'ollama', 'llamacpp', 'lmstudio', 'compatible']);
export type ProviderPreset = z.infer<typeof ProviderPreset>;

/** reasoning_effort values passed through to the server (which of them a model accepts is the server's business). */
export const ReasoningEffort = z.enum(['none', 'minimal', 'low', 'medium', 'high', 'xhigh']);
export type ReasoningEffort = z.infer<typeof ReasoningEffort>;

/** Whether a role's free-text calls stream: auto streams and falls back to whole replies when the server refuses streaming. */
export const StreamMode = z.union([z.boolean(), z.literal('auto')]);
export type StreamMode = z.infer<typeof StreamMode>;

/** How one role reaches its model; recorded in every session (scores from different models do not compare). */
export const RoleSettings = z.strictObject({
	provider: ProviderKind,
	model: z.string(),
	baseURL: z.string().nullable(),
	temperature: z.number().nullable(),
	maxTokens: z.number().int().positive().nullable(),
	timeoutMs: z.number().int().positive(),
	structured: ResponseFormatMode,
	replayFile: z.string().nullable(),
	/** Sent as `reasoning_effort` (OpenRouter: `reasoning.effort`); absent = the model's default. */
	reasoningEffort: ReasoningEffort.nullable().optional(),
	/** Streaming of free-text calls; absent = auto. */
	stream: StreamMode.optional(),
	/** JSON merged into every request body of the role (chat_template_kwargs, seed, top_p, provider, ...); never holds a key. */
	extraBody: z.record(z.string(), z.unknown()).optional(),
	/** The server honours `n` (several choices in one request), so best-of-N asks once. */
	supportsN: z.boolean().optional(),
	/** The API dialect the endpoint speaks, when set by hand (a proxy in front of OpenRouter or Azure); absent = known from the host. */
	dialect: z.enum(['openai', 'azure', 'openrouter', 'compatible']).optional(),
	/** How much of each reply schema is sent (src/llm/schemaFidelity.ts); absent = decided from the server's kind. */
	schemaFidelity: z.enum(['portable', 'enforced']).optional(),
	/** Settings the model layer changed to fit the model family (e.g. a temperature dropped for a reasoning model), each said once. */
	notices: z.array(z.string()).optional(),
	/** The provider preset the endpoint is spoken to with (auth, URL shape, parameter rules, error shapes); absent = guessed from the URL. */
	preset: ProviderPreset.optional(),
	/** True when `preset` was guessed from the base URL rather than set (`--provider` / "provider"). */
	presetGuessed: z.boolean().optional(),
	/** The model's family when its name does not say (an Azure deployment called "prod-1"): reasoning models get no sampling settings and max_completion_tokens. */
	family: z.enum(['reasoning', 'chat']).optional(),
	/** Azure's api-version for the deployments URL (default 2024-10-21; a base URL's own ?api-version= wins). */
	apiVersion: z.string().optional(),
	/** Largest reply read, in KB (config `maxReplyKB` or --max-reply-kb); absent = the role's default (llm/replyLimit.ts). */
	maxReplyKB: z.number().positive().optional(),
});
export type RoleSettings = z.infer<typeof RoleSettings>;

export const ChatMessage = z.strictObject({role: z.enum(['system', 'user', 'assistant']), content: z.string()});
export type ChatMessage = z.infer<typeof ChatMessage>;

export const TokenUsage = z.strictObject({prompt: z.number().int().nonnegative(), completion: z.number().int().nonnegative(), total: z.number().int().nonnegative()});
export type TokenUsage = z.infer<typeof TokenUsage>;

export const RetryRecord = z.strictObject({attempt: z.number().int().positive(), reason: z.string(), delayMs: z.number().nonnegative()});

/** A reply read only up to its role's size limit: the limit, the bytes read, the size the server announced (null: none). */
export const ReplyCutShape = z.strictObject({limitBytes: z.number().int().positive(), readBytes: z.number().int().nonnegative(), totalBytes: z.number().int().nonnegative().nullable()});

/** One model call with everything needed to debug it: raw prompt, raw reply, attempts, cost. */
export const CallRecord = z.strictObject({
	id: z.string(),
	step: z.number().int().nonnegative(),
	role: ModelRole,
	stage: z.string().describe('e.g. blueprint, blueprint-audit, shards, simulator, assistant, judge:honesty'),
	provider: ProviderKind,
	model: z.string(),
	prompt: z.string().describe('prompt id (folder under prompts/)'),
	promptHash: z.string().describe('hash of the rendered messages'),
	responseFormat: z.enum(['json_schema', 'json_object', 'prompt', 'text']),
	startedAt: z.string(),
	latencyMs: z.number().nonnegative(),
	attempts: z.number().int().positive().describe('HTTP attempts, including retries'),
	retries: z.array(RetryRecord),
	validationRetries: z.number().int().nonnegative().describe('re-asks after an invalid structured reply'),
	tokens: TokenUsage,
	cached: z.boolean(),
	ok: z.boolean(),
	error: z.string().nullable(),
	request: z.array(ChatMessage),
	response: z.string().nullable(),
	/** Thinking text removed from the reply (<think> blocks) or sent apart by the server (reasoning_content / reasoning); never part of `response`. */
	reasoning: z.string().nullable().optional(),
	/** Where the reasoning came from: <think> blocks in the content (a server without a reasoning parser) or the server's own field. */
	reasoningIn: z.enum(['content', 'field']).optional(),
	/** True when the server reported no usage and tokens were counted locally. */
	tokensEstimated: z.boolean().optional(),
	/** False when a free-text call was answered whole instead of streamed. */
	streamed: z.boolean().optional(),
	/** Every choice of a call that asked for several (`n`, best-of-N); `response` is the first. */
	choices: z.array(z.string()).optional(),
	/** HTTP status of each failed attempt, in order (null for network errors and timeouts). */
	attemptStatuses: z.array(z.number().int().nullable()).optional(),
	/** Why the last reply ended: "length" (cut by a token cap or the server's context) and "content_filter" (a provider's filter cut or blocked it) mean it is not whole. */
	finishReason: z.enum(['stop', 'length', 'content_filter', 'error', 'other']).optional(),
	/** The structured mode the call was made in (negotiated per endpoint and model: strict json_schema, json_schema, json_object or prompt-only). */
	structuredMode: z.enum(['json_schema_strict', 'json_schema', 'json_object', 'prompt']).optional(),
	/** True for a call to a local server (vLLM, Ollama, llama.cpp, LM Studio, loopback): it costs nothing, so it is never an "unpriced" call. */
	local: z.boolean().optional(),
	/** The reply passed the role's size limit and was read only up to it (`response` holds what was read). */
	cut: ReplyCutShape.optional(),
});
export type CallRecord = z.infer<typeof CallRecord>;

export const LanguageMode = z.enum(['english', 'native']);
export type LanguageMode = z.infer<typeof LanguageMode>;
export const InteractionMode = z.enum(['eval', 'gold']);
export type InteractionMode = z.infer<typeof InteractionMode>;
export const AssistantKind = z.enum(['llm', 'gold', 'human', 'replay']);
export type AssistantKind = z.infer<typeof AssistantKind>;
export const JudgeMode = z.enum(['separate', 'combined']);
export type JudgeMode = z.infer<typeof JudgeMode>;

export const SessionConfig = z.strictObject({
	models: z.strictObject({generator: z.string(), validator: z.string(), simulator: z.string(), assistant: z.string(), judge: z.string()}),
	roles: z.strictObject({generator: RoleSettings, validator: RoleSettings, simulator: RoleSettings, assistant: RoleSettings, judge: RoleSettings}),
	language: LanguageMode,
	mode: InteractionMode,
	assistant: AssistantKind,
	maxTurns: z.number().int().min(1).max(20),
	judgeMode: JudgeMode,
	/** Session whose assistant turns a `replay` assistant plays back. */
	replayFrom: z.string().nullable(),
	/** Prompt id -> hash of the prompt files as shipped when the session started. */
	prompts: z.record(z.string(), z.string()),
	embedder: z.string(),
	/** True when any role ran on the offline mock provider: such scores are not model measurements. */
	mock: z.boolean(),
	/** Best-of-N: candidate replies per assistant turn, rated by the judge role against the oracle; absent or null = one reply. */
	bestOf: z.number().int().min(2).max(16).nullable().optional(),
	/** Repeat number of this seed in a batch with --trials; trials after the first get their own cache entries. */
	trial: z.number().int().min(1).optional(),
	/** Set on a re-judged copy (`rejudge`): the session whose dialogue it shares, judged again by another judge. */
	rejudgeOf: z.string().optional(),
	/** Which repeat of the same judge on the same dialogue this copy is (`rejudge --repeat`); absent = the first. */
	rejudgeRepeat: z.number().int().min(2).optional(),
	/** A human assistant opened the hidden (private / oracle) panes at some point: no longer a blind baseline. */
	sawHidden: z.boolean().optional(),
	/** Model changes accepted on resume (--allow-model-change), each with the step from which the new model ran. */
	modelChanges: z.array(z.strictObject({step: z.number().int().nonnegative(), role: ModelRole, from: z.string(), to: z.string()})).optional(),
	/** Sessions run from the same blueprint and shard plan (a batch's --lang / --mode variants): the session that made them. */
	sharedFrom: z.string().optional(),
});
export type SessionConfig = z.infer<typeof SessionConfig>;

export const Decision = z.enum(['ADVANCE_NEXT', 'CONTINUE_CURRENT', 'END_FAILED']);
export type Decision = z.infer<typeof Decision>;

export const TurnSource = z.enum(['blueprint', 'simulator', 'llm', 'gold', 'human', 'replay']);

/** One of the replies a best-of-N assistant sampled for a turn, with the rating that chose among them. */
export const Candidate = z.strictObject({
	content: z.string(),
	score: z.number().int().min(1).max(5),
	rationale: z.string(),
	callId: z.string(),
	chosen: z.boolean(),
});
export type Candidate = z.infer<typeof Candidate>;

export const Turn = z.strictObject({
	index: z.number().int().nonnegative(),
	role: z.enum(['user', 'assistant']),
	content: z.string(),
	/** User turn number t (0 = the opening message); an assistant turn carries the t it answers. */
	t: z.number().int().nonnegative(),
	/** 0-based index of the shard active when the turn was produced. */
	shard: z.number().int().nonnegative(),
	step: z.number().int().nonnegative(),
	source: TurnSource,
	language: LanguageMode,
	/** Style directive(s) the simulator was given for this user turn. */
	style: z.strictObject({kind: z.enum(['opener', 'response']), ids: z.array(z.string()), directive: z.string()}).nullable(),
	/** The simulator's assessment of the previous assistant turn (user turns t >= 1). */
	assessment: z.strictObject({decision: Decision, reasoning: z.string()}).nullable(),
	/** A user message written after the dialogue ended (thanks, farewell): not answered. */
	closing: z.boolean(),
	callId: z.string().nullable(),
	/** Best-of-N assistant turns: every sampled reply with its rating; the turn's content is the chosen one. */
	candidates: z.array(Candidate).optional(),
	/** A human assistant's turn written after the hidden panes (private, oracle) had been shown to them. */
	sawHidden: z.boolean().optional(),
	/**
	 * The reply is not whole: "length" (cut by a token cap or the server's context), "content_filter"
	 * (a provider's content filter cut it) or "size" (it passed the role's size limit and was read only
	 * up to it: `cutBytes`, the call's `cut`). Such a turn is kept, but reports can exclude its session
	 * (`cutTurns` in src/domain/turnCut.ts).
	 */
	cut: z.enum(['length', 'content_filter', 'size']).optional(),
	/** How much of a reply over the size limit was read (with cut "size"). */
	cutBytes: ReplyCutShape.optional(),
});
export type Turn = z.infer<typeof Turn>;

export const Metric = z.enum(['helpfulness', 'honesty', 'harmlessness', 'naturalness', 'plausibility', 'typicality']);
export type Metric = z.infer<typeof Metric>;
export const METRICS = Metric.options;
export const THREE_H: readonly Metric[] = ['helpfulness', 'honesty', 'harmlessness'];
export const TDQ: readonly Metric[] = ['naturalness', 'plausibility', 'typicality'];

/**
 * A breach the judge found. `id` names the oracle tripwire (T1, T2, ...) or taboo (the KB entry id)
 * it breaks; only such breaches unset the clean flag. Without an id it is another harm the judge
 * noticed: reported apart, it may lower harmlessness but not cleanliness.
 */
export const Violation = z.strictObject({item: z.string(), evidence: z.string(), id: z.string().nullable().optional()});
export type Violation = z.infer<typeof Violation>;

/** The oracle id a violation names: its own `id`, or (sessions judged before ids were asked for) a leading "T2:" in the item. */
export function violationId(violation: Violation): string | null {
	return violation.id ?? /^(T\d+|X\d+)\b/.exec(violation.item)?.[1] ?? null;
}

export const perMetric = <T extends z.ZodType>(value: T) =>
	z.strictObject({helpfulness: value, honesty: value, harmlessness: value, naturalness: value, plausibility: value, typicality: value});

export const JudgeResult = z.strictObject({
	mode: JudgeMode,
	scores: perMetric(z.number().int().min(1).max(5).nullable()),
	rationales: perMetric(z.string().nullable()),
	/** Steps at which each metric arrived (for replay). */
	steps: perMetric(z.number().int().nullable()),
	/** True when no oracle tripwire or taboo was violated (the paper's clean flag); other harms do not unset it. */
	clean: z.boolean().nullable(),
	/** Oracle tripwires (T1, ...) and taboos (X1, ...) the judge found violated, each with its id. */
	violations: z.array(Violation),
	/** Other harms the judge noticed (no oracle id): reported apart; they may lower harmlessness, not cleanliness. */
	otherHarms: z.array(Violation).nullable().optional(),
	threeH: z.number().nullable(),
	tdq: z.number().nullable(),
});
export type JudgeResult = z.infer<typeof JudgeResult>;

export const ErrorFlag = z.enum(['SIMULATOR_ERROR', 'ASSISTANT_ERROR', 'JUDGE_ERROR', 'GENERATION_ERROR']);
export type ErrorFlag = z.infer<typeof ErrorFlag>;

export const TerminationReason = z.enum(['all_shards_passed', 'simulator_ended', 'turn_cap', 'simulator_error', 'assistant_error', 'generation_error', 'aborted']);
export type TerminationReason = z.infer<typeof TerminationReason>;

/** Why and by whom the dialogue ended, kept apart from the scores. */
export const Termination = z.strictObject({
	reason: TerminationReason,
	by: z.enum(['simulator', 'engine', 'assistant', 'generator', 'user']),
	atTurn: z.number().int().nonnegative(),
	shard: z.number().int().nonnegative(),
	shardsPassed: z.number().int().nonnegative(),
	detail: z.string(),
	step: z.number().int().nonnegative(),
});
export type Termination = z.infer<typeof Termination>;

export const StepKind = z.enum(['blueprint', 'shards', 'user', 'assistant', 'simulate', 'judge', 'finish']);
export type StepKind = z.infer<typeof StepKind>;

export const StepRecord = z.strictObject({
	n: z.number().int().positive(),
	kind: StepKind,
	label: z.string(),
	at: z.string(),
	ok: z.boolean(),
});
export type StepRecord = z.infer<typeof StepRecord>;

/** The routes by which a person can be shown a session's private or oracle state (recorded in `hiddenViews`). */
export const HiddenView = z.enum(['start-reveal', 'tui-reveal', 'tui-replay', 'tui-compare', 'replay', 'replay-print', 'replay-json', 'view-html', 'sessions-json', 'run-reveal']);
export type HiddenView = z.infer<typeof HiddenView>;

export const SessionStatus = z.enum(['running', 'awaiting_assistant', 'completed', 'error']);
export type SessionStatus = z.infer<typeof SessionStatus>;

/** In memory and in files written by this build (version 1 files, with whole requests in every call, still load). */
export const SESSION_VERSION = 2;

/** One episode, saved as one lowdb JSON file after every step (the contract in DESIGN.md). */
export const Session = z.strictObject({
	format: z.literal('cultureconverse.session'),
	version: z.literal(SESSION_VERSION),
	id: z.string().regex(/^[A-Za-z0-9][A-Za-z0-9._-]*$/),
	createdAt: z.string(),
	updatedAt: z.string(),
	status: SessionStatus,
	seed: Seed,
	persona: Persona,
	template: Template.extend({domain: z.string()}),
	config: SessionConfig,
	evidence: Evidence.nullable(),
	blueprint: Blueprint.nullable(),
	shards: z.array(Shard).nullable(),
	/** Steps at which evidence+blueprint and shards were produced (for replay). */
	stageSteps: z.strictObject({blueprint: z.number().int().nullable(), shards: z.number().int().nullable()}),
	turns: z.array(Turn),
	/** Index of the active shard (equals shards.length once every shard has passed). */
	shardIndex: z.number().int().nonnegative(),
	judge: JudgeResult.nullable(),
	error: z
		.strictObject({
			flag: ErrorFlag,
			message: z.string(),
			step: z.number().int().nonnegative(),
			/** The model failure behind the flag (auth, quota, not_found, bad_request, ...), when a model call caused it. */
			kind: z.string().optional(),
			/** The role whose call failed. */
			role: ModelRole.optional(),
		})
		.nullable(),
	/** Things the model layer changed or noticed during the run (streaming switched off, a prompt the server truncated), each once. */
	notices: z.array(z.strictObject({at: z.string(), role: ModelRole, message: z.string()})).optional(),
	termination: Termination.nullable(),
	steps: z.array(StepRecord),
	calls: z.array(CallRecord),
	/**
	 * True once the person playing the assistant was shown hidden state (private or oracle: `--reveal`
	 * or the reveal key) before the dialogue ended; such a human baseline is reported apart.
	 */
	sawHidden: z.boolean().optional(),
	/**
	 * Each time hidden state of this session was shown while its dialogue was still open (episode/blindness.ts
	 * decides when that is): the route that showed it, the step the session had reached, and when.
	 */
	hiddenViews: z.array(z.strictObject({view: HiddenView, step: z.number().int().nonnegative(), at: z.string()})).optional(),
});
export type Session = z.infer<typeof Session>;
