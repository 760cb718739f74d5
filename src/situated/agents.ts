import type {z} from 'zod';
import type {ModelRole} from '../domain/session.js';
import {
	Chronotope,
	type Norm,
	NormMatchScore,
	OutcomeScore,
	ReasonerAnswer,
	ResponseAdvice,
	RevisionPlan,
	SituatedDraft,
	Verification,
} from '../domain/situated.js';
import {renderPrompt} from '../llm/prompts.js';
import type {CallEvent, ModelGateway, ModelResponse, RenderedPrompt} from '../llm/types.js';
import type {SituatedQuestion} from './views.js';

/*
 * One function per CRISP agent: each renders its prompt file and makes one structured call through the
 * gateway (retries, re-asks on invalid JSON, cache and record all come from there). The mock provider
 * receives `mock`, the inputs it needs to answer offline.
 */

export type CallContext = {
	readonly gateway: ModelGateway;
	readonly signal?: AbortSignal;
	readonly onEvent?: (event: CallEvent) => void;
	/** Best-of-N sample number, part of the cache key. */
	readonly sample?: number;
};

/** The full, private item as the writer-side agents and the graders see it. */
export type ItemContext = {readonly culture: string; readonly norm: Norm; readonly chronotope: Chronotope};

export type SituatedStage = 'chronotope' | 'question' | 'reasoner' | 'verifier' | 'advisor' | 'planner' | 'reviser' | 'policy' | 'outcome' | 'norm-match';

const ROLE: Record<SituatedStage, ModelRole> = {
	chronotope: 'generator',
	question: 'generator',
	advisor: 'generator',
	planner: 'generator',
	reviser: 'generator',
	reasoner: 'validator',
	verifier: 'validator',
	policy: 'assistant',
	outcome: 'judge',
	'norm-match': 'judge',
};

export const stageName = (stage: SituatedStage) => `situated:${stage}`;
export const roleOf = (stage: SituatedStage) => ROLE[stage];

function call<T>(stage: SituatedStage, prompt: RenderedPrompt, schema: z.ZodType<T> | undefined, mock: unknown, context: CallContext): Promise<ModelResponse<T>> {
	return context.gateway.call<T>({
		role: ROLE[stage],
		stage: stageName(stage),
		prompt,
		schema: schema ? {name: `situated_${stage.replace('-', '_')}`, schema} : undefined,
		mock,
		step: 0,
		sample: context.sample,
		signal: context.signal,
		onEvent: context.onEvent,
	});
}

const chronotopeText = (c: Chronotope) => `Time: ${c.time}\nPlace: ${c.place}\nParticipants: ${c.participants}\nActivity: ${c.activity}\nExpectations: ${c.expectations}`;
const draftValues = (item: ItemContext, draft: SituatedDraft) => ({
	culture: item.culture,
	norm: item.norm.text,
	norm_type: item.norm.type,
	chronotope: chronotopeText(item.chronotope),
	scenario: draft.scenario,
	question: draft.question,
	expected: draft.hiddenExpectedAnswer,
});
export const answerText = (answer: ReasonerAnswer) => `Action: ${answer.action}\nReason: ${answer.reason}\nInferred norms:\n${answer.inferredNorms.map((n) => `- ${n.norm} (evidence: ${n.evidence})`).join('\n')}`;
const verificationText = (v: Verification) =>
	Object.entries(v)
		.map(([name, check]) => `${name}: ${check.score} (${check.reason})`)
		.join('\n');

export type ChronotopeMock = {readonly culture: string; readonly norm: Norm; readonly index: number};
export function writeChronotope(culture: string, norm: Norm, accepted: readonly Chronotope[], context: CallContext) {
	const prompt = renderPrompt('situated/chronotope', {culture, norm: norm.text, norm_type: norm.type, accepted: accepted.length === 0 ? '(none yet)' : accepted.map((c, i) => `${i + 1}.\n${chronotopeText(c)}`).join('\n\n')});
	return call('chronotope', prompt, Chronotope, {culture, norm, index: accepted.length} satisfies ChronotopeMock, context);
}

