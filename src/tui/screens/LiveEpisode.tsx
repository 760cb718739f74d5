import {useEffect, useMemo, useState} from 'react';
import type {Session} from '../../domain/session.js';
import {dialogueOpen} from '../../episode/blindness.js';
import type {EpisodeEngine} from '../../episode/engine.js';
import {publicView} from '../../episode/views.js';
import {errorMessage} from '../../util/errors.js';
import type {TuiOutcome} from '../appState.js';
import {BlindSeat, type Question} from '../components/BlindSeat.js';
import {EpisodeFrame} from '../components/EpisodeFrame.js';
import {draftLineCount, HumanInput} from '../components/HumanInput.js';
import {useDraftStore} from '../hooks/useDraftStore.js';
import {useEpisodeDriver} from '../hooks/useEpisodeDriver.js';
import {useNow} from '../hooks/useNow.js';
import {useTerminalSize} from '../hooks/useTerminalSize.js';
import type {TuiServices} from '../services.js';
import {blindStatusLines} from '../view/blindStatus.js';
import {blindSeatKeys, type EpisodeAction, type LivePhase, liveFrameKeys} from '../view/episodeKeys.js';
import {inputBoxRows, inputShown} from '../view/layout.js';
import {mockRolesOf} from '../view/status.js';

type Props = {
	readonly engine: EpisodeEngine;
	readonly services: TuiServices;
	readonly onQuit: () => void;
	readonly onBack: (() => void) | null;
	/** The session's replay (p), with the rating form open (s): what an ended episode offers next. */
	readonly onReplay?: (session: Session, options: {rate: boolean}) => void;
	/** Where the launcher reads the session on screen when the TUI exits (its id, and whether a step was in flight). */
	readonly outcome?: TuiOutcome;
};

const TYPING = 'typing into the reply · Ctrl-S send · Esc command keys';

/**
 * An episode driven live: every step is one engine.step(); the panes show the engine's session.
 * With a person playing the assistant the episode runs on its own up to their turn, the reply box
 * keeps every key (typing ahead while the user answers), and the seat is blind (the Public pane
 * only) until they ask to see the hidden panes and confirm, which the engine records. The keys of
 * each state come from one table (view/episodeKeys.ts): the footer shows exactly those.
 */
export function LiveEpisode({engine, services, onQuit, onBack, onReplay, outcome}: Props) {
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
	/** Shown after the dialogue ended (o on the seat): nothing to record, no reply can change. */
	const [shownAfterEnd, setShownAfterEnd] = useState(false);
	const [question, setQuestion] = useState<Question | null>(null);
	/** The last thing done for the person, on the status line (also kept in the inspector's log). */
	const [note, setNote] = useState<string | null>(null);
	const say = (level: 'info' | 'warn' | 'error', text: string) => {
		setNote(text);
		notice(level, text);
	};
	const [scrollRequest, setScrollRequest] = useState<{serial: number; pages: number} | null>(null);
	const nowMs = useNow(state.calls.length > 0);
	const session = state.session;
	const next = engine.next;
	const awaitingHuman = !state.inFlight && engine.awaitingHuman;
	const open = dialogueOpen(session);
	const showHidden = !human || Boolean(session.sawHidden) || shownAfterEnd;
	const boxActive = human && boxFocused && open;
	const phase: LivePhase = state.inFlight ? 'running' : session.status === 'completed' ? 'done' : session.status === 'error' ? 'error' : awaitingHuman ? 'awaiting' : 'idle';

	const reveal = () =>
		setQuestion({
			text: `Show the private and oracle panes? This is recorded on the session (sawHidden, at step ${session.steps.length}) and cannot be undone: your replies from now on are reported apart from blind ones.`,
			strict: true,
			onAnswer: (yes) => {
				setQuestion(null);
				if (!yes) return say('info', 'hidden panes not shown: the seat stays blind');
				void engine.revealHidden('tui-reveal').then((recorded) => {
					if (recorded) say('warn', 'hidden panes shown: recorded on the session (sawHidden); your replies from now on are reported apart from blind ones');
					else setShownAfterEnd(true);
				});
			},
		});
	const writePage = () => {
		try {
			say('info', `session page written: ${services.writePage(engine.session)}`);
		} catch (error) {
			say('error', `could not write the session page: ${errorMessage(error)}`);
		}
	};
	const act = (action: EpisodeAction) => {
		switch (action) {
			case 'step':
				return driver.step();
			case 'auto':
				return driver.toggleAuto();
			case 'interrupt':
				return driver.interrupt();
			case 'retry':
				return driver.retry();
			case 'type':
				return setBoxFocused(true);
			case 'reveal':
				return reveal();
			case 'scores':
				// On the seat the dialogue is over: the panes open (not recorded), on the Oracle's scores.
				return setShownAfterEnd(true);
			case 'rate':
			case 'replay':
				if (onReplay) onReplay(engine.session, {rate: action === 'rate'});
				return;
			case 'page':
				return writePage();
			default:
				return;
		}
	};
	const draftLines = human ? draftLineCount(draft.state, columns) : 0;
	const shown = inputShown(rows, draftLines);
	const box =
		human && open
			? {
					rows: inputBoxRows(shown),
					focused: boxActive,
					element: (
						<HumanInput
							draft={draft}
							t={awaitingHuman && next.kind === 'assistant' ? next.t : null}
							width={columns}
							maxLines={shown}
							focused={boxActive}
							onSend={driver.submit}
							onBlur={() => setBoxFocused(false)}
							onScroll={(pages) => setScrollRequest((last) => ({serial: (last?.serial ?? 0) + 1, pages}))}
							env={services.env}
						/>
					),
				}
			: null;
	const quitAndStop = () => {
		driver.interrupt();
		onQuit();
	};
	const view = useMemo(() => publicView(session), [session]);
	// End-state actions that need the App (replay, rating) are offered only when it can take them.
	const offered = <T extends {action: EpisodeAction}>(table: T[]) => table.filter((binding) => onReplay || (binding.action !== 'rate' && binding.action !== 'replay'));
	if (human && !showHidden) {
		return (
			<BlindSeat
				view={view}
				awaitingHuman={awaitingHuman}
				status={blindStatusLines({session, running: state.inFlight, awaitingHuman, calls: state.calls, nowMs, problem: state.problem !== null || session.error !== null, note})}
				mock={session.config.mock ? mockRolesOf(session) : null}
				busy={driver.busy}
				box={box}
				keys={offered(blindSeatKeys({phase, open, paused: !state.inFlight && !awaitingHuman && open}))}
				onAction={act}
				footerLead={boxActive ? TYPING : ''}
				question={question}
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
			status={{session, running: state.running ?? (state.inFlight ? 'working' : null), awaitingHuman, retry: state.retry, lastLatencyMs: state.lastLatencyMs, problem: state.problem, auto: state.auto, replay: null, calls: state.calls, nowMs, note}}
			notices={state.notices}
			calls={state.calls}
			busy={driver.busy}
			awaitingHuman={awaitingHuman}
			box={box}
			scrollRequest={scrollRequest}
			keys={offered(liveFrameKeys({phase, human, open, auto: state.auto, canBack: onBack !== null}))}
			onAction={act}
			footerLead={boxActive ? TYPING : ''}
			initialFocus={shownAfterEnd ? 'oracle' : 'public'}
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
