import type {Evidence} from '../domain/kb.js';
import type {Seed} from '../domain/seed.js';
import {type AssistantKind, type ErrorFlag, type HiddenView, METRICS, type Session, type SessionStatus, type StepKind, type Termination, type Turn} from '../domain/session.js';
import type {ResolvedTemplate} from '../domain/template.js';
import type {Persona} from '../domain/universe.js';
import {ModelCallError, type CallEvent, type ModelGateway} from '../llm/types.js';
import {sampleOf} from '../llm/sample.js';
import {blueprintContextFor, generateBlueprint} from '../pipeline/blueprint.js';
import {generateShards} from '../pipeline/shards.js';
import {StageError} from '../pipeline/stageError.js';
import {UserError} from '../util/errors.js';
import {SessionTooLarge, findStorageError} from '../util/storageError.js';
import {loadStyles, openerDirective, pickOpeners, pickResponseStyle, type StylePools} from '../pipeline/styles.js';
import type {SessionStore} from '../store/sessionStore.js';
import type {Universe} from '../universe/load.js';
import {buildAssistantPrompt, type AssistantMockInput} from './assistant.js';
import {chooseCandidate, rateCandidates} from './candidates.js';
import type {EngineEvent, EngineListener} from './events.js';
import {aggregate, emptyJudge, judgeAll, judgeMetric, recordViolations} from './judge.js';
import {type Action, actionLabel, nextAction} from './nextAction.js';
import {markHiddenSeen} from './blindness.js';
import {simulateUserTurn} from './simulator.js';
import {type GoldGuidance, goldGuidance, type PublicView, publicView} from './views.js';

/** Retrieves K_W(s) and K_T(s) for a seed (the KB module provides the real one). */
export type EvidenceSource = (input: {seed: Seed; persona: Persona; template: ResolvedTemplate; universe: Universe; signal?: AbortSignal}) => Promise<Evidence>;

export type EngineDeps = {
	readonly universe: Universe;
	readonly gateway: ModelGateway;
	readonly store: SessionStore;
	readonly evidence: EvidenceSource;
	readonly styles?: StylePools;
	readonly now?: () => Date;
	/** The session a replay assistant plays back (required when config.assistant is 'replay'). */
	readonly replaySource?: Session | null;
	/**
	 * Stream assistant replies token by token (`assistant_token` events). Off in batches, where nobody
	 * watches: a whole reply costs the harness less than a stream of events. @default true
	 */
	readonly streamTokens?: boolean;
};

export type StepResult = {
	readonly action: Action;
	readonly status: SessionStatus;
	/** True once the episode is completed or ended in error. */
	readonly done: boolean;
	/** True when the step stopped to wait for a human assistant's reply. */
	readonly awaiting: boolean;
};

/** The longest reply a person playing the assistant may send (about 25 pages). */
export const MAX_HUMAN_REPLY = 100_000;

/** Raised inside a step to end the episode with an error flag; caught by step(). */
class EpisodeFailure extends Error {
	constructor(
		readonly flag: ErrorFlag,
		message: string,
		readonly termination: Omit<Termination, 'step' | 'atTurn' | 'shard' | 'shardsPassed'> | null,
		/** The model failure behind it, when a call failed (a batch stops on repeated set-up failures). */
		readonly modelError?: ModelCallError,
	) {
		super(message);
	}
}

/**
 * The one episode engine that the TUI, `run`, `batch` and replay all drive. Each `step()` does the
 * smallest unit worth watching (one stage, one turn, one judge metric) and saves the session before
 * returning, so a crash loses at most the call in flight and `resume` continues from the file.
 */
export class EpisodeEngine {
	private readonly listeners = new Set<EngineListener>();
	private pendingHuman: string | null = null;
	private running = false;

	private readonly deps: EngineDeps;

