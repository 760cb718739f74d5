import type {RouteDecision, Verification} from '../domain/situated.js';

export type Route = {readonly decision: RouteDecision; readonly diagnosis: string};

/**
 * The Routing Controller (CRISP Table 2): a pure function of the verifier's five checks, so the same
 * verification always routes the same way and a run can be audited after the fact.
 *
 * - leakage (L = 1), a wrong action (A = 0) or a missed norm (N = 0): the question is at fault, revise it;
 * - right action and norm but thin evidence or reasoning (E = 0 or R = 0): the answer is at fault, rerun it;
 * - all checks pass and nothing leaks: keep.
 */
export function route(v: Verification): Route {
	const failed: string[] = [];
	if (v.normLeakage.score === 1) failed.push('the scenario or question gives the norm away (L=1)');
	if (v.actionCorrect.score === 0) failed.push('the proposed action is not appropriate (A=0)');
	if (v.normMatch.score === 0) failed.push('the inferred norm misses the target norm (N=0)');
	if (failed.length > 0) return {decision: 'revise-question', diagnosis: failed.join('; ')};
	if (v.evidenceSupport.score === 0) failed.push('scenario cues are not used as evidence (E=0)');
	if (v.reasonSupportsAction.score === 0) failed.push('the reasoning does not carry the action (R=0)');
	if (failed.length > 0) return {decision: 'rerun-answer', diagnosis: failed.join('; ')};
	return {decision: 'keep', diagnosis: 'every check passed and nothing leaks'};
}
