import type {Session} from '../../domain/session.js';
import type {CallInFlight} from '../episode/liveState.js';
import {callInFlightText, type Segment, turnText, usageText} from './status.js';

/*
 * The status line of a blind human assistant: what a model under test could know (the turn, the
 * cost, that someone else is busy), never shard progress, decisions, scores or error details, which
 * come from private and oracle state. Built from the session by this one function; the seat's
 * component receives the segments, never the session.
 */

export type BlindStatusInput = {
	readonly session: Pick<Session, 'status' | 'turns' | 'config' | 'calls' | 'error' | 'termination'>;
	readonly running: boolean;
	readonly awaitingHuman: boolean;
	readonly calls: readonly CallInFlight[];
	readonly nowMs: number;
	readonly problem: boolean;
};

/** "your turn" / "the user is writing…" / "judging…": which side is busy, in public words. */
function phase(input: BlindStatusInput): Segment {
	const {session} = input;
	if (session.status === 'completed') return {text: '✓ the dialogue has ended and been judged', tone: 'ok'};
	if (session.status === 'error') return {text: `✗ stopped on an error (${session.error?.flag ?? 'error'}): r retries the failed step`, tone: 'error'};
	if (input.awaitingHuman) return {text: 'your turn: write the assistant\'s reply', tone: 'warn'};
	if (session.termination) return {text: input.running ? '▶ the dialogue has ended; judging…' : 'the dialogue has ended; judging is next', tone: 'accent'};
	if (input.running) return {text: session.turns.length === 0 ? '▶ setting up the conversation…' : '▶ the user is writing…', tone: 'accent'};
	return {text: 'paused: n continues', tone: 'normal'};
}

export function blindStatusLines(input: BlindStatusInput): Segment[][] {
	const first: Segment[] = [phase(input), {text: turnText(input.session), tone: 'normal'}, {text: usageText(input.session as Session), tone: 'dim'}];
	const call = input.calls[0];
	if (call && call.role !== 'assistant') first.push({text: callInFlightText({...call, stage: call.role}, input.nowMs), tone: 'warn'});
	const second: Segment[] = [{text: `you are the assistant · you see the chat only, as a model would · sim ${input.session.config.models.simulator} · judge ${input.session.config.models.judge}`, tone: 'dim'}];
	if (input.problem) second.push({text: 'a call failed: details are hidden from you (v reveals them, and is recorded)', tone: 'error'});
	return [first, second];
}
