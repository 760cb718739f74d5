import type {CallRecord, Session} from '../../domain/session.js';
import type {Notice} from '../episode/liveState.js';
import {type Block, BlockCache, type Line, line} from './lines.js';
import {formatSeconds, formatTokens} from './status.js';

/** One row of the inspector's call list. */
export function callRow(call: CallRecord, index: number): string {
	const status = call.ok ? 'ok' : `ERROR ${call.error ?? ''}`;
	return [
		`#${String(index + 1).padStart(2)}`,
		`s${call.step}`.padEnd(4),
		call.role.padEnd(9),
		call.stage.padEnd(18),
		call.model.padEnd(14),
		call.prompt.padEnd(18),
		`×${call.attempts}${call.validationRetries > 0 ? `+${call.validationRetries}v` : ''}`.padEnd(6),
		`${formatTokens(call.tokens.total)} tok`.padEnd(10),
		formatSeconds(call.latencyMs).padEnd(8),
		call.cached ? 'cached ' : '',
		status,
	].join(' ');
}

/** The detail of one call: its record, every retry, the raw request messages and the raw reply. */
export function callDetailBlocks(call: CallRecord, cache: BlockCache): Block[] {
	return [
		cache.get(`${call.id}-head`, [call], () => {
			const lines: Line[] = [
				line(`${call.role} · ${call.stage} · ${call.provider}:${call.model}`, 'heading', {bold: true}),
				line(`call ${call.id} · step ${call.step} · prompt ${call.prompt} (${call.promptHash}) · format ${call.responseFormat}`, 'dim', {indent: 2, hang: 2}),
				line(`attempts ${call.attempts} · validation re-asks ${call.validationRetries} · tokens ${call.tokens.prompt} in / ${call.tokens.completion} out · latency ${formatSeconds(call.latencyMs)}${call.cached ? ' · from cache' : ''} · started ${call.startedAt}`, 'normal', {indent: 2, hang: 2}),
			];
			for (const retry of call.retries) lines.push(line(`retry after attempt ${retry.attempt}: ${retry.reason} (waited ${formatSeconds(retry.delayMs)})`, 'warn', {indent: 2, hang: 2}));
			if (!call.ok) lines.push(line(`error: ${call.error ?? 'unknown'}`, 'error', {indent: 2, hang: 2}));
			lines.push(line(''));
			return lines;
		}),
		...call.request.map((message, index) =>
			cache.get(`${call.id}-msg-${index}`, [message], () => [line(`── request · ${message.role} ──`, message.role === 'system' ? 'private' : 'user', {bold: true}), line(message.content), line('')]),
		),
		cache.get(`${call.id}-reply`, [call.response], () => [line('── raw reply ──', 'assistant', {bold: true}), line(call.response ?? '(no reply)', call.response ? 'normal' : 'dim')]),
	];
}

/** The notices log (errors, retries, warnings) as the inspector's last entry. */
export function noticeBlocks(notices: readonly Notice[], session: Pick<Session, 'error'>, cache: BlockCache): Block[] {
	return [
		cache.get('notices', [notices, session.error], () => [
			line(`Errors and notices (${notices.length})`, 'heading', {bold: true}),
			...(session.error ? [line(`${session.error.flag} at step ${session.error.step}: ${session.error.message}`, 'error', {indent: 2, hang: 2})] : []),
			...(notices.length === 0 ? [line('(none)', 'dim', {indent: 2})] : notices.map((notice) => line(`${notice.at.slice(11, 19)} ${notice.level.toUpperCase()} ${notice.text}`, notice.level === 'error' ? 'error' : notice.level === 'warn' ? 'warn' : 'normal', {indent: 2, hang: 2}))),
		]),
	];
}