export type QuestionMock = {readonly item: ItemContext};
export function writeQuestion(item: ItemContext, context: CallContext) {
	const prompt = renderPrompt('situated/question', {culture: item.culture, norm: item.norm.text, norm_type: item.norm.type, chronotope: chronotopeText(item.chronotope)});
	return call('question', prompt, SituatedDraft, {item} satisfies QuestionMock, context);
}

export type ReasonerMock = {readonly question: SituatedQuestion; readonly guidance: string | null};
/** The Situated Reasoner: sees only what the model under test will see, plus advice on its last try. */
export function reason(question: SituatedQuestion, guidance: string | null, context: CallContext) {
	const prompt = renderPrompt('situated/reasoner', {culture: question.culture, scenario: question.scenario, question: question.question, guidance: guidance ? `\n\nADVICE ON YOUR PREVIOUS ATTEMPT\n${guidance}` : ''});
	return call('reasoner', prompt, ReasonerAnswer, {question, guidance} satisfies ReasonerMock, context);
}

export type VerifierMock = {readonly item: ItemContext; readonly draft: SituatedDraft; readonly answer: ReasonerAnswer};
export function verify(item: ItemContext, draft: SituatedDraft, answer: ReasonerAnswer, context: CallContext) {
	const prompt = renderPrompt('situated/verifier', {...draftValues(item, draft), answer: answerText(answer)});
	return call('verifier', prompt, Verification, {item, draft, answer} satisfies VerifierMock, context);
}

export type AdviceInput = {readonly item: ItemContext; readonly draft: SituatedDraft; readonly answer: ReasonerAnswer; readonly verification: Verification; readonly diagnosis: string};
export function advise(input: AdviceInput, context: CallContext) {
	const {culture, norm, scenario, question, expected} = draftValues(input.item, input.draft);
	const prompt = renderPrompt('situated/advisor', {diagnosis: input.diagnosis, culture, norm, scenario, question, expected, answer: answerText(input.answer), verification: verificationText(input.verification)});
	return call('advisor', prompt, ResponseAdvice, input, context);
}

export function planRevision(input: AdviceInput, context: CallContext) {
	const prompt = renderPrompt('situated/planner', {...draftValues(input.item, input.draft), diagnosis: input.diagnosis, answer: answerText(input.answer), verification: verificationText(input.verification)});
	return call('planner', prompt, RevisionPlan, input, context);
}

export type ReviserMock = {readonly item: ItemContext; readonly draft: SituatedDraft; readonly plan: RevisionPlan; readonly round: number};
export function revise(item: ItemContext, draft: SituatedDraft, plan: RevisionPlan, round: number, context: CallContext) {
	const prompt = renderPrompt('situated/reviser', {...draftValues(item, draft), plan: `Diagnosis: ${plan.diagnosis}\nGoal: ${plan.goal}\nGuidance: ${plan.guidance}`});
	return call('reviser', prompt, SituatedDraft, {item, draft, plan, round} satisfies ReviserMock, context);
}

export type PolicyMock = {readonly question: SituatedQuestion; readonly sample: number};
/**
 * The model under test. Free text on purpose: its two-field JSON contract is part of what is
 * evaluated, so a malformed reply is scored invalid rather than re-asked into shape.
 */
export function askPolicy(question: SituatedQuestion, context: CallContext) {
	const prompt = renderPrompt('situated/policy', {culture: question.culture, scenario: question.scenario, question: question.question});
	return call<string>('policy', prompt, undefined, {question, sample: context.sample ?? 0} satisfies PolicyMock, context);
}

export type GradeMock = {readonly item: ItemContext; readonly draft: SituatedDraft; readonly answer: string; readonly reasoning: string};
export function gradeOutcome(input: GradeMock, context: CallContext) {
	const prompt = renderPrompt('situated/outcome', {culture: input.item.culture, norm: input.item.norm.text, scenario: input.draft.scenario, question: input.draft.question, answer: input.answer});
	return call('outcome', prompt, OutcomeScore, input, context);
}

export function gradeNormMatch(input: GradeMock, context: CallContext) {
	const prompt = renderPrompt('situated/norm-match', {culture: input.item.culture, norm: input.item.norm.text, scenario: input.draft.scenario, question: input.draft.question, reasoning: input.reasoning, answer: input.answer});
	return call('norm-match', prompt, NormMatchScore, input, context);
}
