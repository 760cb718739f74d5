import path from 'node:path';
import {Box, Text, useInput} from 'ink';
import {useMemo, useState} from 'react';
import type {SessionSummary} from '../../store/sessionStore.js';
import {ListView} from '../components/ListView.js';
import {clamp} from '../text/scroll.js';
import {fit} from '../text/width.js';
import type {TuiServices} from '../services.js';
import {nextSort, resumable, SESSION_COLUMNS, type SessionSort, sessionRow, visibleSessions} from '../view/sessionsList.js';

type Props = {
	readonly services: TuiServices;
	readonly width: number;
	readonly height: number;
	/** Set while a session is being opened or resumed. */
	readonly message: string | null;
	readonly onOpen: (summary: SessionSummary) => void;
	readonly onResume: (summary: SessionSummary) => void;
	readonly onBack: () => void;
	readonly onQuit: () => void;
};

const row = (cells: readonly string[]) => cells.map((cell, index) => fit(cell, SESSION_COLUMNS[index]!.width)).join(' ');

/** Saved sessions: filter (/), sort (s), open to replay (Enter), resume an unfinished one live (r). */
export function SessionsScreen({services, width, height, message, onOpen, onResume, onBack, onQuit}: Props) {
	const listing = useMemo(() => services.listSessions(), [services]);
	const [query, setQuery] = useState('');
	const [filtering, setFiltering] = useState(false);
	const [sort, setSort] = useState<SessionSort>('newest');
	const [selected, setSelected] = useState(0);
	const [note, setNote] = useState<string | null>(null);
	const rows = useMemo(() => visibleSessions(listing.sessions, query, sort), [listing, query, sort]);
	const current = clamp(selected, 0, Math.max(0, rows.length - 1));
	const problems = listing.problems;
	const listHeight = Math.max(3, height - 6 - Math.min(2, problems.length));
	useInput((input, key) => {
		if (filtering) {
			if (key.return || key.escape) setFiltering(false);
			else if (key.backspace || key.delete) setQuery(query.slice(0, -1));
			else if (key.upArrow) setSelected(Math.max(0, current - 1));
			else if (key.downArrow) setSelected(Math.min(rows.length - 1, current + 1));
			else if (input && !key.ctrl && !key.meta && input >= ' ') {
				setQuery(query + input);
				setSelected(0);
			}
			return;
		}
		const summary = rows[current];
		if (key.escape || input === 'b') {
			if (query) setQuery('');
			else onBack();
		} else if (input === 'q') onQuit();
		else if (input === '/') setFiltering(true);
		else if (input === 's') setSort(nextSort(sort));
		else if (key.upArrow || input === 'k') setSelected(Math.max(0, current - 1));
		else if (key.downArrow || input === 'j') setSelected(Math.min(rows.length - 1, current + 1));
		else if (key.pageUp) setSelected(Math.max(0, current - listHeight));
		else if (key.pageDown) setSelected(Math.min(rows.length - 1, current + listHeight));
		else if (key.return && summary) onOpen(summary);
		else if (input === 'r' && summary) {
			if (resumable(summary)) onResume(summary);
			else setNote(`${summary.id} is ${summary.status}: only running or awaiting_assistant sessions resume. Enter replays it.`);
		}
	});
	return (
		<Box flexDirection="column" width={width} height={height}>
			<Text bold color="cyan" wrap="truncate-end">
				Saved sessions · {rows.length}/{listing.sessions.length} · sort: {sort} · {services.sessionsDir}
			</Text>
			<Text wrap="truncate-end">
				filter: <Text color="yellow">{query}</Text>
				{filtering ? <Text inverse> </Text> : <Text dimColor>{query ? '' : '(press / to type a filter)'}</Text>}
			</Text>
			{problems.slice(0, 2).map((problem, index) => (
				<Text key={index} color="yellow" wrap="truncate-end">
					{`⚠ skipped ${path.basename(problem.file)}: ${problem.message}`}
					{index === 1 && problems.length > 2 ? ` (and ${problems.length - 2} more)` : ''}
				</Text>
			))}
			<Text bold wrap="truncate-end">{`  ${row(SESSION_COLUMNS.map((column) => column.header))}`}</Text>
			<ListView rows={rows.map((summary) => row(sessionRow(summary)))} selected={current} height={listHeight} width={width} empty={listing.sessions.length === 0 ? `No sessions in ${services.sessionsDir} yet: start a new episode from the home screen.` : '(no session matches the filter)'} />
			<Text color={message || note ? 'yellow' : undefined} dimColor={!message && !note} wrap="truncate-end">
				{message ?? note ?? (rows[current] ? `${rows[current]!.id}${resumable(rows[current]!) ? ' · unfinished: r resumes it live' : ''}` : ' ')}
			</Text>
			<Text dimColor wrap="truncate-end">
				↑↓ select · Enter replay · r resume (unfinished) · / filter · s sort · Esc back · q quit
			</Text>
		</Box>
	);
}
