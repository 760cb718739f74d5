import {Box, type Key, Text} from 'ink';
import {type ReactNode, useEffect, useMemo, useState} from 'react';
import type {PublicView} from '../../episode/views.js';
import {useKeys} from '../hooks/useKeys.js';
import {useTerminalSize} from '../hooks/useTerminalSize.js';
import {effectiveOffset, FOLLOW, pageSize, scrollBy, type ScrollState, scrollToEnd, TOP} from '../text/scroll.js';
import {PANE_CHROME_ROWS, tooSmall} from '../view/layout.js';
import {BlockCache, layoutBlocks} from '../view/lines.js';
import {publicBlocks} from '../view/publicPane.js';
import type {Segment} from '../view/status.js';
import {HelpOverlay} from './HelpOverlay.js';
import {MockBanner} from './MockBanner.js';
import {Pane} from './Pane.js';
import {StatusBar} from './StatusBar.js';
import {TitleBar} from './TitleBar.js';
import {TooSmall} from './TooSmall.js';
import {ConfirmBox} from './ConfirmBox.js';

type Props = {
	/**
	 * The chat as the assistant sees it: the only episode state this screen is given. The type is
	 * branded (episode/views.ts): hidden state cannot be passed here by mistake, it would not compile.
	 */
	readonly view: PublicView;
	readonly awaitingHuman: boolean;
	/** Status segments built by view/blindStatus.ts from public facts only. */
	readonly status: readonly (readonly Segment[])[];
	/** The roles on the offline mock (null: none), for the banner. */
	readonly mock: {readonly roles: readonly string[]; readonly all: boolean} | null;
	readonly busy: boolean;
	readonly box: {readonly rows: number; readonly focused: boolean; readonly element: ReactNode};
	readonly onKey: (input: string, key: Key) => boolean;
	readonly footer: string;
	readonly onQuit: () => void;
	readonly scrollRequest: {readonly serial: number; readonly pages: number} | null;
};

/**
 * The screen of a person playing the assistant blind (the default): the Public pane, a status line
 * and the reply box, as tau2's `play` shows the agent only what the agent sees. The hidden panes
 * open only on request (v), which the episode records.
 */
export function BlindSeat({view, awaitingHuman, status, mock, busy, box, onKey, footer, onQuit, scrollRequest}: Props) {
	const {columns, rows} = useTerminalSize();
	const [scroll, setScroll] = useState<ScrollState>(FOLLOW);
	const [overlay, setOverlay] = useState<'none' | 'help' | 'quit'>('none');
	const cache = useMemo(() => new BlockCache(), []);
	const chrome = 1 + (mock ? 1 : 0) + status.length + box.rows + 1 + (overlay === 'quit' ? 3 : 0);
	const paneHeight = Math.max(PANE_CHROME_ROWS + 1, rows - 1 - chrome);
	const bodyHeight = paneHeight - PANE_CHROME_ROWS;
	const blocks = useMemo(() => publicBlocks({view, streaming: null, awaitingHuman, emptyHint: 'The conversation is being set up; the user writes first.'}, cache), [view, awaitingHuman, cache]);
	const layout = useMemo(() => layoutBlocks(blocks, Math.max(1, columns - 4)), [blocks, columns]);
	const offset = effectiveOffset(scroll, layout.total, bodyHeight);
	const page = (pages: number) => setScroll((state) => scrollBy(state, pages * pageSize(bodyHeight), layout.total, bodyHeight, {followAtEnd: true}));
	const serial = scrollRequest?.serial;
	useEffect(() => {
		if (scrollRequest) page(scrollRequest.pages);
		// eslint-disable-next-line react-hooks/exhaustive-deps
	}, [serial]);
	useKeys(
		(input, key) => {
			if (onKey(input, key)) return;
			if (input === '?') setOverlay('help');
			else if (input === 'q') busy ? setOverlay('quit') : onQuit();
			else if (key.pageUp) page(-1);
			else if (key.pageDown) page(1);
			else if (key.upArrow || input === 'k') setScroll((state) => scrollBy(state, -1, layout.total, bodyHeight, {followAtEnd: true}));
			else if (key.downArrow || input === 'j') setScroll((state) => scrollBy(state, 1, layout.total, bodyHeight, {followAtEnd: true}));
			else if (input === 'g' || key.home) setScroll(TOP);
			else if (input === 'G' || key.end) setScroll(scrollToEnd(layout.total, bodyHeight, {followAtEnd: true}));
		},
		{isActive: overlay === 'none' && !box.focused},
	);
	if (tooSmall(columns, rows)) return <TooSmall columns={columns} rows={rows} onQuit={onQuit} />;
	return (
		<Box flexDirection="column" width={columns} height={Math.max(1, rows - 1)}>
			<TitleBar text="cultureconverse · you are the assistant (blind: the chat only)" mode="live" width={columns} />
			{mock ? <MockBanner {...mock} /> : null}
			<StatusBar lines={status} />
			{overlay === 'help' ? (
				<HelpOverlay width={columns} height={paneHeight} active onClose={() => setOverlay('none')} />
			) : (
				<Pane title="Public · the chat" focused width={columns} height={paneHeight} layout={layout} offset={offset} color="green" />
			)}
			{box.element}
			{overlay === 'quit' ? <ConfirmBox question={busy ? 'A step is in flight. Quit anyway? The session stays resumable.' : 'The step has ended. Quit?'} active onAnswer={(yes) => (yes ? onQuit() : setOverlay('none'))} /> : null}
			<Text wrap="truncate-end" dimColor>
				{footer}
			</Text>
		</Box>
	);
}
