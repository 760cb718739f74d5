import {Box, type Key, Text} from 'ink';
import {type ReactNode, useMemo, useReducer} from 'react';
import type {Session} from '../../domain/session.js';
import type {Notice} from '../episode/liveState.js';
import {type Extents, initialUi, uiReducer} from '../episode/uiState.js';
import {useTerminalSize} from '../hooks/useTerminalSize.js';
import {effectiveOffset} from '../text/scroll.js';
import {INPUT_BOX_ROWS, INPUT_LINES, episodeLayout, isNarrow, PANES, type PaneId} from '../view/layout.js';
import {BlockCache, layoutBlocks, type PaneLayout} from '../view/lines.js';
import {oracleBlocks} from '../view/oraclePane.js';
import {privateBlocks} from '../view/privatePane.js';
import {publicBlocks, type Streaming} from '../view/publicPane.js';
import {type StatusInput, statusLines} from '../view/status.js';
import {ConfirmBox} from './ConfirmBox.js';
import {HelpOverlay} from './HelpOverlay.js';
import {HumanInput} from './HumanInput.js';
import {Inspector} from './Inspector.js';
import {MockBanner} from './MockBanner.js';
import {mockRolesOf} from '../view/status.js';
import {PaneRow} from './PaneRow.js';
import {StatusBar} from './StatusBar.js';
import {useKeys} from '../hooks/useKeys.js';

export type FrameProps = {
	/** The session as the panes should show it (live: the engine's; replay: as it was at the cursor). */
	readonly session: Session;
	readonly mode: 'live' | 'replay';
	readonly streaming: Streaming | null;
	readonly status: StatusInput;
	readonly notices: readonly Notice[];
	readonly busy: boolean;
	/** The awaited assistant turn when a person plays the assistant, else null. */
	readonly human: {readonly t: number; readonly onSend: (text: string) => void} | null;
	/** Mode keys (stepping, replay movement); true when the key was handled. */
	readonly onKey: (input: string, key: Key) => boolean;
	readonly footer: string;
	readonly onQuit: () => void;
	readonly onBack: (() => void) | null;
	/** A box under the panes that takes the keys while it is open (the rating form). */
	readonly panel?: {readonly rows: number; readonly element: ReactNode} | null;
};