	constructor(
		private current: Session,
		deps: EngineDeps,
	) {
		// A repeated trial must not replay the first trial from the response cache: every call it makes
		// carries its trial number, which keys the cache apart (and reruns of the trial still hit it).
		const trial = current.config.trial;
		const withTrials = trial && trial > 1 ? {...deps, gateway: withTrial(deps.gateway, trial)} : deps;
		// A repeated re-judging asks the judge again instead of replaying the first repeat from the cache.
		const repeat = current.config.rejudgeRepeat;
		this.deps = repeat ? {...withTrials, gateway: withRepeat(withTrials.gateway, repeat)} : withTrials;
	}

	get session(): Readonly<Session> {
		return this.current;
	}

	/** True while a step runs (a UI asks before quitting). */
	get busy(): boolean {
		return this.running;
	}

	get next(): Action {
		return nextAction(this.current);
	}

	/** True when the next step needs text from a human assistant. */
	get awaitingHuman(): boolean {
		return this.current.config.assistant === 'human' && this.next.kind === 'assistant' && this.pendingHuman === null;
	}

	on(listener: EngineListener): () => void {
		this.listeners.add(listener);
		return () => this.listeners.delete(listener);
	}

	/** Text typed by the person playing the assistant; consumed by the next step. */
	submitHumanReply(text: string): void {
		if (this.current.config.assistant !== 'human') throw new Error('this episode has no human assistant');
		if (text.trim().length === 0) throw new Error('the reply is empty');
		// Every later prompt repeats the transcript: one enormous reply once grew a session to 500 MB in
		// five steps and wedged it for good. Refused where it enters, with the limit named.
		if (text.length > MAX_HUMAN_REPLY) throw new UserError(`the reply is ${text.length.toLocaleString('en')} characters long; a reply may have at most ${MAX_HUMAN_REPLY.toLocaleString('en')}`);
		this.pendingHuman = text;
	}

	/**
	 * The person playing the assistant is shown hidden state (private, oracle): recorded on the session,
	 * and every reply they write from now on is marked `sawHidden`, so their scores are reported apart
	 * from blind ones. Once the dialogue has ended nothing they see can change a reply: not recorded.
	 * Whether it is recorded is decided by episode/blindness.ts, as for every other route to hidden
	 * state; `view` names the route. Returns true when it was recorded now.
	 */
	async revealHidden(view: HiddenView = 'tui-reveal'): Promise<boolean> {
		const marked = markHiddenSeen(this.current, view, this.now().toISOString());
		if (marked === this.current) return false;
		this.update({sawHidden: true, hiddenViews: marked.hiddenViews});
		await this.save();
		return true;
	}

	/**
	 * Clears an error so the failed step runs again (after a 429 storm or an outage). The failed step
	 * stays in the steps log; an error-caused termination is removed because the dialogue did not end.
	 */
	async retryAfterError(): Promise<boolean> {
		const session = this.current;
		if (session.status !== 'error' || !session.error) return false;
		const errorEnded = session.termination && ['simulator_error', 'assistant_error', 'generation_error'].includes(session.termination.reason);
		this.update({status: 'running', error: null, termination: errorEnded ? null : session.termination});
		await this.save();
		return true;
	}

	/**
	 * Lets go of the session file: an unfinished episode keeps its journal (resumable by anyone), and
	 * its lock is released. Call it when a front end is done with the episode; an ended one is
	 * released by its last save already.
	 */
	close(): void {
		this.deps.store.release(this.current.id);
	}

	async start(resumed = false): Promise<void> {
		await this.save();
		this.emit({type: 'episode_started', sessionId: this.current.id, seedId: this.current.seed.id, resumed});
	}

	/** Runs steps until the episode is done or waits for a human; returns the final step's result. */
	async runToEnd(signal?: AbortSignal): Promise<StepResult> {
		for (;;) {
			const result = await this.step(signal);
			if (result.done || result.awaiting || signal?.aborted) return result;
		}
	}

	async step(signal?: AbortSignal): Promise<StepResult> {
		if (this.running) throw new Error('a step is already running');
		this.running = true;
		try {
			return await this.runStep(signal);
		} finally {
			this.running = false;
		}
	}

