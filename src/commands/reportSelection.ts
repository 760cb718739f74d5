import type {SessionSummary} from '../domain/sessionSummary.js';
import {reportable} from '../report/aggregate.js';
import {setupDifferences, setupGroups} from '../report/setups.js';
import {UserError} from '../util/errors.js';
import {type LostSession, selectSessions} from './sessions.js';
import type {Flags, IO} from './types.js';

/** The saved sessions a report is about: the filters, then the batch (with its re-judged copies). Never empty. */
export function chooseSessions(flags: Flags, io: IO): SessionSummary[] {
	return chooseWithLost(flags, io).chosen;
}

/** chooseSessions, and the batch's sessions that are missing or unreadable (see LostSession). */
export function chooseWithLost(flags: Flags, io: IO): {chosen: SessionSummary[]; lost: LostSession[]} {
	const {store, chosen, total, lost} = selectSessions(flags, io);
	if (chosen.length === 0) throw new UserError(total === 0 ? `No sessions in ${store.dir}. Run some with \`npx cultureconverse batch\` or \`run\`.` : `No saved session matches the filters.${lost.length > 0 ? ` ${lostLine(lost, flags)}` : ''}`);
	return {chosen, lost};
}

/** One sentence on a batch's lost sessions, for a report's text. */
export function lostLine(lost: readonly LostSession[], flags: Flags): string {
	const shown = lost.slice(0, 5).map((session) => `${session.id} (${session.reason})`).join(', ');
	return `${lost.length} session(s) of batch ${String(flags['batch'])} are missing or unreadable and not counted: ${shown}${lost.length > 5 ? `, and ${lost.length - 5} more (--json lists all)` : ''}. \`npx cultureconverse batch --name ${String(flags['batch'])}\` sets them aside and runs them again.`;
}

export const bootstrapSeed = (flags: Flags) => (typeof flags['seed'] === 'string' ? flags['seed'] : undefined);

/**
 * The sessions a sub-report counts (as for the main table), with its notes on stderr. Sessions of
 * different setups are refused unless --pool-setups: these sub-reports have no setup column.
 */
export function counted(flags: Flags, io: IO, options: {what: string}): SessionSummary[] {
	const {sessions, notes} = reportable(chooseSessions(flags, io), {includeMock: Boolean(flags['includeMock'])});
	for (const note of notes) io.stderr.write(`Note: ${note}\n`);
	refuseMixedSetups(sessions, flags, io, {what: options.what, compared: {assistant: true}});
	return sessions;
}

/** A UserError naming how the setups differ, unless --pool-setups (then a note). */
export function refuseMixedSetups(sessions: readonly SessionSummary[], flags: Flags, io: IO, options: {what: string; compared: {assistant?: boolean; judge?: boolean}}): void {
	const groups = setupGroups(sessions, options.compared);
	if (groups.length < 2) return;
	const differences = setupDifferences(groups).map((d) => `${d.field} (${d.values.join(' / ')})`).join(', ');
	if (flags['poolSetups']) {
		io.stderr.write(`Note: pooling ${groups.length} setups that differ in ${differences}, as asked (--pool-setups).\n`);
		return;
	}
	throw new UserError(`${options.what} would pool ${groups.length} setups that differ in ${differences}. Choose one with --batch or the filters, see them side by side with \`npx cultureconverse report --by setup\`, or pool them anyway with --pool-setups.`);
}
