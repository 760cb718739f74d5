import type {Session} from '../../domain/session.js';
import {actionLabel, nextAction} from '../../episode/nextAction.js';
import {sessionUsage} from '../../app/runtime.js';
import type {CallInFlight} from '../episode/liveState.js';
import type {Tone} from '../../present/panes/lines.js';
import {displayWidth} from '../text/width.js';
import type {MockKind} from '../../report/setups.js';
import {sessionMockKind} from '../../present/mockNote.js';

export type Segment = {
	readonly text: string;
	readonly tone: Tone;
	/** A shorter wording used before anything is dropped on a narrow terminal. */
	readonly short?: string;
	/** Which segments go first when the line is too narrow: 0 never (phase, call timer, the problem), then the highest first. @default 0 */
	readonly drop?: number;
};

const SEPARATOR = ' │ ';

/**
 * A status line fitted to a width in a fixed order: first the most droppable segments take their
 * short wording, then they are dropped, highest `drop` first (ties from the end of the line); what
 * never drops (phase, the call in flight with its timer, the problem) stays, cut only as a last resort.
 */
export function fitSegments(segments: readonly Segment[], width: number): Segment[] {
	let line = segments.map((segment) => ({...segment}));
	const measure = () => displayWidth(line.map((segment) => segment.text).join(SEPARATOR));
	const order = () => line.map((segment, index) => ({segment, index})).filter(({segment}) => (segment.drop ?? 0) > 0).sort((a, b) => (b.segment.drop ?? 0) - (a.segment.drop ?? 0) || b.index - a.index);
	for (const {segment} of [...order(), ...line.map((segment) => ({segment}))]) {
		if (measure() <= width) return line;
		if (segment.short !== undefined) (segment as {text: string}).text = segment.short;
	}
	for (const {segment} of order()) {
		if (measure() <= width) return line;
		line = line.filter((kept) => kept !== segment);
	}
	return line;
}

export type StatusInput = {
	readonly session: Session;
	/** Label of the step in flight (live), or null. */
	readonly running: string | null;
	readonly awaitingHuman: boolean;
	readonly retry: string | null;
	readonly lastLatencyMs: number | null;
	readonly problem: string | null;
	readonly auto: boolean;
	/** Replay position, or null for a live episode. */
	readonly replay: {readonly step: number; readonly total: number; readonly label: string} | null;
	/** Model calls in flight (live), oldest first, and the clock their timers read. */
	readonly calls?: readonly CallInFlight[];
	readonly nowMs?: number;
	/** What the screen last did for the person (a page written, a view declined), shown until the next one. */
	readonly note?: string | null;
};

export function formatTokens(count: number): string {
	if (count < 1000) return String(count);
	if (count < 1_000_000) return `${(count / 1000).toFixed(1)}k`;
	return `${(count / 1_000_000).toFixed(2)}M`;
}

export function formatSeconds(ms: number): string {
	return ms < 1000 ? `${Math.round(ms)} ms` : `${(ms / 1000).toFixed(1)} s`;
}

/** What the episode does next, or what it is doing. */
export function phaseText(input: StatusInput): Segment {
	const {session} = input;
	if (input.replay) return {text: `REPLAY step ${input.replay.step}/${input.replay.total} · ${input.replay.label}`, tone: 'accent'};
	if (input.running) return {text: `▶ ${input.running}…`, tone: 'accent'};
	if (session.status === 'completed') return {text: `✓ done${session.termination ? ` (${session.termination.reason})` : ''}`, tone: 'ok'};
	if (session.status === 'error') return {text: `✗ ${session.error?.flag ?? 'error'}`, tone: 'error'};
	if (input.awaitingHuman) return {text: `your reply as the assistant (${actionLabel(nextAction(session))})`, tone: 'warn'};
	return {text: `next: ${actionLabel(nextAction(session))}`, tone: 'normal'};
}

/**
 * Where the dialogue is, in the numbering the panes use (USER · t=0 is the opening message): the
 * latest user turn t and the last t the cap allows (maxTurns user turns: t=0 … t=maxTurns-1).
 */
export function turnText(session: Pick<Session, 'turns' | 'config'>): string {
	const last = session.turns.filter((turn) => turn.role === 'user' && !turn.closing).at(-1);
	return `turn ${last ? `t=${last.t}` : '–'} (max t=${session.config.maxTurns - 1})`;
}

/**
 * "⏳ simulator 12.4 s · attempt 2/5 · timeout 60 s": the oldest call in flight, with a live timer
 * (why earlier attempts failed is in the retry segment and the inspector).
 */
export function callInFlightText(call: CallInFlight, nowMs: number): string {
	const elapsed = formatSeconds(Math.max(0, nowMs - call.startedAt));
	const attempt = `attempt ${call.attempt}${call.maxAttempts ? `/${call.maxAttempts}` : ''}`;
	return [`⏳ ${call.role} ${call.stage === call.role ? '' : `${call.stage} `}${elapsed}`, attempt, ...(call.timeoutMs ? [`timeout ${formatSeconds(call.timeoutMs)}`] : [])].join(' · ');
}

