import {type Metric, type Session} from '../domain/session.js';
import {pendingMetrics} from './judge.js';

/** The next thing an episode needs, derived from the saved session alone, so resume is free. */
export type Action =
	| {readonly kind: 'blueprint'}
	| {readonly kind: 'shards'}
	| {readonly kind: 'open'}
	| {readonly kind: 'assistant'; readonly t: number}
	| {readonly kind: 'simulate'; readonly t: number}
	| {readonly kind: 'judge'; readonly metric: Metric}
	| {readonly kind: 'judge-combined'}
	| {readonly kind: 'finish'}
	| {readonly kind: 'done'};

export function nextAction(session: Session): Action {
	if (session.status === 'completed' || session.status === 'error') return {kind: 'done'};
	if (!session.blueprint) return {kind: 'blueprint'};
	if (!session.shards) return {kind: 'shards'};
	if (!session.termination) {
		const last = session.turns.at(-1);
		if (!last) return {kind: 'open'};
		const userTurns = session.turns.filter((turn) => turn.role === 'user').length;
		if (last.role === 'user') return {kind: 'assistant', t: last.t};
		return {kind: 'simulate', t: userTurns};
	}
	const pending = pendingMetrics(session.judge);
	if (pending.length === 0) return {kind: 'finish'};
	if (session.config.judgeMode === 'combined') return {kind: 'judge-combined'};
	return {kind: 'judge', metric: pending[0]!};
}

export function actionLabel(action: Action): string {
	switch (action.kind) {
		case 'blueprint':
			return 'retrieve evidence and write the blueprint';
		case 'shards':
			return 'write the shards';
		case 'open':
			return 'user opens (t=0)';
		case 'assistant':
			return `assistant replies (t=${action.t})`;
		case 'simulate':
			return `user replies (t=${action.t})`;
		case 'judge':
			return `judge: ${action.metric}`;
		case 'judge-combined':
			return 'judge: all six metrics';
		case 'finish':
			return 'finish';
		case 'done':
			return 'done';
		default: {
			const never: never = action;
			return never;
		}
	}
}
