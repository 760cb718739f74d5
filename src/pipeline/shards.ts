import type {Blueprint, ValidationAttempt} from '../domain/blueprint.js';
import {type Shard, ShardAudit, ShardPlan} from '../domain/shards.js';
import type {Tier} from '../domain/seed.js';
import type {Language, Persona} from '../domain/universe.js';
import {renderPrompt} from '../llm/prompts.js';
import type {StageOptions} from './blueprint.js';
import {auditVerdict, feedbackText, refine} from './refine.js';
import {oracleText, planText, privateStateText} from './render.js';

export const MIN_SHARDS = 3;
export const MAX_SHARDS = 5;

export type ShardsContext = {
	readonly blueprint: Blueprint;
	readonly tier: Tier;
	readonly persona: Persona;
	readonly language: Language;
};

export type ShardsMockInput = {readonly context: ShardsContext; readonly attempt: number; readonly feedback: readonly string[]};
export type ShardsAuditMockInput = {readonly context: ShardsContext; readonly plan: ShardPlan};

/** Checks code can make on a plan; fed back to the generator like schema errors. */
export function shardProblems(plan: ShardPlan, context: ShardsContext): string[] {
	const problems: string[] = [];
	const hidden = context.blueprint.private.hiddenConstraints;
	const disclosed = plan.shards.flatMap((shard) => shard.disclose);
	if (hidden.length > 0 && disclosed.length === 0) problems.push('no phase discloses any hidden constraint: spread them over the phases');
	if (hidden.length > 1 && plan.shards[0] && plan.shards[0].disclose.length >= hidden.length) problems.push('the first phase discloses every hidden constraint: spread them over later phases');
	plan.shards.forEach((shard, index) => {
		if (shard.successCondition.trim() === shard.failureCondition.trim()) problems.push(`shard ${index + 1}: success and failure conditions must differ`);
	});
	return problems;
}

/**
 * Stage 3 (paper equation 3): blueprint -> 3..5 ordered shards, audited for structure, plausibility,
 * answerability, the tier's challenge and progressive disclosure; regenerated with feedback.
 */
export async function generateShards(context: ShardsContext, options: StageOptions): Promise<{shards: Shard[]; attempts: ValidationAttempt[]}> {
	const call = {step: options.step, signal: options.signal, onEvent: options.onEvent};
	const base = {tier: context.tier, public_message: context.blueprint.public.initialMessage, oracle: oracleText(context.blueprint.oracle)};
	const {value, attempts} = await refine<ShardPlan>({
		stage: 'shards',
		maxAttempts: options.maxAttempts ?? 3,
		generate: async (feedback, attempt) => {
			const response = await options.gateway.call({
				...call,
				role: 'generator',
				stage: 'shards',
				prompt: renderPrompt('shards', {
					...base,
					native_language: `${context.language.name} (${context.language.native})`,
					private_state: privateStateText(context.blueprint.private),
					min_shards: String(MIN_SHARDS),
					max_shards: String(MAX_SHARDS),
					feedback: feedbackText(feedback),
				}),
				schema: {name: 'shards', schema: ShardPlan},
				validate: (plan) => shardProblems(plan, context),
				mock: {context, attempt, feedback} satisfies ShardsMockInput,
			});
			return {value: response.value, callId: response.call.id};
		},
		audit: async (plan) => {
			const response = await options.gateway.call({
				...call,
				role: 'validator',
				stage: 'shards-audit',
				prompt: renderPrompt('shards-audit', {...base, plan: planText(plan.shards)}),
				schema: {name: 'shards_audit', schema: ShardAudit},
				mock: {context, plan} satisfies ShardsAuditMockInput,
			});
			return {verdict: auditVerdict(response.value), callId: response.call.id};
		},
	});
	return {shards: value.shards, attempts};
}