/** "t=3/4": the turn and the last t the cap allows, for narrow status lines. */
export function turnShort(session: Pick<Session, 'turns' | 'config'>): string {
	const last = session.turns.filter((turn) => turn.role === 'user' && !turn.closing).at(-1);
	return `t=${last ? last.t : '–'}/${session.config.maxTurns - 1}`;
}

/** "⏳ simulator 28.0 s 1/5 ≤120.0 s": the call in flight with its attempt and timeout, compact. */
export function callInFlightShort(call: CallInFlight, nowMs: number): string {
	return `⏳ ${call.role} ${formatSeconds(Math.max(0, nowMs - call.startedAt))} ${call.attempt}${call.maxAttempts ? `/${call.maxAttempts}` : ''}${call.timeoutMs ? ` ≤${formatSeconds(call.timeoutMs)}` : ''}`;
}

export function shardText(session: Session): string {
	const count = session.shards?.length;
	if (!count) return 'shard –';
	return session.shardIndex >= count ? `shard ${count}/${count} ✓` : `shard ${session.shardIndex + 1}/${count}`;
}

export function usageText(session: Session): string {
	const {usage, cost} = sessionUsage(session.calls);
	const money = usage.billableTokens.total === 0 ? '$0' : cost.unpriced > 0 && cost.usd === 0 ? '$? (unpriced model)' : `~$${cost.usd.toFixed(4)}${cost.unpriced > 0 ? '+' : ''}`;
	// Tokens counted locally (the server sent no usage) are an estimate, and so is their cost.
	const estimated = session.calls.some((call) => call.tokensEstimated);
	return estimated ? `${usage.calls} calls · ~${formatTokens(usage.tokens.total)} tok (est.) · ${money}${money.startsWith('~') || money === '$0' ? '' : ' (est.)'}` : `${usage.calls} calls · ${formatTokens(usage.tokens.total)} tok · ${money}`;
}

/** "13.7k tok $0": tokens and cost only. */
export function usageShort(session: Session): string {
	return usageText(session).replace(/^\d+ calls · /, '');
}

/** The models once, when every role runs the same one ("all mock"), else per role without labels' padding. */
export function modelsShort(session: Session): string {
	const m = session.config.models;
	const distinct = new Set(Object.values(m));
	return distinct.size === 1 ? `all roles ${[...distinct][0]}` : `g ${m.generator} v ${m.validator} s ${m.simulator} a ${m.assistant} j ${m.judge}`;
}

export function modelsText(session: Session): string {
	const m = session.config.models;
	return `gen ${m.generator} · val ${m.validator} · sim ${m.simulator} · asst ${m.assistant} · judge ${m.judge}`;
}

/**
 * The two status lines of the episode screen: phase, turn t/T, shard i/k, usage and cost, latency
 * and retry state; then models per role, auto-run and the latest problem.
 */
export function statusLines(input: StatusInput): [Segment[], Segment[]] {
	const {session} = input;
	const latency = input.lastLatencyMs ?? session.calls.at(-1)?.latencyMs ?? null;
	const inFlight = input.calls?.[0];
	// The step number of the calls it makes (the inspector's s4 is step 4, shown while it runs).
	const stepNumber = input.running ? `step ${session.steps.length + 1} ▶` : `step ${session.steps.length}`;
	// Most telling first: a line cut at a narrow terminal's edge loses the cost, not the call in flight.
	// Narrow terminals shorten, then drop, from the highest `drop` down (fitSegments): the last call's latency, the step,
	// the shard, tokens and cost, the turn, a retry; the phase and the call in flight stay.
	const first: Segment[] = [
		phaseText(input),
		...(input.replay ? [] : [{text: stepNumber, tone: 'dim' as const, short: `s${session.steps.length + (input.running ? 1 : 0)}`, drop: 5}]),
		{text: turnText(session), tone: 'normal', short: turnShort(session), drop: 2},
		{text: shardText(session), tone: 'private', short: shardText(session).replace('shard ', '§'), drop: 4},
		inFlight ? {text: callInFlightText(inFlight, input.nowMs ?? Date.now()), tone: 'warn', short: callInFlightShort(inFlight, input.nowMs ?? Date.now())} : {text: `last call ${latency === null ? '–' : formatSeconds(latency)}`, tone: 'dim', drop: 6},
		...(input.retry ? [{text: input.retry, tone: 'warn' as const, drop: 1}] : []),
		{text: usageText(session), tone: 'dim', short: usageShort(session), drop: 3},
	];
	const second: Segment[] = [{text: modelsText(session), tone: 'dim', short: modelsShort(session), drop: 3}];
	if (!input.replay) second.push({text: input.auto ? 'AUTO on (a stops)' : 'auto off', tone: input.auto ? 'warn' : 'dim', short: input.auto ? 'AUTO' : 'auto off', drop: input.auto ? 1 : 4});
	if (input.problem) second.push({text: input.problem, tone: 'error'});
	else if (session.error) second.push({text: `${session.error.flag}: ${session.error.message}`, tone: 'error'});
	if (input.note) second.push({text: input.note, tone: 'accent', drop: 2});
	return [first, second];
}

/** How much of the session ran on the offline mock (report/setups.ts decides it for every front end). */
export const mockRolesOf = (session: Session): MockKind => sessionMockKind(session);
