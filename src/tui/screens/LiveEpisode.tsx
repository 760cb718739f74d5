import type {Key} from 'ink';
import {useEffect} from 'react';
import type {EpisodeEngine} from '../../episode/engine.js';
import {EpisodeFrame} from '../components/EpisodeFrame.js';
import {useEpisodeDriver} from '../hooks/useEpisodeDriver.js';
import type {TuiServices} from '../services.js';

type Props = {
	readonly engine: EpisodeEngine;
	readonly services: TuiServices;
	readonly onQuit: () => void;
	readonly onBack: (() => void) | null;
};

const FOOTER = 'n/space step · a auto · x interrupt · Tab/1-3 pane · ↑↓ PgUp PgDn scroll · i inspector · ? help';

/** An episode driven live: every n is one engine.step(); the panes show the engine's session. */
export function LiveEpisode({engine, services, onQuit, onBack}: Props) {
	const driver = useEpisodeDriver(engine);
	const {state} = driver;
	const {notice} = driver;
	useEffect(() => services.onNotice((text) => notice('warn', text)), [services, notice]);
	const next = engine.next;
	const awaitingHuman = !state.inFlight && engine.awaitingHuman;
	const onKey = (input: string, key: Key): boolean => {
		if ((input === 'n' || input === ' ') && !awaitingHuman) {
			driver.step();
			return true;
		}
		if (input === 'a') {
			driver.toggleAuto();
			return true;
		}
		if ((input === 'x' || key.escape) && (driver.busy || driver.running())) {
			driver.interrupt();
			return true;
		}
		return false;
	};
	return (
		<EpisodeFrame
			session={state.session}
			mode="live"
			streaming={state.streaming}
			status={{session: state.session, running: state.running ?? (state.inFlight ? 'working' : null), awaitingHuman, retry: state.retry, lastLatencyMs: state.lastLatencyMs, problem: state.problem, auto: state.auto, replay: null}}
			notices={state.notices}
			busy={driver.busy}
			human={awaitingHuman && next.kind === 'assistant' ? {t: next.t, onSend: driver.submit} : null}
			onKey={onKey}
			footer={`${FOOTER}${onBack ? ' · b back' : ''} · q quit`}
			onQuit={() => {
				driver.interrupt();
				onQuit();
			}}
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
