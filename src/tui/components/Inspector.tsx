import {Box, Text} from 'ink';
import {useMemo, useState} from 'react';
import type {Session} from '../../domain/session.js';
import type {CallInFlight, Notice} from '../episode/liveState.js';
import {clamp, effectiveOffset, pageSize, pageStart, scrollBy, type ScrollState, scrollToEnd, TOP} from '../text/scroll.js';
import {truncate} from '../text/width.js';
import {callDetailBlocks, callInFlightBlocks, callInFlightRow, callRow, noticeBlocks} from '../view/inspector.js';
import {PANE_CHROME_ROWS} from '../view/layout.js';
import {BlockCache, layoutBlocks} from '../../present/panes/lines.js';
import {Pane} from './Pane.js';
import {useKeys} from '../hooks/useKeys.js';

type Props = {
	readonly session: Session;
	readonly notices: readonly Notice[];
	/** Calls in flight: listed after the finished ones, with their timers and prompts. */
	readonly calls: readonly CallInFlight[];
	readonly nowMs: number;
	readonly width: number;
	readonly height: number;
	readonly active: boolean;
	readonly onClose: () => void;
};

/**
 * Every model call of the session (role, stage, model, prompt id, attempts, tokens, latency, error),
 * then the calls in flight, and for the selected one its raw request messages and raw reply (and
 * its reasoning, r to expand); the last entry is the log of errors and notices.
 */
export function Inspector({session, notices, calls: live, nowMs, width, height, active, onClose}: Props) {
	const calls = session.calls;
	const count = calls.length + live.length + 1;
	const [selected, setSelected] = useState(() => Math.max(0, calls.length + live.length - 1));
	const [detail, setDetail] = useState<ScrollState>(TOP);
	const [showReasoning, setShowReasoning] = useState(false);
	const cache = useMemo(() => new BlockCache(), []);
	const current = clamp(selected, 0, count - 1);
	const listRows = Math.max(2, Math.min(count, Math.floor((height - 1) / 3)));
	const detailHeight = Math.max(PANE_CHROME_ROWS + 1, height - 1 - listRows);
	const bodyHeight = detailHeight - PANE_CHROME_ROWS;
	const call = calls[current];
	const flying = call ? undefined : live[current - calls.length];
	const blocks = call ? callDetailBlocks(call, cache, {showReasoning}) : flying ? callInFlightBlocks(flying, nowMs, cache) : noticeBlocks(notices, session, cache);
	const layout = layoutBlocks(blocks, Math.max(1, width - 4));
	const offset = effectiveOffset(detail, layout.total, bodyHeight);
	const firstRow = pageStart(current, listRows, count);

	// Functional updates: several keys can arrive before the next render.
	const select = (to: (index: number) => number) => {
		setSelected((index) => clamp(to(clamp(index, 0, count - 1)), 0, count - 1));
		setDetail(TOP);
	};
	const scroll = (lines: number) => setDetail((state) => scrollBy(state, lines, layout.total, bodyHeight));
	useKeys(
		(input, key) => {
			if (key.escape || input === 'i' || input === 'q') onClose();
			else if (key.upArrow) select((index) => index - 1);
			else if (key.downArrow) select((index) => index + 1);
			else if (key.home) select(() => 0);
			else if (key.end) select(() => count - 1);
			else if (key.pageDown || input === ' ') scroll(pageSize(bodyHeight));
			else if (key.pageUp) scroll(-pageSize(bodyHeight));
			else if (input === 'G') setDetail(scrollToEnd(layout.total, bodyHeight));
			else if (input === 'g') setDetail(TOP);
			else if (input === 'j') scroll(1);
			else if (input === 'k') scroll(-1);
			else if (input === 'r') setShowReasoning((on) => !on);
		},
		{isActive: active},
	);

	const rows = [];
	for (let index = firstRow; index < Math.min(count, firstRow + listRows); index++) {
		const entry = calls[index];
		const inFlight = entry ? undefined : live[index - calls.length];
		const text = entry ? callRow(entry, index) : inFlight ? callInFlightRow(inFlight, index, nowMs) : '    Errors and notices';
		rows.push(
			<Text key={index} wrap="truncate-end" inverse={index === current} color={entry && !entry.ok ? 'red' : inFlight ? 'yellow' : entry ? undefined : 'yellow'}>
				{`${index === current ? '▶' : ' '}${truncate(text, Math.max(1, width - 2))}`}
			</Text>,
		);
	}
	const title = call ? `Call #${current + 1}: raw prompt and reply` : flying ? `Call #${current + 1}: in flight` : 'Errors and notices';
	return (
		<Box flexDirection="column" width={width} height={height}>
			<Text wrap="truncate-end" bold color="magenta">
				{`Inspector · ${calls.length} call(s)${live.length > 0 ? ` + ${live.length} in flight` : ''} · ↑↓ select · PgUp/PgDn, j/k, g/G scroll · r reasoning · Esc close`}
			</Text>
			<Box flexDirection="column" height={listRows}>
				{rows}
			</Box>
			<Pane title={title} focused width={width} height={detailHeight} layout={layout} offset={offset} color="magenta" />
		</Box>
	);
}
