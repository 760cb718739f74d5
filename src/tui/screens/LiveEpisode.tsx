import type {Key} from 'ink';
import {useEffect, useMemo, useState} from 'react';
import type {EpisodeEngine} from '../../episode/engine.js';
import {publicView} from '../../episode/views.js';
import {mockRolesOf} from '../view/status.js';
import type {TuiOutcome} from '../appState.js';
import {BlindSeat} from '../components/BlindSeat.js';
import {EpisodeFrame} from '../components/EpisodeFrame.js';
import {HumanInput} from '../components/HumanInput.js';
import {useDraftStore} from '../hooks/useDraftStore.js';
import {useEpisodeDriver} from '../hooks/useEpisodeDriver.js';
import {useNow} from '../hooks/useNow.js';
import {useTerminalSize} from '../hooks/useTerminalSize.js';
import type {TuiServices} from '../services.js';
import {blindStatusLines} from '../view/blindStatus.js';
import {inputBoxRows, inputLines} from '../view/layout.js';

type Props = {
	readonly engine: EpisodeEngine;
	readonly services: TuiServices;
	readonly onQuit: () => void;
	readonly onBack: (() => void) | null;
	/** Where the launcher reads the session on screen when the TUI exits (its id, and whether a step was in flight). */
	readonly outcome?: TuiOutcome;
};

const FOOTER = 'n/space step · a auto · x interrupt · Tab/1-3 pane · ↑↓ PgUp PgDn scroll · i inspector · ? help';

/**
 * An episode driven live: every step is one engine.step(); the panes show the engine's session.
 * With a person playing the assistant the episode runs on its own up to their turn, the reply box
 * keeps every key (typing ahead while the user answers), and the seat is blind (the Public pane
 * only) until they reveal the hidden panes, which the engine records.
 */
export function LiveEpisode({engine, services, onQuit, onBack, outcome}: Props) {
	const human = engine.session.config.assistant === 'human';
	const driver = useEpisodeDriver(engine, {continuous: human});
	const {state, notice} = driver;
	useEffect(() => services.onNotice((text) => notice('warn', text)), [services, notice]);
	useEffect(() => {
		if (outcome) outcome.update(state.session, state.inFlight);
	}, [outcome, state.session, state.inFlight]);
	const {rows, columns} = useTerminalSize();
	const draft = useDraftStore();
	const [boxFocused, setBoxFocused] = useState(true);
	const [revealedAfterEnd, setRevealedAfterEnd] = useState(false);
	const [scrollRequest, setScrollRequest] = useState<{serial: number; pages: number} | null>(null);
	const nowMs = useNow(state.calls.length > 0);
	const session = state.session;
	const next = engine.next;
	const awaitingHuman = !state.inFlight && engine.awaitingHuman;
	const ended = session.status === 'completed' || session.status === 'error';
	const showHidden = !human || Boolean(session.sawHidden) || revealedAfterEnd;
	const boxActive = human && boxFocused && !ended;

	const reveal = () => {
		void engine.revealHidden().then((recorded) => {
			if (recorded) notice('warn', 'hidden panes shown: recorded on the session (sawHidden); your replies from now on are reported apart from blind ones');
			else setRevealedAfterEnd(true);
		});
	};
	const onKey = (input: string, key: Key): boolean => {
		if ((input === 'n' || input === ' ') && !awaitingHuman) driver.step();
		else if (input === 'a') driver.toggleAuto();
		else if ((input === 'x' || key.escape) && (driver.busy || driver.running())) driver.interrupt();
		else if (input === 'r' && session.status === 'error') driver.retry();
		else if (human && !ended && (input === 'e' || key.return)) setBoxFocused(true);
		else if (human && input === 'v' && !showHidden) reveal();
		else return false;
		return true;
	};

	const box = human
		? {
				rows: inputBoxRows(rows),
				focused: boxActive,
				element: (
					<HumanInput
						draft={draft}
						t={awaitingHuman && next.kind === 'assistant' ? next.t : null}
						width={columns}
						maxLines={inputLines(rows)}
						focused={boxActive}
						onSend={driver.submit}
						onBlur={() => setBoxFocused(false)}
						onScroll={(pages) => setScrollRequest((last) => ({serial: (last?.serial ?? 0) + 1, pages}))}
						env={services.env}
					/>
				),
			}
		: null;
	const retryHint = session.status === 'error' ? ' · r retry the failed step' : '';
	const quitAndStop = () => {
		driver.interrupt();
		onQuit();
	};
	const view = useMemo(() => publicView(session), [session]);
	if (human && !showHidden && box) {
		const footer = boxActive
			? 'Keys type into the reply · Esc: command keys (v reveal the hidden panes, recorded · x interrupt · ? help · q quit)'
			: `e type the reply · v reveal the hidden panes (recorded) · n step · x interrupt${retryHint} · ↑↓ PgUp PgDn scroll · ? help · q quit`;
		return (
			<BlindSeat
				view={view}
				awaitingHuman={awaitingHuman}
				status={blindStatusLines({session, running: state.inFlight, awaitingHuman, calls: state.calls, nowMs, problem: state.problem !== null || session.error !== null})}
				mock={session.config.mock ? mockRolesOf(session) : null}
				busy={driver.busy}
				box={box}
				onKey={onKey}
				footer={footer}
				onQuit={quitAndStop}
				scrollRequest={scrollRequest}
			/>
		);
	}
	return (
		<EpisodeFrame
			session={session}
			mode="live"
			streaming={state.streaming}
			status={{session, running: state.running ?? (state.inFlight ? 'working' : null), awaitingHuman, retry: state.retry, lastLatencyMs: state.lastLatencyMs, problem: state.problem, auto: state.auto, replay: null, calls: state.calls, nowMs}}
			notices={state.notices}
			calls={state.calls}
			busy={driver.busy}
			awaitingHuman={awaitingHuman}
			box={box}
			scrollRequest={scrollRequest}
			onKey={onKey}
			footer={`${boxActive ? 'Keys type into the reply · Esc: command keys · ' : ''}${FOOTER}${retryHint}${human && !boxActive && !ended ? ' · e type' : ''}${onBack ? ' · b back' : ''} · q quit`}
			onQuit={quitAndStop}
			onBack={
				onBack
					? () => {
							driver.interrupt();
							onBack();
						}
					: null
			}
		/>
	);
}
