import type {CallRecord, Session} from '../../domain/session.js';
import {attemptStatuses, type CallInFlight, type Notice} from '../episode/liveState.js';
import {type Block, BlockCache, type Line, line} from '../../present/panes/lines.js';
import {formatSeconds, formatTokens} from './status.js';

/** One row of the inspector's call list. */
export function callRow(call: CallRecord, index: number): string {
	const status = call.ok ? 'ok' : `ERROR ${attemptStatuses(call)}`;
	return [
		`#${String(index + 1).padStart(2)}`,
		`s${call.step}`.padEnd(4),
		call.role.padEnd(9),
		call.stage.padEnd(18),
		call.model.padEnd(14),
		call.prompt.padEnd(18),
		`×${call.attempts}${call.validationRetries > 0 ? `+${call.validationRetries}v` : ''}`.padEnd(6),
		`${call.tokensEstimated ? '~' : ''}${formatTokens(call.tokens.total)} tok`.padEnd(10),
		formatSeconds(call.latencyMs).padEnd(8),
		call.cached ? 'cached ' : '',
		call.reasoning ? 'reasoning ' : '',
		status,
	].join(' ');
}

/** One row for a call still in flight: its timer, attempt and timeout. */
export function callInFlightRow(call: CallInFlight, index: number, nowMs: number): string {
	return [
		`#${String(index + 1).padStart(2)}`,
		`s${call.step ?? '?'}`.padEnd(4),
		call.role.padEnd(9),
		call.stage.padEnd(18),
		call.model.padEnd(14),
		`IN FLIGHT ${formatSeconds(Math.max(0, nowMs - call.startedAt))}`,
		`attempt ${call.attempt}${call.maxAttempts ? `/${call.maxAttempts}` : ''}${call.failures.length ? ` (before: ${call.failures.join(', ')})` : ''}`,
		call.timeoutMs ? `timeout ${formatSeconds(call.timeoutMs)}` : '',
	].join(' ');
}

const requestBlocks = (id: string, request: readonly CallRecord['request'][number][], cache: BlockCache): Block[] =>
	request.map((message, index) => cache.get(`${id}-msg-${index}`, [message], () => [line(`── request · ${message.role} ──`, message.role === 'system' ? 'private' : 'user', {bold: true}), line(message.content), line('')]));

/**
 * The detail of one call: its record, every attempt, the full error, the reasoning (collapsed unless
 * `showReasoning`), the raw request messages and the raw reply.
 */
export function callDetailBlocks(call: CallRecord, cache: BlockCache, options: {showReasoning?: boolean} = {}): Block[] {
	const reasoning = call.reasoning ?? null;
	const showReasoning = Boolean(options.showReasoning);
	return [
		cache.get(`${call.id}-head`, [call], () => {
			const lines: Line[] = [
				line(`${call.role} · ${call.stage} · ${call.provider}:${call.model}`, 'heading', {bold: true}),
				line(`call ${call.id} · step ${call.step} · prompt ${call.prompt} (${call.promptHash}) · format ${call.responseFormat}`, 'dim', {indent: 2, hang: 2}),
				line(
					`attempts ${call.attempts} (${attemptStatuses(call)}) · validation re-asks ${call.validationRetries} · tokens ${call.tokens.prompt} in / ${call.tokens.completion} out${call.tokensEstimated ? ' (estimated: the server sent no usage)' : ''} · latency ${formatSeconds(call.latencyMs)}${call.cached ? ' · from cache' : ''} · started ${call.startedAt}`,
					'normal',
					{indent: 2, hang: 2},
				),
			];
			for (const retry of call.retries) lines.push(line(`attempt ${retry.attempt}: ${retry.reason} (waited ${formatSeconds(retry.delayMs)} before the next)`, 'warn', {indent: 2, hang: 2}));
			if (!call.ok) lines.push(line(`error (full text): ${call.error ?? 'unknown'}`, 'error', {indent: 2, hang: 2}));
			lines.push(line(''));
			return lines;
		}),
		...(reasoning
			? [
					cache.get(`${call.id}-reasoning`, [reasoning, showReasoning], () =>
						showReasoning
							? [line('── reasoning (removed from the reply; r hides it) ──', 'dim', {bold: true}), line(reasoning, 'dim'), line('')]
							: [line(`── reasoning: ${reasoning.split(/\s+/).filter(Boolean).length} words, hidden · r shows it ──`, 'dim', {bold: true}), line('')],
					),
				]
			: []),
		...requestBlocks(call.id, call.request, cache),
		cache.get(`${call.id}-reply`, [call.response], () => [line('── raw reply ──', 'assistant', {bold: true}), line(call.response ?? '(no reply)', call.response ? 'normal' : 'dim')]),
	];
}

/** The detail of a call in flight: what it is waiting for, and the prompt it sent. */
export function callInFlightBlocks(call: CallInFlight, nowMs: number, cache: BlockCache): Block[] {
	return [
		cache.get(`${call.callId}-live`, [call, Math.floor((nowMs - call.startedAt) / 1000)], () => [
			line(`${call.role} · ${call.stage} · ${call.model} · IN FLIGHT`, 'warn', {bold: true}),
			line(
				`call ${call.callId} · step ${call.step ?? '?'} · running ${formatSeconds(Math.max(0, nowMs - call.startedAt))} · attempt ${call.attempt}${call.maxAttempts ? ` of ${call.maxAttempts}` : ''}${call.timeoutMs ? ` · each attempt times out after ${formatSeconds(call.timeoutMs)}` : ''}`,
				'normal',
				{indent: 2, hang: 2},
			),
			...call.failures.map((failure, index) => line(`attempt ${index + 1}: ${failure}`, 'warn', {indent: 2})),
			line('x (or Esc on the episode screen) interrupts it; the session stays resumable.', 'dim', {indent: 2, hang: 2}),
			line(''),
		]),
		...requestBlocks(call.callId, call.request, cache),
	];
}

/**
 * The log as the inspector's last entry: the session's error, every failed call with its attempts
 * and full error text, every retry, and this run's notices (warnings, interruptions). Built from
 * the session too, so a replay or a resumed session shows what went wrong before.
 */
export function noticeBlocks(notices: readonly Notice[], session: Pick<Session, 'error' | 'calls'>, cache: BlockCache): Block[] {
	return [
		cache.get('notices', [notices, session.error, session.calls], () => {
			const failed = session.calls.filter((call) => !call.ok);
			const retried = session.calls.filter((call) => call.ok && call.retries.length > 0);
			const lines: Line[] = [line(`Errors and notices`, 'heading', {bold: true})];
			if (session.error) lines.push(line(`${session.error.flag} at step ${session.error.step}: ${session.error.message}`, 'error', {indent: 2, hang: 2}));
			for (const call of failed) lines.push(line(`s${call.step} ${call.role} ${call.stage} failed after ${call.attempts} attempt(s) (${attemptStatuses(call)}): ${call.error ?? 'no detail'}`, 'error', {indent: 2, hang: 2}));
			for (const call of retried) lines.push(line(`s${call.step} ${call.role} ${call.stage} succeeded after ${call.attempts} attempts (${attemptStatuses(call)})`, 'warn', {indent: 2, hang: 2}));
			for (const notice of notices) lines.push(line(`${notice.at.slice(11, 19)} ${notice.level.toUpperCase()} ${notice.text}`, notice.level === 'error' ? 'error' : notice.level === 'warn' ? 'warn' : 'normal', {indent: 2, hang: 2}));
			if (lines.length === 1) lines.push(line('(none: no call failed or was retried, and nothing was reported)', 'dim', {indent: 2}));
			return lines;
		}),
	];
}
