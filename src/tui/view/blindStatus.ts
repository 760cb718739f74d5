import type {Session} from '../../domain/session.js';
import type {CallInFlight} from '../episode/liveState.js';
import {dialogueOpen} from '../../episode/blindness.js';
import {callInFlightShort, callInFlightText, type Segment, turnShort, turnText, usageShort, usageText} from './status.js';

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
	/** What the screen last did for the person (our own words, never episode state). */
	readonly note?: string | null;
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
	const first: Segment[] = [phase(input), {text: turnText(input.session), tone: 'normal', short: turnShort(input.session), drop: 2}, {text: usageText(input.session as Session), tone: 'dim', short: usageShort(input.session as Session), drop: 3}];
	const call = input.calls[0];
	if (call && call.role !== 'assistant') first.push({text: callInFlightText({...call, stage: call.role}, input.nowMs), tone: 'warn', short: callInFlightShort({...call, stage: call.role}, input.nowMs)});
	const second: Segment[] = [{text: `you are the assistant · you see the chat only, as a model would · sim ${input.session.config.models.simulator} · judge ${input.session.config.models.judge}`, tone: 'dim', short: 'you are the assistant (blind: the chat only)', drop: 3}];
	// Revealing is offered only while it would matter (the dialogue is open); blindness.ts decides that.
	if (input.problem) second.push({text: dialogueOpen(input.session) ? 'a call failed: details are hidden from you (v shows them, and is recorded)' : 'a call failed: details are hidden from you', tone: 'error'});
	if (input.note) second.push({text: input.note, tone: 'accent', drop: 2});
	return [first, second];
}
