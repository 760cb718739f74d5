/* A long synthetic session for render tests and the benchmark. */

import type {CallRecord, Session, Turn} from '../../src/domain/session.js';

const WORDS = 'the family meal plan needs a quiet word with the eldest aunt before the festival week so that every dish on the shared table respects the fast days and nobody feels their cooking was refused'.split(' ');

/** `count` words of plain text, varied by `seed` so turns differ. */
export function filler(count: number, seed: number): string {
	const out: string[] = [];
	for (let i = 0; i < count; i++) out.push(WORDS[(i * 7 + seed * 13) % WORDS.length]!);
	return `${out.join(' ')}.`;
}

/**
 * `base` (a session with a blueprint and shards) with `turns` alternating user/assistant turns of
 * `words` words each, ending on a user turn so the next step is the assistant's. Steps and calls
 * line up so sessionAtStep can replay it.
 */
export function longSession(base: Session, options: {turns?: number; words?: number} = {}): Session {
	const count = options.turns ?? 40;
	const words = options.words ?? 300;
	const first = (base.stageSteps.shards ?? 2) + 1;
	const turns: Turn[] = [];
	for (let index = 0; index < count; index++) {
		const role = index % 2 === 0 ? 'user' : 'assistant';
		const t = Math.floor(index / 2);
		turns.push({index, role, content: filler(words, index), t, shard: Math.min(t, (base.shards?.length ?? 1) - 1), step: first + index, source: role === 'user' ? (index === 0 ? 'blueprint' : 'simulator') : 'llm', language: 'english', style: null, assessment: role === 'user' && index > 0 ? {decision: 'CONTINUE_CURRENT', reasoning: filler(30, index)} : null, closing: false, callId: null});
	}
	if (turns.at(-1)?.role === 'assistant') turns.pop();
	const steps = [...base.steps.filter((step) => step.n < first), ...turns.map((turn) => ({n: turn.step, kind: turn.role === 'user' ? ('simulate' as const) : ('assistant' as const), label: `${turn.role} t=${turn.t}`, at: base.createdAt, ok: true}))];
	return {...base, status: 'running', turns, steps, judge: null, termination: null, error: null, shardIndex: 0, config: {...base.config, maxTurns: 20}, calls: base.calls.filter((call: CallRecord) => call.step < first)};
}