	private async runStep(signal?: AbortSignal): Promise<StepResult> {
		const action = this.next;
		if (action.kind === 'done') return this.result(action);
		if (action.kind === 'assistant' && this.current.config.assistant === 'human' && this.pendingHuman === null) {
			if (this.current.status !== 'awaiting_assistant') {
				this.update({status: 'awaiting_assistant'});
				await this.save();
				this.emit({type: 'awaiting_assistant', t: action.t});
			}
			return this.result(action, true);
		}
		const n = this.current.steps.length + 1;
		const label = actionLabel(action);
		this.emit({type: 'step_started', step: n, label});
		if (this.current.status === 'awaiting_assistant') this.update({status: 'running'});
		let ok = true;
		try {
			await this.perform(action, n, signal);
		} catch (error) {
			if (signal?.aborted || (error instanceof ModelCallError && error.kind === 'aborted')) {
				// Interrupted by the user: nothing is recorded, the session stays resumable.
				await this.save();
				return this.result(action);
			}
			ok = false;
			this.fail(error, n);
		}
		this.update({steps: [...this.current.steps, {n, kind: stepKind(action), label, at: this.now().toISOString(), ok}]});
		await this.save();
		this.emit({type: 'step_done', step: n, label, status: this.current.status});
		if (this.current.status === 'completed' || this.current.status === 'error') {
			this.emit({type: 'episode_finished', status: this.current.status, termination: this.current.termination, judge: this.current.judge, error: this.current.error});
		}
		return this.result(action);
	}

	private result(action: Action, awaiting = false): StepResult {
		const status = this.current.status;
		return {action, status, done: status === 'completed' || status === 'error', awaiting};
	}

	private async perform(action: Action, n: number, signal?: AbortSignal): Promise<void> {
		switch (action.kind) {
			case 'blueprint':
				return this.doBlueprint(n, signal);
			case 'shards':
				return this.doShards(n, signal);
			case 'open':
				return this.doOpen(n);
			case 'assistant':
				return this.doAssistant(action.t, n, signal);
			case 'simulate':
				return this.doSimulate(action.t, n, signal);
			case 'judge':
				return this.doJudge(action.metric, n, signal);
			case 'judge-combined':
				return this.doJudgeCombined(n, signal);
			case 'finish':
				return this.doFinish();
			case 'done':
				return;
			default: {
				const never: never = action;
				return never;
			}
		}
	}

	private async doBlueprint(n: number, signal?: AbortSignal): Promise<void> {
		const {universe} = this.deps;
		const session = this.current;
		const template = universe.templateById.get(session.template.id) ?? {...session.template, source: 'session'};
		let evidence: Evidence;
		try {
			evidence = await this.deps.evidence({seed: session.seed, persona: session.persona, template, universe, signal});
		} catch (error) {
			throw new EpisodeFailure('GENERATION_ERROR', `evidence retrieval failed: ${error instanceof Error ? error.message : String(error)}`, {reason: 'generation_error', by: 'generator', detail: 'evidence retrieval failed'});
		}
		this.update({evidence});
		if (!universe.subdomainById.has(template.subdomain)) throw new EpisodeFailure('GENERATION_ERROR', `unknown subdomain ${template.subdomain}`, {reason: 'generation_error', by: 'generator', detail: 'unknown subdomain'});
		const context = blueprintContextFor({universe, seed: session.seed, persona: session.persona, template, evidence, styles: this.styles()});
		const blueprint = await generateBlueprint(context, {gateway: this.deps.gateway, step: n, signal, onEvent: this.onCall, now: this.deps.now});
		this.update({blueprint, stageSteps: {...this.current.stageSteps, blueprint: n}});
		this.emit({type: 'stage_done', stage: 'blueprint', step: n});
	}

	private async doShards(n: number, signal?: AbortSignal): Promise<void> {
		const session = this.current;
		const blueprint = session.blueprint!;
		const {shards, attempts} = await generateShards(
			{blueprint, tier: session.seed.tier, persona: session.persona, language: this.deps.universe.languages.get(session.persona.language)!},
			{gateway: this.deps.gateway, step: n, signal, onEvent: this.onCall, now: this.deps.now},
		);
		this.update({shards, blueprint: {...blueprint, meta: {...blueprint.meta, shardAttempts: attempts}}, stageSteps: {...this.current.stageSteps, shards: n}});
		this.emit({type: 'stage_done', stage: 'shards', step: n});
	}

