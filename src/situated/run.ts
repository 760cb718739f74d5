import type {KeptItem, Norm, SituatedEval, SituatedItem} from '../domain/situated.js';
import {ModelCallError} from '../llm/types.js';
import type {CallContext} from './agents.js';
import {type EvaluateOptions, completeEvaluation, evaluateItem} from './evaluate.js';
import {type RefineOptions, moreChronotopes, refineItem} from './refine.js';
import {eachLimited} from '../util/limited.js';
import {ScorerError} from './scorers.js';
import type {SetupBreaker} from '../llm/breaker.js';
import type {ModelRole} from '../domain/session.js';

/*
 * The build and eval loops over many norms or items, `parallel` at a time. Each finished record is
 * handed to `save` at once (the command appends it to a JSONL file), so an interrupt loses at most
 * the records in flight, and a rerun skips what is already saved.
 */

/**
 * Stop after K identical set-up failures in a row (llm/breaker.ts): every norm or item that finishes
 * tells the breaker how it went; once it trips, its signal (which the command also gives the call
 * context, so calls in flight stop too) ends the loop. Without one, nothing stops early.
 */
export type FailureBreaker = Pick<SetupBreaker, 'signal' | 'success' | 'failure' | 'stopped'>;

/** What the breaker is told about a failed norm, item or row. */
export function breakerFailure(error: Error, id: string): Parameters<SetupBreaker['failure']>[0] {
	return error instanceof ModelCallError ? {kind: error.kind, role: error.call.role, message: error.message, id} : {message: error.message, id};
}


export type BuildInput = {
	readonly norms: readonly Norm[];
	readonly culture: (norm: Norm) => string;
	/** Settings (and so items) per norm; CRISP builds up to three. */
	readonly chronotopes: number;
	readonly parallel: number;
	/** Items already saved; kept and discarded ones are not built again, failed ones are retried. */
	readonly existing: readonly SituatedItem[];
	readonly save: (item: SituatedItem) => void;
	readonly context: CallContext;
	readonly refine?: RefineOptions;
	/** Stops the build after repeated set-up failures; none = never. */
	readonly breaker?: FailureBreaker;
};

export type BuildResult = {readonly built: SituatedItem[]; readonly skipped: number; readonly normErrors: Array<{normId: string; error: string}>; readonly stopped: boolean};

export async function buildItems(input: BuildInput): Promise<BuildResult> {
	const {signal, stopped, trip, ok} = breakerSignal(input.context.signal, input.breaker);
	const built: SituatedItem[] = [];
	const normErrors: BuildResult['normErrors'] = [];
	let skipped = 0;
	const byNorm = new Map<string, SituatedItem[]>();
	for (const item of input.existing) {
		const list = byNorm.get(item.norm.id);
		if (list) list.push(item);
		else byNorm.set(item.norm.id, [item]);
	}
	await eachLimited(input.norms, input.parallel, signal, async (norm) => {
		const mine = [...(byNorm.get(norm.id) ?? [])].sort((a, b) => a.chronotopeIndex - b.chronotopeIndex);
		const done = new Set(mine.filter((item) => item.status !== 'failed').map((item) => item.chronotopeIndex));
		if (Array.from({length: input.chronotopes}, (_, index) => index).every((index) => done.has(index))) {
			skipped += input.chronotopes;
			return;
		}
		const culture = input.culture(norm);
		let settings;
		try {
			// Saved settings are reused in order, so a resumed norm continues with structurally new ones.
			const saved = mine.filter((item, index) => item.chronotopeIndex === index).map((item) => item.chronotope);
			settings = await moreChronotopes(culture, norm, saved, input.chronotopes, input.context);
		} catch (error) {
			const failure = failureOf(error, input.context);
			if (failure) {
				normErrors.push({normId: norm.id, error: failure.message});
				trip(failure, norm.id);
			}
			return;
		}
		for (const [index, chronotope] of settings.entries()) {
			if (done.has(index)) {
				skipped++;
				continue;
			}
			if (signal?.aborted) return;
			let item: SituatedItem;
			try {
				item = await refineItem(culture, norm, chronotope, index, input.context, input.refine);
			} catch (error) {
				// refineItem records model failures in the item itself; what reaches here is an abort or a bug.
				if (failureOf(error, input.context) === null) return;
				throw error;
			}
			input.save(item);
			built.push(item);
			if (item.status === 'failed') input.breaker?.failure({kind: item.errorKind, role: item.errorRole as ModelRole | undefined, message: item.error ?? 'failed', id: item.id});
			else ok();
		}
	});
	return {built, skipped, normErrors, stopped: stopped()};
}

