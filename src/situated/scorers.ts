import {setTimeout as delay} from 'node:timers/promises';
import type {RoleSettings} from '../domain/session.js';
import {connectionProblem, connectionText} from '../llm/connection.js';
import {httpFetch} from '../llm/httpFetch.js';
import {classifyStatus, retryDelay} from '../llm/retry.js';
import {fromServer} from '../llm/serverText.js';
import {type CallContext, type GradeMock, gradeGrounding, scoreWithRewardModel} from './agents.js';
import type {RewardInput} from './views.js';

/*
 * Who ranks and who grounds the sampled answers of `crisp eval`.
 *
 * A reward selector picks best-of-N. It is either a chat model used as a pointwise reward model (its
 * own prompt, prompts/situated/reward) or a scoring service at a URL (how CRISP-RM-like models are
 * served). Both receive a RewardInput only, which cannot carry the norm, the setting or the reference
 * answer, so a best-of-N pick is never made with the grader's knowledge.
 *
 * A grounding source gives the paper's r_NGS = p(grounded): a judge-role call with its own prompt, or a
 * classifier at a URL. It is open-book (it reads the norm), like the paper's supervisor, so it shapes
 * training rewards but never picks a best-of-N answer.
 */

/** Raised when a scoring service fails for good (after retries); the item is then recorded as failed. */
export class ScorerError extends Error {
	constructor(
		message: string,
		readonly url: string,
	) {
		super(message);
		this.name = 'ScorerError';
	}
}

export type RewardSelector = {
	/** `model:<name>` or `endpoint:<url>`, as stored in evaluations. */
	readonly id: string;
	score(input: RewardInput, context: CallContext): Promise<number>;
};

export type GroundingSource = {
	/** `judge:<model>` or `endpoint:<url>`. */
	readonly id: string;
	probability(input: GradeMock, context: CallContext): Promise<number>;
};

/** A chat model as the reward model: its 1-10 score is the raw reward (calibrated later on its own scores). */
export function modelSelector(settings: RoleSettings): RewardSelector {
	return {id: `model:${settings.model}`, score: async (input, context) => (await scoreWithRewardModel(input, settings, context)).value.score};
}

/** The grounding classifier as a judge-role call: the judge's own model, or `settings` for another model reached like the judge. */
export function judgeGrounding(judgeModel: string, settings?: RoleSettings): GroundingSource {
	return {id: `judge:${settings?.model ?? judgeModel}`, probability: async (input, context) => (await gradeGrounding(input, context, settings)).value.grounded};
}

export type EndpointOptions = {
	/** Per-request timeout. @default 60000 */
	readonly timeoutMs?: number;
	/** HTTP attempts, the first included (429, 408, 5xx and network errors are retried). @default 4 */
	readonly maxAttempts?: number;
	/** @default global fetch */
	readonly fetch?: typeof fetch;
	/** Injected so tests need not wait out backoffs. @default timers/promises setTimeout */
	readonly sleep?: (ms: number, signal?: AbortSignal) => Promise<unknown>;
};

/**
 * POSTs `body` as JSON and reads `field` (a finite number) from the JSON reply, retrying transient
 * failures with jittered backoff. A reply without the field is not retried: the service is wrong,
 * and the message shows what it sent.
 */
async function postForNumber(url: string, body: unknown, field: string, signal: AbortSignal | undefined, options: EndpointOptions): Promise<number> {
	// The transport every model call uses: proxies (HTTPS_PROXY / NO_PROXY), reused sockets a server closed.
	const send = options.fetch ?? httpFetch;
	const sleep = options.sleep ?? ((ms: number, s?: AbortSignal) => delay(ms, undefined, {signal: s}));
	const attempts = options.maxAttempts ?? 4;
	const policy = {maxAttempts: attempts, baseDelayMs: 500, maxDelayMs: 8000};
	let last = '';
	for (let attempt = 1; attempt <= attempts; attempt++) {
		signal?.throwIfAborted();
		let response: Response;
		try {
			const timeout = AbortSignal.timeout(options.timeoutMs ?? 60_000);
			response = await send(url, {method: 'POST', headers: {'content-type': 'application/json', accept: 'application/json'}, body: JSON.stringify(body), signal: signal ? AbortSignal.any([signal, timeout]) : timeout});
		} catch (error) {
			if (signal?.aborted) throw error;
			// What the failed connection was and how to fix it, from the one place that says it (connection.ts).
			const problem = connectionProblem(error);
			last = problem ? connectionText(problem) : `network: ${(error as Error).message}`;
			if (problem && !problem.retryable) break;
			if (attempt < attempts) await sleep(retryDelay({attempt, policy, retryAfterMs: null, random: Math.random}), signal);
			continue;
		}
		const text = await response.text();
		if (!response.ok) {
			const verdict = classifyStatus(response.status, response.headers, Date.now());
			last = `HTTP ${response.status}${text ? `: ${fromServer(text.slice(0, 200), [])}` : ''}`;
			if (!verdict.retryable) break;
			if (attempt < attempts) await sleep(retryDelay({attempt, policy, retryAfterMs: verdict.retryAfterMs, random: Math.random}), signal);
			continue;
		}
		let value: unknown;
		try {
			value = (JSON.parse(text) as Record<string, unknown>)[field];
		} catch {
			throw new ScorerError(`${url} did not answer with JSON (got: ${fromServer(text.slice(0, 120), [])})`, url);
		}
		if (typeof value !== 'number' || !Number.isFinite(value)) throw new ScorerError(`${url} answered without a numeric "${field}" (got: ${fromServer(text.slice(0, 120), [])})`, url);
		return value;
	}
	throw new ScorerError(`${url} failed after ${attempts} attempt(s): ${last}`, url);
}

/**
 * A reward service: POST `{culture, scenario, question, answer, reasoning}` → `{"reward": number}`.
 * The body is built field by field from the RewardInput, so nothing else can travel with it.
 */
export function endpointSelector(url: string, options: EndpointOptions = {}): RewardSelector {
	return {
		id: `endpoint:${url}`,
		score: (input, context) => postForNumber(url, {culture: input.culture, scenario: input.scenario, question: input.question, answer: input.answer, reasoning: input.reasoning}, 'reward', context.signal, options),
	};
}

/** A grounding classifier service: POST `{culture, norm, scenario, question, answer, reasoning}` → `{"probability": p}`. */
export function endpointGrounding(url: string, options: EndpointOptions = {}): GroundingSource {
	return {
		id: `endpoint:${url}`,
		probability: async (input, context) => {
			const p = await postForNumber(url, {culture: input.item.culture, norm: input.item.norm.text, scenario: input.draft.scenario, question: input.draft.question, answer: input.answer, reasoning: input.reasoning}, 'probability', context.signal, options);
			if (p < 0 || p > 1) throw new ScorerError(`${url} answered a probability outside [0, 1]: ${p}`, url);
			return p;
		},
	};
}
