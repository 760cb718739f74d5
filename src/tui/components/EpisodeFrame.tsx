import {Box, Text} from 'ink';
import {type ReactNode, useEffect, useMemo, useReducer} from 'react';
import type {Session} from '../../domain/session.js';
import {publicView} from '../../episode/views.js';
import type {CallInFlight, Notice} from '../episode/liveState.js';
import {type Extents, initialUi, uiReducer} from '../episode/uiState.js';
import {useTerminalSize} from '../hooks/useTerminalSize.js';
import {effectiveOffset} from '../text/scroll.js';
import {episodeLayout, isNarrow, PANES, type PaneId, tooSmall} from '../view/layout.js';
import {BlockCache, layoutBlocks, type PaneLayout} from '../../present/panes/lines.js';
import {oracleBlocks} from '../../present/panes/oraclePane.js';
import {privateBlocks} from '../../present/panes/privatePane.js';
import {publicBlocks, type Streaming} from '../../present/panes/publicPane.js';
import {type StatusInput, statusLines} from '../view/status.js';
import {ConfirmBox, confirmRows} from './ConfirmBox.js';
import {type Binding, footerLine, lookup} from '../view/keyTable.js';
import {CONFIRM_FOOTER, type EpisodeAction, HELP_FOOTER, INSPECTOR_FOOTER, RATING_FOOTER} from '../view/episodeKeys.js';
import {truncate} from '../text/width.js';
import {HelpOverlay} from './HelpOverlay.js';
import {Inspector} from './Inspector.js';
import {MockBanner} from './MockBanner.js';
import {mockRolesOf} from '../view/status.js';
import {PaneRow} from './PaneRow.js';
import {StatusBar} from './StatusBar.js';
import {TitleBar} from './TitleBar.js';
import {TooSmall} from './TooSmall.js';
import {useKeys} from '../hooks/useKeys.js';

export type FrameProps = {
	/** The session as the panes should show it (live: the engine's; replay: as it was at the cursor). */
	readonly session: Session;
	readonly mode: 'live' | 'replay';
	readonly streaming: Streaming | null;
	readonly status: StatusInput;
	readonly notices: readonly Notice[];
	/** Calls in flight (live), shown first in the inspector. */
	readonly calls?: readonly CallInFlight[];
	readonly busy: boolean;
	/** The engine waits for the person playing the assistant. */
	readonly awaitingHuman?: boolean;
	/** The reply box of a person playing the assistant: while focused it takes every key. */
	readonly box?: {readonly rows: number; readonly focused: boolean; readonly element: ReactNode} | null;
	/** The key table of the screen's state (view/episodeKeys.ts): the footer shows it, the keys act through it. */
	readonly keys: readonly Binding<EpisodeAction>[];
	/** Actions of the table the frame does not handle itself (stepping, replay movement, end-state actions). */
	readonly onAction: (action: EpisodeAction) => void;
	/** Words before the footer's keys (typing into the reply box). */
	readonly footerLead?: string;
	/** The pane focused first (o on an ended blind seat opens on the Oracle's scores). @default 'public' */
	readonly initialFocus?: PaneId;
	readonly onQuit: () => void;
	readonly onBack: (() => void) | null;
	/** A box under the panes that takes the keys while it is open (the rating form). */
	readonly panel?: {readonly rows: number; readonly element: ReactNode} | null;
	/** Scroll requests from outside (PgUp/PgDn typed in the reply box): a counter and the pages to move. */
	readonly scrollRequest?: {readonly serial: number; readonly pages: number} | null;
};

