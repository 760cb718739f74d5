import {Box, Text} from 'ink';
import {type ReactNode, useEffect, useMemo, useState} from 'react';
import type {PublicView} from '../../episode/views.js';
import type {MockKind} from '../../report/setups.js';
import {useKeys} from '../hooks/useKeys.js';
import {useTerminalSize} from '../hooks/useTerminalSize.js';
import {effectiveOffset, FOLLOW, pageSize, scrollBy, type ScrollState, scrollToEnd, TOP} from '../text/scroll.js';
import {truncate} from '../text/width.js';
import {CONFIRM_FOOTER, type EpisodeAction, HELP_FOOTER} from '../view/episodeKeys.js';
import {type Binding, footerLine, lookup} from '../view/keyTable.js';
import {PANE_CHROME_ROWS, tooSmall} from '../view/layout.js';
import {BlockCache, layoutBlocks} from '../../present/panes/lines.js';
import {publicBlocks} from '../../present/panes/publicPane.js';
import type {Segment} from '../view/status.js';
import {ConfirmBox, confirmRows} from './ConfirmBox.js';
import {HelpOverlay} from './HelpOverlay.js';
import {MockBanner} from './MockBanner.js';
import {Pane} from './Pane.js';
import {StatusBar} from './StatusBar.js';
import {TitleBar} from './TitleBar.js';
import {TooSmall} from './TooSmall.js';

/** A yes/no question the screen asks (showing the hidden panes): it takes every key until answered. */
export type Question = {readonly text: string; readonly strict: boolean; readonly onAnswer: (yes: boolean) => void};

type Props = {
	/**
	 * The chat as the assistant sees it: the only episode state this screen is given. The type is
	 * branded (episode/views.ts): hidden state cannot be passed here by mistake, it would not compile.
	 */
	readonly view: PublicView;
	readonly awaitingHuman: boolean;
	/** Status segments built by view/blindStatus.ts from public facts only. */
	readonly status: readonly (readonly Segment[])[];
	/** How much ran on the offline mock (null: nothing), for the banner. */
	readonly mock: MockKind | null;
	readonly busy: boolean;
	/** The reply box; null once the dialogue is over (no reply can be written any more). */
	readonly box: {readonly rows: number; readonly focused: boolean; readonly element: ReactNode} | null;
	/** The key table of the seat's state (view/episodeKeys.ts blindSeatKeys). */
	readonly keys: readonly Binding<EpisodeAction>[];
	readonly onAction: (action: EpisodeAction) => void;
	/** Words before the footer's keys (typing into the reply). */
	readonly footerLead: string;
	readonly question: Question | null;
	readonly onQuit: () => void;
	readonly scrollRequest: {readonly serial: number; readonly pages: number} | null;
};

/**
 * The screen of a person playing the assistant blind (the default): the Public pane, a status line
 * and the reply box, as tau2's `play` shows the agent only what the agent sees. The hidden panes
 * open only on request (v, asked first), which the episode records.
 */
export function BlindSeat({view, awaitingHuman, status, mock, busy, box, keys, onAction, footerLead, question, onQuit, scrollRequest}: Props) {
	const {columns, rows} = useTerminalSize();
	const [scroll, setScroll] = useState<ScrollState>(FOLLOW);
	const [overlay, setOverlay] = useState<'none' | 'help' | 'quit'>('none');
	const cache = useMemo(() => new BlockCache(), []);
	const quitQuestion = busy ? 'A step is in flight. Quit anyway? The session stays resumable.' : 'The step has ended. Quit?';
	const asked = question ? confirmRows(question.text, columns, question.strict) : overlay === 'quit' ? confirmRows(quitQuestion, columns) : 0;
	const chrome = 1 + (mock ? 1 : 0) + status.length + (box?.rows ?? 0) + 1 + asked;
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
	const act = (action: EpisodeAction) => {
		if (action === 'help') setOverlay('help');
		else if (action === 'quit') busy ? setOverlay('quit') : onQuit();
		else if (action === 'pageUp') page(-1);
		else if (action === 'pageDown') page(1);
		else if (action === 'lineUp') setScroll((state) => scrollBy(state, -1, layout.total, bodyHeight, {followAtEnd: true}));
		else if (action === 'lineDown') setScroll((state) => scrollBy(state, 1, layout.total, bodyHeight, {followAtEnd: true}));
		else if (action === 'top') setScroll(TOP);
		else if (action === 'bottom') setScroll(scrollToEnd(layout.total, bodyHeight, {followAtEnd: true}));
		else onAction(action);
	};
	useKeys(
		(input, key) => {
			const binding = lookup(keys, input, key);
			if (binding) act(binding.action);
		},
		{isActive: overlay === 'none' && !box?.focused && !question},
	);
	if (tooSmall(columns, rows)) return <TooSmall columns={columns} rows={rows} onQuit={onQuit} />;
	const footer = question || overlay === 'quit' ? CONFIRM_FOOTER : overlay === 'help' ? HELP_FOOTER : footerLine(box?.focused ? [] : keys, columns, footerLead);
	return (
		<Box flexDirection="column" width={columns} height={Math.max(1, rows - 1)}>
			<TitleBar text="cultureconverse · you are the assistant (blind: the chat only)" mode="live" width={columns} />
			{mock ? <MockBanner mock={mock} width={columns} /> : null}
			<StatusBar lines={status} width={columns} />
			{overlay === 'help' ? (
				<HelpOverlay width={columns} height={paneHeight} active onClose={() => setOverlay('none')} />
			) : (
				<Pane title="Public · the chat" focused width={columns} height={paneHeight} layout={layout} offset={offset} color="green" />
			)}
			{box?.element ?? null}
			{question ? <ConfirmBox question={question.text} strict={question.strict} active onAnswer={question.onAnswer} /> : null}
			{!question && overlay === 'quit' ? <ConfirmBox question={quitQuestion} active onAnswer={(yes) => (yes ? onQuit() : setOverlay('none'))} /> : null}
			<Text wrap="truncate-end" dimColor>
				{truncate(footer, columns)}
			</Text>
		</Box>
	);
}