	private doOpen(n: number): void {
		const session = this.current;
		const blueprint = session.blueprint!;
		const openers = pickOpeners(session.seed.id, this.styles());
		const turn = this.turn({
			role: 'user',
			content: session.config.language === 'english' ? blueprint.public.initialMessage : blueprint.language.nativeMode.initialMessage,
			t: 0,
			step: n,
			source: 'blueprint',
			style: {kind: 'opener', ids: openers.map((style) => style.id), directive: openerDirective(openers)},
		});
		this.emit({type: 'user_turn', turn});
	}

	private async doAssistant(t: number, n: number, signal?: AbortSignal): Promise<void> {
		const session = this.current;
		const kind = session.config.assistant;
		if (kind === 'human') {
			const content = this.pendingHuman!;
			this.pendingHuman = null;
			this.emit({type: 'assistant_turn', turn: this.turn({role: 'assistant', content, t, step: n, source: 'human', ...(session.sawHidden ? {sawHidden: true} : {})})});
			return;
		}
		if (kind === 'replay') {
			const source = this.deps.replaySource;
			const index = session.turns.filter((turn) => turn.role === 'assistant').length;
			const replayed = source?.turns.filter((turn) => turn.role === 'assistant')[index];
			if (!replayed) {
				throw new EpisodeFailure('ASSISTANT_ERROR', source ? `replay source ${source.id} has only ${index} assistant turn(s)` : 'no replay source session was given', {reason: 'assistant_error', by: 'engine', detail: 'replay source exhausted'});
			}
			this.emit({type: 'assistant_turn', turn: this.turn({role: 'assistant', content: replayed.content, t, step: n, source: 'replay'})});
			return;
		}
		const view = publicView(session);
		const guidance = kind === 'gold' ? goldGuidance(session) : undefined;
		const mock: AssistantMockInput = {view, gold: kind === 'gold', guidance: guidance?.text ?? null, language: session.config.language === 'english' ? 'english' : session.persona.language};
		if (session.config.bestOf) {
			await this.doBestOf(session.config.bestOf, {view, guidance, mock, kind}, t, n, signal);
			return;
		}
		try {
			const response = await this.deps.gateway.call<string>({
				role: 'assistant',
				stage: 'assistant',
				prompt: buildAssistantPrompt(view, guidance),
				...(this.deps.streamTokens === false ? {} : {onToken: (delta: string) => this.emit({type: 'assistant_token', t, delta})}),
				mock,
				step: n,
				signal,
				onEvent: this.onCall,
			});
			// A reply cut by a cap or a content filter is kept and marked, so reports can leave it out (src/domain/turnCut.ts).
			this.emit({type: 'assistant_turn', turn: this.turn({role: 'assistant', content: response.text, t, step: n, source: kind, callId: response.call.id, ...(response.call.cut ? {cut: 'size' as const, cutBytes: response.call.cut} : response.cut ? {cut: response.cut} : {})})});
		} catch (error) {
			if (error instanceof ModelCallError && error.kind !== 'aborted') {
				throw new EpisodeFailure('ASSISTANT_ERROR', `assistant call failed (${failureLabel(error)}): ${error.message}`, {reason: 'assistant_error', by: 'engine', detail: error.message}, error);
			}
			throw error;
		}
	}

