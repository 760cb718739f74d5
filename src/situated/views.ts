import type {SituatedDraft} from '../domain/situated.js';

/*
 * What the Situated Reasoner and the policy under test may see: culture, scenario, question. The
 * reasoner's and the policy's prompt builders take only a SituatedQuestion, which only
 * `situatedQuestion()` can make (the brand is a module-private symbol), so the norm, the chronotope and
 * the reference answer cannot reach them by accident: it would not type-check.
 */

declare const questionBrand: unique symbol;

export type SituatedQuestion = {readonly [questionBrand]: true; readonly culture: string; readonly scenario: string; readonly question: string};

export function situatedQuestion(culture: string, draft: Pick<SituatedDraft, 'scenario' | 'question'>): SituatedQuestion {
	return {culture, scenario: draft.scenario, question: draft.question} as unknown as SituatedQuestion;
}
