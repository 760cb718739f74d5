import type {z} from 'zod';
import type {ModelRole, RoleSettings} from '../domain/session.js';
import {
	Chronotope,
	ExtractedNorm,
	GroundingScore,
	type Norm,
	NormMatchScore,
	OutcomeScore,
	ReasonerAnswer,
	ResponseAdvice,
	RevisionPlan,
	RewardScore,
	SituatedDraft,
	Verification,
} from '../domain/situated.js';
import {renderPrompt} from '../llm/prompts.js';
import type {CallEvent, ModelGateway, ModelResponse, RenderedPrompt} from '../llm/types.js';
import type {ExtractRow} from './normSources.js';
import type {RewardInput, SituatedQuestion} from './views.js';

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

export type SituatedStage = 'norm-extract' | 'chronotope' | 'question' | 'reasoner' | 'verifier' | 'advisor' | 'planner' | 'reviser' | 'policy' | 'outcome' | 'norm-match' | 'grounding' | 'reward';

const ROLE: Record<SituatedStage, ModelRole> = {
	'norm-extract': 'generator',
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
	grounding: 'judge',
	// A reward model is an evaluator reached like the judge (its endpoint and key) with a model of its own.
	reward: 'judge',
};

export const stageName = (stage: SituatedStage) => `situated:${stage}`;
export const roleOf = (stage: SituatedStage) => ROLE[stage];

type CallExtras<T> = {readonly settings?: RoleSettings; readonly validate?: (value: T) => readonly string[]};

function call<T>(stage: SituatedStage, prompt: RenderedPrompt, schema: z.ZodType<T> | undefined, mock: unknown, context: CallContext, extras: CallExtras<T> = {}): Promise<ModelResponse<T>> {
	return context.gateway.call<T>({
		role: ROLE[stage],
		settings: extras.settings,
		validate: extras.validate,
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

/** "prescriptive, dining etiquette": the kind of norm, as the writer-side prompts name it. */
const normType = (norm: Norm) => `${norm.type}, ${norm.category.replace(/_/g, ' ')}`;

export const chronotopeText = (c: Chronotope) =>
	[`Time: ${c.time}`, `Place: ${c.place}`, `Participants: ${c.participants}`, `Activity: ${c.activity}`, `Interpretive frame: ${c.frame}`, `Potential tension: ${c.tension}`, `Activation condition: ${c.activation}`, `Difference from earlier settings: ${c.difference}`].join('\n');
const draftValues = (item: ItemContext, draft: SituatedDraft) => ({
	culture: item.culture,
	norm: item.norm.text,
	norm_type: normType(item.norm),
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

export type ExtractMock = {readonly row: ExtractRow};

/** What the extractor reads of a source row: the question with its options and keyed answer, or a statement. */
export function sourceItemText(row: ExtractRow): string {
	if (row.statement !== null) return `Statement: ${row.statement}`;
	const letters = 'ABCDEFGH';
	const options = row.options.length > 1 ? `\nOptions:\n${row.options.map((option, index) => `${letters[index]}. ${option}`).join('\n')}` : '';
	return `Question: ${row.question}${options}\nCorrect answer: ${row.answer}`;
}

/** The norm extractor (CRISP A.1): one norm sentence from one source row, with its type and category. */
export function extractNorm(row: ExtractRow, context: CallContext) {
	const prompt = renderPrompt('situated/norm-extract', {culture: row.culture, dataset: row.format, item: sourceItemText(row), hint: row.hint ? `\nNOTE: ${row.hint}` : ''});
	const validate = (value: ExtractedNorm) => {
		if (!value.statesNorm) return [];
		const text = value.norm.trim();
		const problems: string[] = [];
		if (text.length < 20) problems.push('norm: write the norm as a full sentence (at least 20 characters)');
		if (text.length > 400) problems.push('norm: keep it to one concise sentence (under 400 characters)');
		if (/\?\s*$/.test(text)) problems.push('norm: state the norm, do not ask a question');
		return problems;
	};
	return call('norm-extract', prompt, ExtractedNorm, {row} satisfies ExtractMock, context, {validate});
}

export type ChronotopeMock = {readonly culture: string; readonly norm: Norm; readonly index: number};
export function writeChronotope(culture: string, norm: Norm, accepted: readonly Chronotope[], context: CallContext) {
	const prompt = renderPrompt('situated/chronotope', {culture, norm: norm.text, norm_type: normType(norm), accepted: accepted.length === 0 ? '(none yet)' : accepted.map((c, i) => `${i + 1}.\n${chronotopeText(c)}`).join('\n\n')});
	return call('chronotope', prompt, Chronotope, {culture, norm, index: accepted.length} satisfies ChronotopeMock, context);
}

export type QuestionMock = {readonly item: ItemContext};
export function writeQuestion(item: ItemContext, context: CallContext) {
	const prompt = renderPrompt('situated/question', {culture: item.culture, norm: item.norm.text, norm_type: normType(item.norm), chronotope: chronotopeText(item.chronotope)});
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

/** The norm grounding classifier (the paper's NGS, open-book): the probability that the reasoning is grounded in the norm. */
export function gradeGrounding(input: GradeMock, context: CallContext, settings?: RoleSettings) {
	const prompt = renderPrompt('situated/grounding', {culture: input.item.culture, norm: input.item.norm.text, scenario: input.draft.scenario, question: input.draft.question, reasoning: input.reasoning, answer: input.answer});
	return call('grounding', prompt, GroundingScore, input, context, {settings});
}

export type RewardMock = {readonly input: RewardInput};
/**
 * A chat model as a pointwise reward model. It reads a RewardInput only (culture, scenario, question,
 * answer: never the norm, the setting or the reference answer) and not the reasoning, as CRISP-RM.
 */
export function scoreWithRewardModel(input: RewardInput, settings: RoleSettings, context: CallContext) {
	const prompt = renderPrompt('situated/reward', {culture: input.culture, scenario: input.scenario, question: input.question, answer: input.answer});
	return call('reward', prompt, RewardScore, {input} satisfies RewardMock, context, {settings});
}