	/**
	 * Best-of-N: N samples of the same assistant request (the public view, plus the briefing in gold
	 * mode), then one judge-role call rating them against the oracle; the best becomes the turn and
	 * every candidate is kept on it (for preference pairs). Nothing is streamed: which reply will be
	 * said is known only at the end. Either call failing is an ASSISTANT_ERROR, like any assistant failure.
	 */
	private async doBestOf(count: number, input: {view: PublicView; guidance: GoldGuidance | undefined; mock: AssistantMockInput; kind: AssistantKind}, t: number, n: number, signal?: AbortSignal): Promise<void> {
		const prompt = buildAssistantPrompt(input.view, input.guidance);
		try {
			// One request with `n` where the server supports it; the mock builds each sample from its number.
			const samples = await sampleOf(this.deps.gateway, {role: 'assistant', stage: 'assistant', prompt, mock: {...input.mock, sample: 0} satisfies AssistantMockInput, step: n, signal, onEvent: this.onCall}, count);
			const rated = await rateCandidates(this.current, samples.map((sample) => sample.text), {gateway: this.deps.gateway, step: n, signal, onEvent: this.onCall});
			const chosen = chooseCandidate(rated.value);
			const byCandidate = new Map(rated.value.ratings.map((rating) => [rating.candidate - 1, rating]));
			const candidates = samples.map((sample, index) => ({content: sample.text, score: byCandidate.get(index)!.score, rationale: byCandidate.get(index)!.rationale, callId: sample.call.id, chosen: index === chosen}));
			const cut = samples[chosen]!.call.finishReason;
			this.emit({type: 'assistant_turn', turn: this.turn({role: 'assistant', content: samples[chosen]!.text, t, step: n, source: input.kind, callId: samples[chosen]!.call.id, candidates, ...(cut === 'length' || cut === 'content_filter' ? {cut} : {})})});
		} catch (error) {
			if (error instanceof ModelCallError && error.kind !== 'aborted') {
				throw new EpisodeFailure('ASSISTANT_ERROR', `best-of-${count} assistant step failed (${failureLabel(error)}): ${error.message}`, {reason: 'assistant_error', by: 'engine', detail: error.message}, error);
			}
			throw error;
		}
	}

	private async doSimulate(t: number, n: number, signal?: AbortSignal): Promise<void> {
		const session = this.current;
		const shards = session.shards!;
		const style = pickResponseStyle(session.seed.id, t, this.styles());
		const atCap = t >= session.config.maxTurns;
		let value;
		let callId: string;
		try {
			const response = await simulateUserTurn(
				{
					seedId: session.seed.id,
					blueprint: session.blueprint!,
					shards,
					shardIndex: session.shardIndex,
					turns: session.turns,
					style,
					language: session.config.language,
					nativeLanguage: session.persona.language,
					turnsLeft: Math.max(0, session.config.maxTurns - t),
				},
				{gateway: this.deps.gateway, step: n, signal, onEvent: this.onCall},
			);
			value = response.value;
			callId = response.call.id;
		} catch (error) {
			if (error instanceof ModelCallError && error.kind !== 'aborted') {
				throw new EpisodeFailure('SIMULATOR_ERROR', `simulator call failed (${failureLabel(error)}): ${error.message}`, {reason: 'simulator_error', by: 'engine', detail: error.message}, error);
			}
			throw error;
		}
		const assessment = {decision: value.decision, reasoning: value.reasoning};
		const advanced = value.decision === 'ADVANCE_NEXT';
		const shardIndex = advanced ? session.shardIndex + 1 : session.shardIndex;
		const allPassed = shardIndex >= shards.length;
		const userTurn = (closing: boolean) =>
			this.turn({role: 'user', content: value.message, t, step: n, source: 'simulator', style: {kind: 'response', ids: [style.id], directive: `${style.name}: ${style.directive}`}, assessment, closing, callId, shard: Math.min(shardIndex, shards.length - 1)});
		if (allPassed || value.decision === 'END_FAILED') {
			this.update({shardIndex});
			const turn = userTurn(true);
			this.emit({type: 'user_turn', turn});
			this.terminate(allPassed ? {reason: 'all_shards_passed', by: 'simulator', detail: value.reasoning} : {reason: 'simulator_ended', by: 'simulator', detail: value.reasoning}, n);
			return;
		}
		if (atCap) {
			// The cap is reached: the assessment is kept, the message is never sent.
			this.update({shardIndex});
			this.terminate({reason: 'turn_cap', by: 'engine', detail: `${session.config.maxTurns} user turns used; last assessment: ${value.decision}: ${value.reasoning}`}, n);
			return;
		}
		this.update({shardIndex});
		this.emit({type: 'user_turn', turn: userTurn(false)});
	}