export type EvalInput = {
	readonly items: readonly KeptItem[];
	readonly parallel: number;
	/**
	 * Evaluations this policy model already has, by item id. One with at least `bestOf` samples is
	 * kept and only completed (a new reward model's scores, grounding it lacked); one with fewer is
	 * evaluated again (the first samples come back from the response cache).
	 */
	readonly existing: ReadonlyMap<string, SituatedEval>;
	readonly save: (evaluation: SituatedEval) => void;
	readonly context: CallContext;
	readonly options: EvaluateOptions;
	/** Stops the evaluation after repeated set-up failures; none = never. */
	readonly breaker?: FailureBreaker;
};

export type EvalResult = {
	readonly evaluated: SituatedEval[];
	/** Saved evaluations that gained a reward model's scores or grounding. */
	readonly completed: SituatedEval[];
	readonly skipped: number;
	readonly errors: Array<{itemId: string; error: string}>;
	readonly stopped: boolean;
};

export async function evaluateItems(input: EvalInput): Promise<EvalResult> {
	const {signal, stopped, trip, ok} = breakerSignal(input.context.signal, input.breaker);
	const evaluated: SituatedEval[] = [];
	const completed: SituatedEval[] = [];
	const errors: EvalResult['errors'] = [];
	let skipped = 0;
	const bestOf = input.options.bestOf ?? 1;
	await eachLimited(input.items, input.parallel, signal, async (item) => {
		const saved = input.existing.get(item.id);
		try {
			if (saved && saved.samples.length >= bestOf) {
				const more = await completeEvaluation(saved, item, input.context, input.options);
				if (!more) {
					skipped++;
					return;
				}
				input.save(more);
				completed.push(more);
				return;
			}
			const evaluation = await evaluateItem(item, input.context, input.options);
			input.save(evaluation);
			evaluated.push(evaluation);
			ok();
		} catch (error) {
			const failure = failureOf(error, input.context);
			if (failure) {
				errors.push({itemId: item.id, error: failure instanceof ModelCallError ? `${failure.call.stage}: ${failure.message}` : failure.message});
				trip(failure, item.id);
			}
		}
	});
	return {evaluated, completed, skipped, errors, stopped: stopped()};
}

/** The loop's signal (the breaker's, which follows the run's) and how outcomes reach the breaker. */
function breakerSignal(outer: AbortSignal | undefined, breaker: FailureBreaker | undefined) {
	const signal = breaker ? (outer ? AbortSignal.any([outer, breaker.signal]) : breaker.signal) : outer;
	return {
		signal,
		stopped: () => breaker?.stopped !== null && breaker?.stopped !== undefined,
		trip: (failure: Error, id: string) => breaker?.failure(breakerFailure(failure, id)),
		ok: () => breaker?.success(),
	};
}

/**
 * What to do with an error in a worker: null when the run was interrupted (the record in flight is
 * dropped, the finished ones are saved); the failure to record when a model call gave up; and any
 * other error is rethrown, since it is a bug rather than a model problem.
 */
function failureOf(error: unknown, context: CallContext): ModelCallError | ScorerError | null {
	if (context.signal?.aborted) return null;
	if (error instanceof ScorerError) return error;
	if (!(error instanceof ModelCallError) || error.kind === 'aborted') throw error;
	return error;
}
