import type {Blueprint, ValidationAttempt} from '../domain/blueprint.js';
import {type Shard, ShardAudit, ShardPlan} from '../domain/shards.js';
import type {Tier} from '../domain/seed.js';
import type {Language, Persona} from '../domain/universe.js';
import {renderPrompt} from '../llm/prompts.js';
import {ModelCallError} from '../llm/types.js';
import {auditVerdict, type AuditVerdict, type StageOptions} from './blueprint.js';
import {oracleText, planText, privateStateText} from './render.js';
import {StageError} from './stageError.js';

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
	const maxAttempts = options.maxAttempts ?? 3;
	const attempts: ValidationAttempt[] = [];
	const feedback: string[] = [];
	const base = {
		tier: context.tier,
		public_message: context.blueprint.public.initialMessage,
		oracle: oracleText(context.blueprint.oracle),
	};
	for (let attempt = 1; attempt <= maxAttempts; attempt++) {
		const callIds: string[] = [];
		let plan: ShardPlan;
		try {
			const response = await options.gateway.call({
				role: 'generator',
				stage: 'shards',
				prompt: renderPrompt('shards', {
					...base,
					native_language: `${context.language.name} (${context.language.native})`,
					private_state: privateStateText(context.blueprint.private),
					min_shards: String(MIN_SHARDS),
					max_shards: String(MAX_SHARDS),
					feedback: feedback.length > 0 ? feedback.map((problem) => `- ${problem}`).join('\n') : '(none: this is the first attempt)',
				}),
				schema: {name: 'shards', schema: ShardPlan},
				validate: (value) => shardProblems(value, context),
				mock: {context, attempt, feedback} satisfies ShardsMockInput,
				step: options.step,
				signal: options.signal,
				onEvent: options.onEvent,
			});
			callIds.push(response.call.id);
			plan = response.value;
		} catch (error) {
			if (error instanceof ModelCallError && error.kind === 'invalid_output') {
				callIds.push(error.call.id);
				attempts.push({attempt, ok: false, problems: [error.message], callIds});
				feedback.push(error.message);
				continue;
			}
			if (error instanceof ModelCallError) throw new StageError(`shard generation failed: ${error.message}`, 'shards', attempts, error.kind);
			throw error;
		}
		let verdict: AuditVerdict;
		try {
			const audit = await options.gateway.call({
				role: 'validator',
				stage: 'shards-audit',
				prompt: renderPrompt('shards-audit', {...base, plan: planText(plan.shards)}),
				schema: {name: 'shards_audit', schema: ShardAudit},
				mock: {context, plan} satisfies ShardsAuditMockInput,
				step: options.step,
				signal: options.signal,
				onEvent: options.onEvent,
			});
			callIds.push(audit.call.id);
			verdict = auditVerdict(audit.value);
		} catch (error) {
			if (error instanceof ModelCallError) throw new StageError(`shard audit failed: ${error.message}`, 'shards', attempts, error.kind);
			throw error;
		}
		attempts.push({attempt, ok: verdict.ok, problems: [...verdict.problems], callIds});
		if (verdict.ok) return {shards: plan.shards, attempts};
		feedback.push(...verdict.problems);
	}
	throw new StageError(`shards failed validation ${maxAttempts} times: ${attempts.at(-1)?.problems.join('; ') ?? 'no attempt'}`, 'shards', attempts, 'invalid');
}