	private async doJudge(metric: (typeof METRICS)[number], n: number, signal?: AbortSignal): Promise<void> {
		const judge = this.current.judge ?? emptyJudge('separate');
		try {
			const response = await judgeMetric(this.current, metric, {gateway: this.deps.gateway, step: n, signal, onEvent: this.onCall});
			const value = response.value;
			const violations = 'violations' in value ? recordViolations(value.violations, this.current) : judge.violations;
			const otherHarms = 'otherHarms' in value ? value.otherHarms : judge.otherHarms;
			this.update({
				judge: aggregate({
					...judge,
					scores: {...judge.scores, [metric]: value.score},
					rationales: {...judge.rationales, [metric]: value.rationale},
					steps: {...judge.steps, [metric]: n},
					violations,
					...(otherHarms ? {otherHarms} : {}),
				}),
			});
			this.emit({type: 'judge_metric', metric, score: value.score, rationale: value.rationale, step: n});
		} catch (error) {
			this.update({judge});
			if (error instanceof ModelCallError && error.kind !== 'aborted') throw new EpisodeFailure('JUDGE_ERROR', `judge call for ${metric} failed (${failureLabel(error)}): ${error.message}`, null, error);
			throw error;
		}
	}

	private async doJudgeCombined(n: number, signal?: AbortSignal): Promise<void> {
		const judge = emptyJudge('combined');
		try {
			const response = await judgeAll(this.current, {gateway: this.deps.gateway, step: n, signal, onEvent: this.onCall});
			const value = response.value;
			const scores = {...judge.scores};
			const rationales = {...judge.rationales};
			const steps = {...judge.steps};
			for (const metric of METRICS) {
				scores[metric] = value[metric].score;
				rationales[metric] = value[metric].rationale;
				steps[metric] = n;
			}
			this.update({judge: aggregate({...judge, scores, rationales, steps, violations: recordViolations(value.violations, this.current), otherHarms: value.otherHarms})});
			for (const metric of METRICS) this.emit({type: 'judge_metric', metric, score: value[metric].score, rationale: value[metric].rationale, step: n});
		} catch (error) {
			if (error instanceof ModelCallError && error.kind !== 'aborted') throw new EpisodeFailure('JUDGE_ERROR', `combined judge call failed (${failureLabel(error)}): ${error.message}`, null, error);
			throw error;
		}
	}

	private doFinish(): void {
		this.update({status: 'completed', judge: this.current.judge ? aggregate(this.current.judge) : null});
	}

	private fail(error: unknown, n: number): void {
		if (error instanceof EpisodeFailure) {
			if (error.termination && !this.current.termination) this.terminate(error.termination, n);
			this.update({status: 'error', error: {flag: error.flag, message: error.message, step: n, ...(error.modelError ? {kind: error.modelError.kind, role: error.modelError.call.role} : {})}});
			return;
		}
		if (error instanceof StageError) {
			if (!this.current.termination) this.terminate({reason: 'generation_error', by: 'generator', detail: error.message}, n);
			this.update({status: 'error', error: {flag: 'GENERATION_ERROR', message: error.message, step: n, ...(error.kind !== 'invalid' ? {kind: error.kind} : {}), ...(error.role ? {role: error.role} : {})}});
			return;
		}
		// A bug, not a model failure: keep the session resumable and surface the error.
		throw error;
	}

	private terminate(termination: Omit<Termination, 'step' | 'atTurn' | 'shard' | 'shardsPassed'>, n: number): void {
		const session = this.current;
		const userTurns = session.turns.filter((turn) => turn.role === 'user' && !turn.closing).length;
		const shardCount = session.shards?.length ?? 0;
		this.update({
			termination: {
				...termination,
				atTurn: userTurns,
				shard: Math.min(session.shardIndex, Math.max(0, shardCount - 1)),
				shardsPassed: Math.min(session.shardIndex, shardCount),
				step: n,
			},
		});
	}

