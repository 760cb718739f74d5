import type {Evidence} from '../domain/kb.js';
import type {Blueprint, OracleState} from '../domain/blueprint.js';
import type {Shard} from '../domain/shards.js';
import type {JudgeResult, Session, Termination, Turn} from '../domain/session.js';
import type {Persona} from '../domain/universe.js';
import {oracleText, personaSummary} from '../pipeline/render.js';

/*
 * Role views as pure functions of the session (paper Table 1). The assistant's prompt builder accepts
 * only a PublicView, which only `publicView()` can construct (the brand is a module-private symbol),
 * so hidden state cannot reach the assistant by accident: it would not type-check.
 */

declare const publicBrand: unique symbol;
declare const guidanceBrand: unique symbol;

export type ChatTurn = {readonly role: 'user' | 'assistant'; readonly content: string};

/** The chat history exactly as the assistant sees it, and nothing else. */
export type PublicView = {readonly [publicBrand]: true; readonly messages: readonly ChatTurn[]};

/** The oracle-derived briefing a gold-mode assistant receives (Appendix J); nothing else from hidden state. */
export type GoldGuidance = {readonly [guidanceBrand]: true; readonly text: string};

/** Turns the assistant has seen: every dialogue turn except closing messages written after the end. */
export function publicView(session: Pick<Session, 'turns'>): PublicView {
	const messages = session.turns.filter((turn) => !turn.closing).map((turn): ChatTurn => ({role: turn.role, content: turn.content}));
	return {messages} as unknown as PublicView;
}

export function shardIndexFor(session: Pick<Session, 'shardIndex' | 'shards'>): number {
	return Math.min(session.shardIndex, Math.max(0, (session.shards?.length ?? 1) - 1));
}

/**
 * Gold teacher's briefing: the user's demographics and identity, the current target goal, success
 * criteria, taboos and tripwires (Table 1, "Gold teacher" row).
 */
export function goldGuidance(session: Pick<Session, 'persona' | 'blueprint' | 'shards' | 'shardIndex'>): GoldGuidance {
	const blueprint = session.blueprint;
	if (!blueprint) throw new Error('gold guidance needs a blueprint');
	const shard = session.shards?.[shardIndexFor(session)];
	const oracle = blueprint.oracle;
	const text = [
		`The person: ${personaSummary(session.persona)} ${blueprint.private.identity}`,
		`What they are trying to achieve right now: ${shard ? shard.goal : blueprint.private.goal}`,
		`Their overall need: ${blueprint.private.goal}`,
		'Good help here:',
		...oracle.successCriteria.map((item) => `- ${item}`),
		'Avoid:',
		...oracle.failureCriteria.map((item) => `- ${item}`),
		...oracle.taboos.map((item) => `- ${item.description}`),
		...oracle.tripwires.map((item) => `- ${item.description}`),
		...(oracle.friction ? [`Cross-cultural tension to handle with care: ${oracle.friction}`] : []),
	].join('\n');
	return {text} as unknown as GoldGuidance;
}

export type SimulatorDecisionView = {readonly t: number; readonly decision: string; readonly reasoning: string; readonly shard: number; readonly style: string | null};

/** What the simulated user knows and how it has been deciding (the Private pane). */
export type PrivateView = {
	readonly persona: Persona;
	readonly personaSummary: string;
	readonly blueprint: Pick<Blueprint['private'], 'identity' | 'style' | 'situation' | 'goal' | 'summary' | 'slots' | 'hiddenConstraints'> | null;
	readonly shards: readonly Shard[] | null;
	readonly shardIndex: number;
	readonly shardsPassed: number;
	readonly decisions: readonly SimulatorDecisionView[];
	readonly openerStyles: readonly string[];
	readonly lastStyle: string | null;
	readonly languageDirective: string | null;
	readonly termination: Termination | null;
};

export function privateView(session: Session): PrivateView {
	const blueprint = session.blueprint;
	const decisions = session.turns
		.filter((turn): turn is Turn & {assessment: NonNullable<Turn['assessment']>} => turn.role === 'user' && turn.assessment !== null)
		.map((turn) => ({t: turn.t, decision: turn.assessment.decision, reasoning: turn.assessment.reasoning, shard: turn.shard, style: turn.style?.directive ?? null}));
	const lastUser = [...session.turns].reverse().find((turn) => turn.role === 'user');
	return {
		persona: session.persona,
		personaSummary: personaSummary(session.persona),
		blueprint: blueprint ? blueprint.private : null,
		shards: session.shards,
		shardIndex: session.shardIndex,
		shardsPassed: Math.min(session.shardIndex, session.shards?.length ?? 0),
		decisions,
		openerStyles: blueprint?.meta.openerStyles ?? [],
		lastStyle: lastUser?.style?.directive ?? null,
		languageDirective: blueprint ? (session.config.language === 'english' ? blueprint.language.english.directive : blueprint.language.nativeMode.directive) : null,
		termination: session.termination,
	};
}

/** What only the judge sees (the Oracle pane). */
export type OracleView = {
	readonly oracle: OracleState | null;
	readonly oracleText: string | null;
	readonly evidence: Evidence | null;
	readonly judge: JudgeResult | null;
	readonly error: Session['error'];
};

export function oracleView(session: Session): OracleView {
	return {
		oracle: session.blueprint?.oracle ?? null,
		oracleText: session.blueprint ? oracleText(session.blueprint.oracle) : null,
		evidence: session.evidence,
		judge: session.judge,
		error: session.error,
	};
}
