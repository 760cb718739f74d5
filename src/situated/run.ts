import type {KeptItem, Norm, SituatedEval, SituatedItem} from '../domain/situated.js';
import {ModelCallError} from '../llm/types.js';
import type {CallContext} from './agents.js';
import {type EvaluateOptions, evaluateItem} from './evaluate.js';
import {type RefineOptions, moreChronotopes, refineItem} from './refine.js';
import {eachLimited} from '../util/limited.js';

/*
 * The build and eval loops over many norms or items, `parallel` at a time. Each finished record is
 * handed to `save` at once (the command appends it to a JSONL file), so an interrupt loses at most
 * the records in flight, and a rerun skips what is already saved.
 */


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
};

export type BuildResult = {readonly built: SituatedItem[]; readonly skipped: number; readonly normErrors: Array<{normId: string; error: string}>};

export async function buildItems(input: BuildInput): Promise<BuildResult> {
	const built: SituatedItem[] = [];
	const normErrors: BuildResult['normErrors'] = [];
	let skipped = 0;
	const byNorm = new Map<string, SituatedItem[]>();
	for (const item of input.existing) {
		const list = byNorm.get(item.norm.id);
		if (list) list.push(item);
		else byNorm.set(item.norm.id, [item]);
	}
	await eachLimited(input.norms, input.parallel, input.context.signal, async (norm) => {
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
			if (failure) normErrors.push({normId: norm.id, error: failure.message});
			return;
		}
		for (const [index, chronotope] of settings.entries()) {
			if (done.has(index)) {
				skipped++;
				continue;
			}
			if (input.context.signal?.aborted) return;
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
		}
	});
	return {built, skipped, normErrors};
}

export type EvalInput = {
	readonly items: readonly KeptItem[];
	readonly parallel: number;
	/** Item ids already evaluated by this policy model; skipped. */
	readonly done: ReadonlySet<string>;
	readonly save: (evaluation: SituatedEval) => void;
	readonly context: CallContext;
	readonly options: EvaluateOptions;
};

export type EvalResult = {readonly evaluated: SituatedEval[]; readonly skipped: number; readonly errors: Array<{itemId: string; error: string}>};

export async function evaluateItems(input: EvalInput): Promise<EvalResult> {
	const evaluated: SituatedEval[] = [];
	const errors: EvalResult['errors'] = [];
	const todo = input.items.filter((item) => !input.done.has(item.id));
	await eachLimited(todo, input.parallel, input.context.signal, async (item) => {
		try {
			const evaluation = await evaluateItem(item, input.context, input.options);
			input.save(evaluation);
			evaluated.push(evaluation);
		} catch (error) {
			const failure = failureOf(error, input.context);
			if (failure) errors.push({itemId: item.id, error: `${failure.call.stage}: ${failure.message}`});
		}
	});
	return {evaluated, skipped: input.items.length - todo.length, errors};
}

/**
 * What to do with an error in a worker: null when the run was interrupted (the record in flight is
 * dropped, the finished ones are saved); the failure to record when a model call gave up; and any
 * other error is rethrown, since it is a bug rather than a model problem.
 */
function failureOf(error: unknown, context: CallContext): ModelCallError | null {
	if (context.signal?.aborted) return null;
	if (!(error instanceof ModelCallError) || error.kind === 'aborted') throw error;
	return error;
}
