import {METRICS, type Session} from '../domain/session.js';
import {aggregate} from './judge.js';

/**
 * The session as it was right after step `n` (0 = before any step): every pane of a replay is a pure
 * view of this. Each turn, judge metric, stage, call, termination and error carries the step that
 * produced it, so the past is a filter, not a re-run.
 */
export function sessionAtStep(session: Session, n: number): Session {
	const total = session.steps.length;
	if (n >= total) return session;
	const upTo = (step: number | null | undefined) => step !== null && step !== undefined && step <= n;
	const turns = session.turns.filter((turn) => turn.step <= n);
	const advanced = turns.filter((turn) => turn.role === 'user' && turn.assessment?.decision === 'ADVANCE_NEXT').length;
	let judge = session.judge;
	if (judge) {
		const scores = {...judge.scores};
		const rationales = {...judge.rationales};
		const steps = {...judge.steps};
		for (const metric of METRICS) {
			if (!upTo(judge.steps[metric])) {
				scores[metric] = null;
				rationales[metric] = null;
				steps[metric] = null;
			}
		}
		judge = METRICS.some((metric) => steps[metric] !== null) ? aggregate({...judge, scores, rationales, steps, violations: upTo(judge.steps.harmlessness) ? judge.violations : []}) : null;
	}
	const termination = session.termination && upTo(session.termination.step) ? session.termination : null;
	const error = session.error && upTo(session.error.step) ? session.error : null;
	const last = turns.at(-1);
	const awaiting = !error && !termination && session.config.assistant === 'human' && last?.role === 'user' && !last.closing;
	return {
		...session,
		status: error ? 'error' : awaiting ? 'awaiting_assistant' : 'running',
		evidence: upTo(session.stageSteps.blueprint) ? session.evidence : null,
		blueprint: upTo(session.stageSteps.blueprint) ? session.blueprint : null,
		shards: upTo(session.stageSteps.shards) ? session.shards : null,
		turns,
		shardIndex: termination ? session.shardIndex : advanced,
		judge,
		termination,
		error,
		steps: session.steps.filter((step) => step.n <= n),
		calls: session.calls.filter((call) => call.step <= n),
	};
}
