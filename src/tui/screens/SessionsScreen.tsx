import path from 'node:path';
import {Box, type Key, Text} from 'ink';
import {useCallback, useMemo} from 'react';
import type {SessionSummary} from '../../domain/sessionSummary.js';
import {ListView} from '../components/ListView.js';
import {clamp} from '../text/scroll.js';
import {fit} from '../text/width.js';
import type {TuiServices} from '../services.js';
import {useSyncReducer} from '../hooks/useSyncReducer.js';
import {initialSessionsScreen, resumable, SESSION_COLUMNS, type SessionsScreenState, sessionRow, sessionsKey, visibleSessions} from '../view/sessionsList.js';
import {useKeys} from '../hooks/useKeys.js';

type Props = {
	readonly services: TuiServices;
	readonly width: number;
	readonly height: number;
	/** Set while a session is being opened or resumed. */
	readonly message: string | null;
	readonly onOpen: (summary: SessionSummary) => void;
	readonly onResume: (summary: SessionSummary) => void;
	/** Two sessions of one seed, side by side. */
	readonly onCompare: (pair: readonly [SessionSummary, SessionSummary]) => void;
	readonly onBack: () => void;
	readonly onQuit: () => void;
};

const row = (cells: readonly string[]) => cells.map((cell, index) => fit(cell, SESSION_COLUMNS[index]!.width)).join(' ');

/** Saved sessions: filter (/), sort (s), open to replay (Enter), resume an unfinished one live (r). */
export function SessionsScreen({services, width, height, message, onOpen, onResume, onCompare, onBack, onQuit}: Props) {
	const listing = useMemo(() => services.listSessions(), [services]);
	const problems = listing.problems;
	const listHeight = Math.max(3, height - 6 - Math.min(2, problems.length));
	const reducer = useCallback((state: SessionsScreenState, press: {input: string; key: Key}) => sessionsKey(listing.sessions, state, press.input, press.key, listHeight), [listing, listHeight]);
	const [state, apply] = useSyncReducer(reducer, initialSessionsScreen);
	const rows = useMemo(() => visibleSessions(listing.sessions, state.query, state.sort), [listing, state.query, state.sort]);
	const current = clamp(state.selected, 0, Math.max(0, rows.length - 1));
	useKeys((input, key) => {
		const next = apply({input, key});
		const chosen = visibleSessions(listing.sessions, next.query, next.sort)[next.selected];
		if (next.command === 'back') onBack();
		else if (next.command === 'quit') onQuit();
		else if (next.command === 'open' && chosen) onOpen(chosen);
		else if (next.command === 'resume' && chosen) onResume(chosen);
		else if (next.command === 'compare') {
			const [a, b] = next.marked.map((id) => listing.sessions.find((row) => row.id === id)!);
			onCompare([a!, b!]);
		}
	});
	const selected = rows[current];
	return (
		<Box flexDirection="column" width={width} height={height}>
			<Text bold color="cyan" wrap="truncate-end">
				Saved sessions · {rows.length}/{listing.sessions.length} · sort: {state.sort} · {services.sessionsDir}
			</Text>
			<Text wrap="truncate-end">
				filter: <Text color="yellow">{state.query}</Text>
				{state.filtering ? <Text inverse> </Text> : <Text dimColor>{state.query ? '' : '(press / to type a filter)'}</Text>}
			</Text>
			{problems.slice(0, 2).map((problem, index) => (
				<Text key={index} color="yellow" wrap="truncate-end">
					{`⚠ skipped ${path.basename(problem.file)}: ${problem.message}`}
					{index === 1 && problems.length > 2 ? ` (and ${problems.length - 2} more)` : ''}
				</Text>
			))}
			<Text bold wrap="truncate-end">{`   ${row(SESSION_COLUMNS.map((column) => column.header))}`}</Text>
			<ListView rows={rows.map((summary) => `${state.marked.includes(summary.id) ? '●' : ' '}${row(sessionRow(summary, {hideScores: state.hideScores}))}`)} selected={current} height={listHeight} width={width} empty={listing.sessions.length === 0 ? `No sessions in ${services.sessionsDir} yet: start a new episode from the home screen.` : '(no session matches the filter)'} />
			<Text color={message || state.note ? 'yellow' : undefined} dimColor={!message && !state.note} wrap="truncate-end">
				{message ?? state.note ?? (selected ? `${selected.id}${resumable(selected) ? ' · unfinished: r resumes it live' : selected.status === 'error' ? ` · ${selected.errorFlag ?? 'error'}: r retries the failed step live (headless: cultureconverse run --resume ${selected.id} --retry)` : ''}` : ' ')}
			</Text>
			<Text dimColor wrap="truncate-end">
				↑↓ select · Enter replay · r resume / retry · / filter (model:NAME 3h&gt;=4 clean:no) · s sort · h hide scores · m mark, d compare two · Esc back · q quit
			</Text>
		</Box>
	);
}
