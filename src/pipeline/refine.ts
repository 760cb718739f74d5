import type {ValidationAttempt} from '../domain/blueprint.js';
import {ModelCallError} from '../llm/types.js';
import {StageError} from './stageError.js';

export type AuditVerdict = {readonly ok: boolean; readonly problems: readonly string[]};

/**
 * The generate -> audit -> regenerate-with-feedback loop shared by the blueprint and shard stages
 * (paper Appendix H). An off-schema reply that the gateway's re-asks could not fix costs one attempt
 * and feeds its problems forward; any other call failure is infrastructure and ends the stage.
 */
export async function refine<T>(options: {
	readonly stage: string;
	readonly maxAttempts: number;
	readonly generate: (feedback: readonly string[], attempt: number) => Promise<{value: T; callId: string}>;
	readonly audit: (value: T) => Promise<{verdict: AuditVerdict; callId: string}>;
}): Promise<{value: T; attempts: ValidationAttempt[]}> {
	const attempts: ValidationAttempt[] = [];
	const feedback: string[] = [];
	for (let attempt = 1; attempt <= options.maxAttempts; attempt++) {
		const callIds: string[] = [];
		let value: T;
		try {
			const generated = await options.generate(feedback, attempt);
			callIds.push(generated.callId);
			value = generated.value;
		} catch (error) {
			if (error instanceof ModelCallError && error.kind === 'invalid_output') {
				attempts.push({attempt, ok: false, problems: [error.message], callIds: [error.call.id]});
				feedback.push(error.message);
				continue;
			}
			if (error instanceof ModelCallError) throw new StageError(`${options.stage} generation failed: ${error.message}`, options.stage, attempts, error.kind, error.call.role);
			throw error;
		}
		let verdict: AuditVerdict;
		try {
			const audited = await options.audit(value);
			callIds.push(audited.callId);
			verdict = audited.verdict;
		} catch (error) {
			if (error instanceof ModelCallError) throw new StageError(`${options.stage} audit failed: ${error.message}`, options.stage, attempts, error.kind, error.call.role);
			throw error;
		}
		attempts.push({attempt, ok: verdict.ok, problems: [...verdict.problems], callIds});
		if (verdict.ok) return {value, attempts};
		feedback.push(...verdict.problems);
	}
	throw new StageError(`${options.stage} failed validation ${options.maxAttempts} times: ${attempts.at(-1)?.problems.join('; ') ?? 'no attempt'}`, options.stage, attempts, 'invalid');
}

/**
 * Pass when the audit's checks pass; stray notes are kept in the trace but do not force a
 * regeneration. A failed check always comes with at least one problem the generator can act on.
 */
export function auditVerdict(audit: {leaksOracle?: boolean; nativeLeaksOracle?: boolean; nativeMatchesEnglish?: boolean; answerable: boolean; tierChallengePresent: boolean; problems: readonly string[]; plausible?: boolean; progressiveDisclosure?: boolean}): AuditVerdict {
	const problems = [...audit.problems];
	const failed: string[] = [];
	if (audit.leaksOracle) failed.push('the opening message leaks oracle content');
	if (audit.nativeLeaksOracle) failed.push('the native-language opening message leaks oracle content');
	if (audit.nativeMatchesEnglish === false) failed.push('the native-language opening message does not say what the English one says');
	if (!audit.answerable) failed.push('the scenario is not answerable as written');
	if (!audit.tierChallengePresent) failed.push("the tier's challenge is missing");
	if (audit.plausible === false) failed.push('the plan is not plausible for this person');
	if (audit.progressiveDisclosure === false) failed.push('the hidden constraints are front-loaded instead of disclosed gradually');
	if (failed.length === 0) return {ok: true, problems};
	return {ok: false, problems: problems.length > 0 ? problems : failed};
}

export function feedbackText(feedback: readonly string[]): string {
	return feedback.length > 0 ? feedback.map((problem) => `- ${problem}`).join('\n') : '(none: this is the first attempt)';
}
