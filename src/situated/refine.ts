import type {Chronotope, Norm, RefinementRound, RevisionPlan, SituatedDraft, SituatedItem} from '../domain/situated.js';
import {ModelCallError} from '../llm/types.js';
import {type AdviceInput, type CallContext, type ItemContext, advise, planRevision, reason, revise, roleOf, verify, writeChronotope, writeQuestion} from './agents.js';
import {route} from './router.js';
import {situatedQuestion} from './views.js';

/** CRISP allows five verification rounds before a candidate is dropped. */
export const DEFAULT_MAX_ROUNDS = 5;

export type RefineOptions = {readonly maxRounds?: number; readonly now?: () => Date};

/**
 * The refinement loop for one norm in one setting (CRISP A.4): write a question, let the blind reasoner
 * answer, verify, and route. A rerun keeps the question and passes the advisor's guidance to the next
 * answer; a revision rewrites the question from the planner's guidance and starts the next answer
 * fresh. The item is kept at the first round that passes every check, discarded when the rounds run
 * out. A model call that fails for good marks the item failed (with its rounds so far) instead of
 * throwing, so one bad item never costs a batch its other items; an abort still throws.
 */
export async function refineItem(culture: string, norm: Norm, chronotope: Chronotope, index: number, context: CallContext, options: RefineOptions = {}): Promise<SituatedItem> {
	const maxRounds = options.maxRounds ?? DEFAULT_MAX_ROUNDS;
	const item: ItemContext = {culture, norm, chronotope};
	const rounds: RefinementRound[] = [];
	const base = {id: itemId(norm, index), culture, norm, chronotopeIndex: index, chronotope, models: models(context), createdAt: (options.now?.() ?? new Date()).toISOString()};
	let draft: SituatedDraft | null = null;
	try {
		draft = (await writeQuestion(item, context)).value;
		let guidance: string | null = null;
		for (let round = 1; round <= maxRounds; round++) {
			const answer = (await reason(situatedQuestion(culture, draft), guidance, context)).value;
			const verification = (await verify(item, draft, answer, context)).value;
			const {decision, diagnosis} = route(verification);
			const record: RefinementRound = {round, draft, answer, verification, decision, diagnosis, advice: null, plan: null};
			rounds.push(record);
			if (decision === 'keep') return {...base, status: 'kept', draft, rounds, error: null};
			if (round === maxRounds) break;
			const input: AdviceInput = {item, draft, answer, verification, diagnosis};
			if (decision === 'rerun-answer') {
				const advice = (await advise(input, context)).value;
				rounds[rounds.length - 1] = {...record, advice};
				guidance = advice.guidance;
			} else {
				const plan: RevisionPlan = (await planRevision(input, context)).value;
				rounds[rounds.length - 1] = {...record, plan};
				draft = (await revise(item, draft, plan, round, context)).value;
				guidance = null;
			}
		}
		return {...base, status: 'discarded', draft, rounds, error: null};
	} catch (error) {
		if (!(error instanceof ModelCallError) || error.kind === 'aborted') throw error;
		return {...base, status: 'failed', draft, rounds, error: `${error.call.stage}: ${error.message}`, errorKind: error.kind, errorRole: error.call.role};
	}
}

export const itemId = (norm: Norm, chronotopeIndex: number) => `${norm.id}.c${chronotopeIndex + 1}`;

function models(context: CallContext): Record<string, string> {
	const out: Record<string, string> = {};
	for (const stage of ['question', 'reasoner', 'verifier'] as const) out[roleOf(stage)] = context.gateway.settings(roleOf(stage)).model;
	return out;
}

/**
 * Up to `count` structurally different settings for a norm, each written with the ones before it in
 * view; `accepted` are settings already built (a resumed run keeps them and continues after them).
 */
export async function moreChronotopes(culture: string, norm: Norm, accepted: readonly Chronotope[], count: number, context: CallContext): Promise<Chronotope[]> {
	const all = [...accepted];
	while (all.length < count) all.push((await writeChronotope(culture, norm, all, context)).value);
	return all;
}