	private turn(input: Pick<Turn, 'role' | 'content' | 't' | 'step' | 'source'> & Partial<Turn>): Turn {
		const session = this.current;
		const turn: Turn = {
			index: session.turns.length,
			shard: input.shard ?? Math.min(session.shardIndex, Math.max(0, (session.shards?.length ?? 1) - 1)),
			language: session.config.language,
			style: null,
			assessment: null,
			closing: false,
			callId: null,
			...input,
		};
		this.update({turns: [...session.turns, turn]});
		return turn;
	}

	private readonly onCall = (event: CallEvent): void => {
		if (event.type === 'call_done' || event.type === 'call_failed') this.update({calls: [...this.current.calls, event.call]});
		if (event.type === 'notice') this.update({notices: [...(this.current.notices ?? []), {at: this.now().toISOString(), role: event.role, message: event.message}]});
		this.emit(event);
	};

	private update(patch: Partial<Session>): void {
		this.current = {...this.current, ...patch, updatedAt: this.now().toISOString()};
	}

	private async save(): Promise<void> {
		let path: string;
		try {
			path = await this.deps.store.save(this.current);
		} catch (error) {
			const failure = saveFailure(error);
			if (failure) this.emit({type: 'save_failed', ...failure});
			throw error;
		}
		this.emit({type: 'saved', path});
	}

	private emit(event: EngineEvent): void {
		for (const listener of this.listeners) {
			try {
				listener(event);
			} catch {
				// A broken listener (a UI bug) must never break the episode.
			}
		}
	}

	private styles(): StylePools {
		return this.deps.styles ?? loadStyles();
	}

	private now(): Date {
		return this.deps.now?.() ?? new Date();
	}
}

/**
 * "rate_limited" alone misleads when four of five attempts were 500s: with several attempts the
 * label lists each one's outcome ("rate_limited; attempts: 500, 500, 500, 500, 429").
 */
function failureLabel(error: ModelCallError): string {
	const call = error.call;
	if (call.attempts <= 1) return error.kind;
	const earlier = call.retries.map((retry) => retry.reason.replace(/^HTTP /, ''));
	const last = /^HTTP (\d+)/.exec(call.error ?? '')?.[1] ?? error.kind;
	return `${error.kind}; attempts: ${[...earlier, last].join(', ')}`;
}

function stepKind(action: Action): StepKind {
	switch (action.kind) {
		case 'blueprint':
		case 'shards':
			return action.kind;
		case 'open':
			return 'user';
		case 'assistant':
			return 'assistant';
		case 'simulate':
			return 'simulate';
		case 'judge':
		case 'judge-combined':
			return 'judge';
		default:
			return 'finish';
	}
}

function withRepeat(gateway: ModelGateway, repeat: number): ModelGateway {
	return {
		settings: (role) => gateway.settings(role),
		call: (request) => gateway.call(request.role === 'judge' ? {...request, repeat} : request),
		sample: (request, count) => sampleOf(gateway, request.role === 'judge' ? {...request, repeat} : request, count),
		onEvent: (listener) => gateway.onEvent(listener),
		concurrency: () => gateway.concurrency(),
	};
}

function withTrial(gateway: ModelGateway, trial: number): ModelGateway {
	return {
		settings: (role) => gateway.settings(role),
		call: (request) => gateway.call({...request, trial}),
		sample: (request, count) => sampleOf(gateway, {...request, trial}, count),
		onEvent: (listener) => gateway.onEvent(listener),
		concurrency: () => gateway.concurrency(),
	};
}

/** What a failed save tells a front end: a storage failure or a session past its size limit (else null: a bug). */
function saveFailure(error: unknown): {code: string; file: string; message: string} | null {
	const storage = findStorageError(error);
	if (storage) return {code: storage.code, file: storage.file, message: storage.message};
	if (error instanceof SessionTooLarge) return {code: 'TOO_LARGE', file: error.sessionId, message: error.message};
	return null;
}