/** The episode screen's frame: title, mock banner, status, the three panes, input box, overlays, keys. */
export function EpisodeFrame(props: FrameProps) {
	const {session, box} = props;
	const {columns, rows} = useTerminalSize();
	const [ui, dispatch] = useReducer(uiReducer, props.initialFocus ?? 'public', (focus: PaneId) => ({...initialUi(), focus}));
	const caches = useMemo(() => ({public: new BlockCache(), private: new BlockCache(), oracle: new BlockCache()}), []);
	const confirming = ui.overlay === 'quit' || ui.overlay === 'back';
	const question =
		ui.overlay === 'back'
			? props.busy
				? 'A step is in flight. Leave the episode anyway? The call in flight is abandoned; the session stays resumable.'
				: 'The step has ended. Leave the episode?'
			: props.busy
				? 'A step is in flight. Quit anyway? The call in flight is abandoned; the session stays resumable.'
				: 'The step has ended. Quit?';
	const chromeRows = 1 + (session.config.mock ? 1 : 0) + 2 + 1 + (isNarrow(columns) ? 1 : 0) + (box?.rows ?? 0) + (confirming ? confirmRows(question, columns) : 0) + (props.panel?.rows ?? 0);
	const geometry = episodeLayout({columns, rows, chromeRows});

	const view = useMemo(() => publicView(session), [session]);
	const closing = session.turns.some((turn) => turn.closing);
	const awaiting = props.awaitingHuman ?? false;
	const publicList = useMemo(() => publicBlocks({view, streaming: props.streaming, awaitingHuman: awaiting, closingNote: closing}, caches.public), [view, props.streaming, awaiting, closing, caches]);
	const privateList = useMemo(() => privateBlocks(session, caches.private), [session, caches]);
	const oracleList = useMemo(() => oracleBlocks(session, caches.oracle), [session, caches]);
	const publicLayout = useMemo(() => layoutBlocks(publicList, geometry.contentWidths.public), [publicList, geometry.contentWidths.public]);
	const privateLayout = useMemo(() => layoutBlocks(privateList, geometry.contentWidths.private), [privateList, geometry.contentWidths.private]);
	const oracleLayout = useMemo(() => layoutBlocks(oracleList, geometry.contentWidths.oracle), [oracleList, geometry.contentWidths.oracle]);
	const layouts: Record<PaneId, PaneLayout> = {public: publicLayout, private: privateLayout, oracle: oracleLayout};
	const offsets = Object.fromEntries(PANES.map((pane) => [pane, effectiveOffset(ui.scroll[pane], layouts[pane].total, geometry.bodyHeight)])) as Record<PaneId, number>;
	const extents = Object.fromEntries(PANES.map((pane) => [pane, {total: layouts[pane].total, height: geometry.bodyHeight}])) as Extents;

	const serial = props.scrollRequest?.serial;
	useEffect(() => {
		if (props.scrollRequest) dispatch({type: 'page', pages: props.scrollRequest.pages, extents});
		// Only a new request scrolls; extents change on every frame.
		// eslint-disable-next-line react-hooks/exhaustive-deps
	}, [serial]);

	/** The actions the frame does itself; false for the screen's own (stepping, replay, end-state actions). */
	const frameAction = (action: EpisodeAction): boolean => {
		if (action === 'nextPane' || action === 'prevPane') dispatch({type: 'focus-step', delta: action === 'nextPane' ? 1 : -1});
		else if (action === 'pane1' || action === 'pane2' || action === 'pane3') dispatch({type: 'focus', pane: PANES[Number(action.slice(4)) - 1]!});
		else if (action === 'lineUp' || action === 'lineDown') dispatch({type: 'scroll', lines: action === 'lineUp' ? -1 : 1, extents});
		else if (action === 'pageUp' || action === 'pageDown') dispatch({type: 'page', pages: action === 'pageUp' ? -1 : 1, extents});
		else if (action === 'top') dispatch({type: 'top'});
		else if (action === 'bottom') dispatch({type: 'bottom', extents});
		else if (action === 'inspector' || action === 'help') dispatch({type: 'overlay', overlay: action});
		else if (action === 'quit') props.busy ? dispatch({type: 'overlay', overlay: 'quit'}) : props.onQuit();
		else if (action === 'back') {
			if (props.onBack) props.busy ? dispatch({type: 'overlay', overlay: 'back'}) : props.onBack();
		} else if (action === 'scores') {
			// The judge's scores head the Oracle pane; the screen hears of it too.
			dispatch({type: 'focus', pane: 'oracle'});
			dispatch({type: 'top'});
			return false;
		} else return false;
		return true;
	};
	useKeys(
		(input, key) => {
			const binding = lookup(props.keys, input, key);
			if (binding && !frameAction(binding.action)) props.onAction(binding.action);
		},
		{isActive: ui.overlay === 'none' && !box?.focused && !props.panel},
	);
	// While the rating form is open it owns ↑↓, digits and Enter; the transcript still scrolls (PgUp/PgDn, Tab).
	useKeys(
		(input, key) => {
			if (key.tab) dispatch({type: 'focus-step', delta: key.shift ? -1 : 1});
			else if (key.pageUp) dispatch({type: 'page', pages: -1, extents});
			else if (key.pageDown) dispatch({type: 'page', pages: 1, extents});
		},
		{isActive: ui.overlay === 'none' && Boolean(props.panel)},
	);

	if (tooSmall(columns, rows)) return <TooSmall columns={columns} rows={rows} onQuit={props.onQuit} />;
	const closeOverlay = () => dispatch({type: 'overlay', overlay: 'none'});
	const overlayHeight = geometry.paneHeight + (geometry.narrow ? 1 : 0);
	const footer = ui.overlay === 'inspector' ? INSPECTOR_FOOTER : ui.overlay === 'help' ? HELP_FOOTER : confirming ? CONFIRM_FOOTER : props.panel ? RATING_FOOTER : footerLine(props.keys, columns, props.footerLead);
	return (
		<Box flexDirection="column" width={columns} height={Math.max(1, rows - 1)}>
			<TitleBar
				text={`cultureconverse · ${session.id} · ${session.persona.identity} (${session.persona.region}) · ${session.template.id} · ${session.seed.tier} · ${session.config.language} · ${session.config.mode} · assistant ${session.config.assistant}${session.sawHidden ? ' (saw hidden)' : ''}`}
				mode={props.mode}
				width={columns}
			/>
			{session.config.mock ? <MockBanner mock={mockRolesOf(session)} width={columns} /> : null}
			<StatusBar lines={statusLines(props.status)} width={columns} />
			{ui.overlay === 'help' ? <HelpOverlay width={columns} height={overlayHeight} active onClose={closeOverlay} /> : null}
			{ui.overlay === 'inspector' ? <Inspector session={session} notices={props.notices} calls={props.calls ?? []} nowMs={props.status.nowMs ?? Date.now()} width={columns} height={overlayHeight} active onClose={closeOverlay} /> : null}
			{ui.overlay === 'none' || confirming ? <PaneRow geometry={geometry} layouts={layouts} offsets={offsets} focus={ui.focus} /> : null}
			{box?.element ?? null}
			{props.panel?.element ?? null}
			{confirming ? <ConfirmBox question={question} active onAnswer={(yes) => (yes ? (ui.overlay === 'back' ? props.onBack?.() : props.onQuit()) : closeOverlay())} /> : null}
			<Text wrap="truncate-end" dimColor>
				{truncate(footer, columns)}
			</Text>
		</Box>
	);
}
