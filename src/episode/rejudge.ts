import type {JudgeMode, RoleSettings, Session} from '../domain/session.js';
import {judgeModelName} from '../domain/setup.js';

/*
 * Re-scoring a saved dialogue with another judge. The original session is never touched: the copy
 * keeps its dialogue (turns, steps and calls up to the end of the conversation) and drops the judge's
 * steps, so the one episode engine, resumed on the copy, runs only the judge and finish steps with the
 * new judge. Copies are ordinary sessions (`report --by judge` compares judges on the same dialogues).
 */

/** A session is re-judgeable once its dialogue ended: completed, or stopped in judging. */
export function rejudgeable(session: Session): string | null {
	if (session.config.rejudgeOf) return `it is itself a re-judged copy of ${session.config.rejudgeOf}`;
	if (!session.termination) return `its dialogue has not ended (status ${session.status})`;
	if (session.status === 'error' && session.error?.flag !== 'JUDGE_ERROR') return `it ended in an error (${session.error?.flag ?? 'unknown'}) before judging`;
	return null;
}

const slug = (text: string) => text.replace(/[^A-Za-z0-9._-]+/g, '-').replace(/^-+|-+$/g, '').slice(0, 48) || 'judge';

/** `<original>.rj-<judge model>-<mode>[-r<repeat>]`: stable, so a rerun finds (and resumes or skips) its copy. */
export const rejudgeId = (original: Pick<Session, 'id'>, model: string, mode: JudgeMode, repeat = 1) => `${original.id}.rj-${slug(model)}-${mode}${repeat > 1 ? `-r${repeat}` : ''}`;

export function rejudgeCopy(original: Session, judge: {readonly settings: RoleSettings; readonly mode: JudgeMode; readonly now: Date; readonly repeat?: number}): Session {
	const steps = original.steps.filter((step) => step.kind !== 'judge' && step.kind !== 'finish');
	const lastStep = steps.at(-1)?.n ?? 0;
	const now = judge.now.toISOString();
	return {
		...original,
		id: rejudgeId(original, judge.settings.model, judge.mode, judge.repeat),
		createdAt: now,
		updatedAt: now,
		status: 'running',
		judge: null,
		error: null,
		steps,
		calls: original.calls.filter((call) => call.step <= lastStep),
		config: {
			...original.config,
			models: {...original.config.models, judge: judgeModelName(judge.settings)},
			roles: {...original.config.roles, judge: judge.settings},
			judgeMode: judge.mode,
			mock: original.config.mock || judge.settings.provider === 'mock',
			rejudgeOf: original.id,
			...(judge.repeat && judge.repeat > 1 ? {rejudgeRepeat: judge.repeat} : {}),
		},
	};
}