/** The episode screen's frame: title, mock banner, status, the three panes, input box, overlays, keys. */
export function EpisodeFrame(props: FrameProps) {
	const {session, human} = props;
	const {columns, rows} = useTerminalSize();
	const [ui, dispatch] = useReducer(uiReducer, undefined, initialUi);
	const caches = useMemo(() => ({public: new BlockCache(), private: new BlockCache(), oracle: new BlockCache()}), []);
	const inputFocused = human !== null && ui.inputLeftAt !== human.t && ui.overlay === 'none';
	const chromeRows = 1 + (session.config.mock ? 1 : 0) + 2 + 1 + (isNarrow(columns) ? 1 : 0) + (human ? INPUT_BOX_ROWS : 0) + (ui.overlay === 'quit' ? 3 : 0) + (props.panel?.rows ?? 0);
	const geometry = episodeLayout({columns, rows, chromeRows});

	const awaiting = human !== null;
	const publicList = useMemo(() => publicBlocks({session, streaming: props.streaming, awaitingHuman: awaiting}, caches.public), [session, props.streaming, awaiting, caches]);
	const privateList = useMemo(() => privateBlocks(session, caches.private), [session, caches]);
	const oracleList = useMemo(() => oracleBlocks(session, caches.oracle), [session, caches]);
	const publicLayout = useMemo(() => layoutBlocks(publicList, geometry.contentWidths.public), [publicList, geometry.contentWidths.public]);
	const privateLayout = useMemo(() => layoutBlocks(privateList, geometry.contentWidths.private), [privateList, geometry.contentWidths.private]);
	const oracleLayout = useMemo(() => layoutBlocks(oracleList, geometry.contentWidths.oracle), [oracleList, geometry.contentWidths.oracle]);
	const layouts: Record<PaneId, PaneLayout> = {public: publicLayout, private: privateLayout, oracle: oracleLayout};
	const offsets = Object.fromEntries(PANES.map((pane) => [pane, effectiveOffset(ui.scroll[pane], layouts[pane].total, geometry.bodyHeight)])) as Record<PaneId, number>;
	const extents = Object.fromEntries(PANES.map((pane) => [pane, {total: layouts[pane].total, height: geometry.bodyHeight}])) as Extents;

	useKeys(
		(input, key) => {
			if (props.onKey(input, key)) return;
			if (input === '?') dispatch({type: 'overlay', overlay: 'help'});
			else if (input === 'i') dispatch({type: 'overlay', overlay: 'inspector'});
			else if (input === 'q') props.busy ? dispatch({type: 'overlay', overlay: 'quit'}) : props.onQuit();
			else if (input === 'b' && props.onBack) props.onBack();
			else if ((input === 'e' || input === 'n' || input === ' ') && human) dispatch({type: 'enter-input'});
			else if (key.tab) dispatch({type: 'focus-step', delta: key.shift ? -1 : 1});
			else if (input === '1' || input === '2' || input === '3') dispatch({type: 'focus', pane: PANES[Number(input) - 1]!});
			else if (key.upArrow || input === 'k') dispatch({type: 'scroll', lines: -1, extents});
			else if (key.downArrow || input === 'j') dispatch({type: 'scroll', lines: 1, extents});
			else if (key.pageUp) dispatch({type: 'page', pages: -1, extents});
			else if (key.pageDown) dispatch({type: 'page', pages: 1, extents});
			else if (input === 'g' || key.home) dispatch({type: 'top'});
			else if (input === 'G' || key.end) dispatch({type: 'bottom', extents});
		},
		{isActive: ui.overlay === 'none' && !inputFocused && !props.panel},
	);

	const closeOverlay = () => dispatch({type: 'overlay', overlay: 'none'});
	const overlayHeight = geometry.paneHeight + (geometry.narrow ? 1 : 0);
	return (
		<Box flexDirection="column" width={columns} height={Math.max(1, rows - 1)}>
			<Text wrap="truncate-end" bold>
				<Text color="cyan">cultureconverse</Text>
				<Text dimColor>{` · ${session.id} · ${session.persona.identity} (${session.persona.region}) · ${session.template.id} · ${session.seed.tier} · ${session.config.language} · ${session.config.mode} · assistant ${session.config.assistant} · `}</Text>
				<Text color={props.mode === 'live' ? 'green' : 'magenta'}>{props.mode === 'live' ? 'LIVE' : 'REPLAY'}</Text>
			</Text>
			{session.config.mock ? <MockBanner {...mockRolesOf(session)} /> : null}
			<StatusBar lines={statusLines(props.status)} />
			{ui.overlay === 'help' ? <HelpOverlay width={columns} height={overlayHeight} active onClose={closeOverlay} /> : null}
			{ui.overlay === 'inspector' ? <Inspector session={session} notices={props.notices} width={columns} height={overlayHeight} active onClose={closeOverlay} /> : null}
			{ui.overlay === 'none' || ui.overlay === 'quit' ? <PaneRow geometry={geometry} layouts={layouts} offsets={offsets} focus={ui.focus} /> : null}
			{human ? <HumanInput t={human.t} width={columns} maxLines={INPUT_LINES} focused={inputFocused} onSend={human.onSend} onBlur={() => dispatch({type: 'leave-input', t: human.t})} /> : null}
			{props.panel?.element ?? null}
			{ui.overlay === 'quit' ? (
				<ConfirmBox
					question="A step is in flight. Quit anyway? The call in flight is abandoned; the session stays resumable."
					active
					onAnswer={(yes) => (yes ? props.onQuit() : closeOverlay())}
				/>
			) : null}
			<Text wrap="truncate-end" dimColor>
				{props.footer}
			</Text>
		</Box>
	);
}
