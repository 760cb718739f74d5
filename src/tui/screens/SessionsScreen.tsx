import path from 'node:path';
import {Box, type Key, Text} from 'ink';
import {useCallback, useMemo} from 'react';
import type {SessionSummary} from '../../domain/sessionSummary.js';
import {ListView} from '../components/ListView.js';
import {clamp} from '../text/scroll.js';
import {displayWidth, fit, truncate, truncateMiddle} from '../text/width.js';
import type {TuiServices} from '../services.js';
import {useSyncReducer} from '../hooks/useSyncReducer.js';
import {footerLine} from '../view/keyTable.js';
import {ASKING_FOOTER, FILTERING_FOOTER, initialSessionsScreen, resumable, sessionColumns, type SessionsScreenState, sessionRow, sessionsKey, sessionsKeys, visibleSessions} from '../view/sessionsList.js';
import {useKeys} from '../hooks/useKeys.js';

type Props = {
	readonly services: TuiServices;
	readonly width: number;
	readonly height: number;
	/** Set while a session is being opened or resumed. */
	readonly message: string | null;
	/** The list as it was left (filter, sort, selection), when coming back from a replay. */
	readonly initial?: SessionsScreenState;
	/** Replay a session; `reveal`: it is still played blind and the person said yes (it gets marked). */
	readonly onOpen: (summary: SessionSummary, options: {reveal: boolean}, list: SessionsScreenState) => void;
	readonly onResume: (summary: SessionSummary, list: SessionsScreenState) => void;
	/** Two sessions of one seed, side by side. */
	readonly onCompare: (pair: readonly [SessionSummary, SessionSummary], list: SessionsScreenState) => void;
	readonly onBack: () => void;
	readonly onQuit: () => void;
};

/** Saved sessions: filter (/), sort (s), open to replay (Enter), resume an unfinished one live (r). */
export function SessionsScreen({services, width, height, message, initial, onOpen, onResume, onCompare, onBack, onQuit}: Props) {
	const listing = useMemo(() => services.listSessions(), [services]);
	const problems = listing.problems;
	const listHeight = Math.max(3, height - 6 - Math.min(2, problems.length));
	const reducer = useCallback((state: SessionsScreenState, press: {input: string; key: Key}) => sessionsKey(listing.sessions, state, press.input, press.key, listHeight), [listing, listHeight]);
	const [state, apply] = useSyncReducer(reducer, () => initial ?? initialSessionsScreen());
	const rows = useMemo(() => visibleSessions(listing.sessions, state.query, state.sort), [listing, state.query, state.sort]);
	const current = clamp(state.selected, 0, Math.max(0, rows.length - 1));
	useKeys((input, key) => {
		const next = apply({input, key});
		const chosen = visibleSessions(listing.sessions, next.query, next.sort)[clamp(next.selected, 0, Number.MAX_SAFE_INTEGER)];
		if (next.command === 'back') onBack();
		else if (next.command === 'quit') onQuit();
		else if ((next.command === 'open' || next.command === 'open-reveal') && chosen) onOpen(chosen, {reveal: next.command === 'open-reveal'}, next);
		else if (next.command === 'resume' && chosen) onResume(chosen, next);
		else if (next.command === 'compare') {
			const [a, b] = next.marked.map((id) => listing.sessions.find((row) => row.id === id)!);
			onCompare([a!, b!], next);
		}
	});
	const selected = rows[current];
	// Columns fitted to the width (view/sessionsList.ts sessionColumns): DATE stays whole.
	const columns = sessionColumns(width);
	const row = (cells: readonly string[]) => columns.map((column) => fit(column.middle ? truncateMiddle(cells[column.index]!, column.width) : cells[column.index]!, column.width)).join(' ');
	const footer = state.asking ? ASKING_FOOTER : state.filtering ? FILTERING_FOOTER : footerLine(sessionsKeys(state, selected), width);
	const status = message ?? state.note ?? (selected ? `${selected.id}${resumable(selected) ? ' · unfinished: r resumes it live' : selected.status === 'error' ? ` · ${selected.errorFlag ?? 'error'}: r retries the failed step live (headless: npx cultureconverse run --resume ${selected.id} --retry)` : ''}` : ' ');
	return (
		<Box flexDirection="column" width={width} height={height}>
			<Text bold color="cyan">
				{truncate(`Saved sessions · ${rows.length}/${listing.sessions.length} · sort: ${state.sort} · ${services.sessionsDir}`, width)}
			</Text>
			<Text>
				filter: <Text color="yellow">{truncate(state.query, Math.max(1, width - 12))}</Text>
				{state.filtering ? <Text inverse> </Text> : <Text dimColor>{state.query ? '' : truncate('(press / to type a filter)', Math.max(0, width - 9))}</Text>}
			</Text>
			{problems.slice(0, 2).map((problem, index) => (
				<Text key={index} color="yellow">
					{truncate(`⚠ skipped ${path.basename(problem.file)}: ${problem.message}${index === 1 && problems.length > 2 ? ` (and ${problems.length - 2} more)` : ''}`, width)}
				</Text>
			))}
			<Text bold>{truncate(`   ${row(columns.map((column) => column.header))}`, width)}</Text>
			<ListView rows={rows.map((summary) => `${state.marked.includes(summary.id) ? '●' : ' '}${row(sessionRow(summary, {hideScores: state.hideScores}))}`)} selected={current} height={listHeight} width={width} empty={listing.sessions.length === 0 ? `No sessions in ${services.sessionsDir} yet: start a new episode from the home screen.` : '(no session matches the filter)'} />
			<Text color={message || state.note ? 'yellow' : undefined} dimColor={!message && !state.note}>
				{displayWidth(status) > width ? truncate(status, width) : status}
			</Text>
			<Text dimColor>{truncate(footer, width)}</Text>
		</Box>
	);
}
