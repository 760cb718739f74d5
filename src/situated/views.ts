import type {PolicyAnswer, SituatedDraft} from '../domain/situated.js';

/*
 * What the Situated Reasoner, the policy under test and a reward model may see: culture, scenario,
 * question (and, for the reward model, the answer it scores). Their prompt builders take only a
 * SituatedQuestion or a RewardInput, which only `situatedQuestion()` and `rewardInput()` can make
 * (the brands are module-private symbols), so the norm, the chronotope and the reference answer
 * cannot reach them by accident: it would not type-check.
 */

declare const questionBrand: unique symbol;

export type SituatedQuestion = {readonly [questionBrand]: true; readonly culture: string; readonly scenario: string; readonly question: string};

export function situatedQuestion(culture: string, draft: Pick<SituatedDraft, 'scenario' | 'question'>): SituatedQuestion {
	return {culture, scenario: draft.scenario, question: draft.question} as unknown as SituatedQuestion;
}

declare const rewardBrand: unique symbol;

/**
 * What a reward model scores (the paper's CRISP-RM input: culture, scenario, question and the answer;
 * the visible reasoning too, for scorers that read it). Built only from a SituatedQuestion, so it can
 * carry nothing hidden.
 */
export type RewardInput = {
	readonly [rewardBrand]: true;
	readonly culture: string;
	readonly scenario: string;
	readonly question: string;
	readonly answer: string;
	readonly reasoning: string;
};

export function rewardInput(question: SituatedQuestion, answer: PolicyAnswer): RewardInput {
	return {culture: question.culture, scenario: question.scenario, question: question.question, answer: answer.answer, reasoning: answer.reasoning} as unknown as RewardInput;
}
