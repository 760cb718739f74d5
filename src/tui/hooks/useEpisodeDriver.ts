import {useCallback, useEffect, useReducer, useRef} from 'react';
import type {EpisodeEngine} from '../../episode/engine.js';
import {errorMessage} from '../../util/errors.js';
import {initialLive, liveReducer, type LiveState, type NoticeLevel} from '../episode/liveState.js';

export type EpisodeDriver = {
	readonly state: LiveState;
	/** True while a step (or an auto-run) is in flight. */
	readonly busy: boolean;
	/** One engine step; ignored while one is in flight. */
	step(): void;
	/** Auto-run on or off; off lets the step in flight finish. */
	toggleAuto(): void;
	/** Aborts the step in flight through its AbortController (nothing is recorded; resumable). */
	interrupt(): void;
	/**
	 * True while a step runs, read at call time: a key handler from a render just before the step
	 * started would see `busy` still false, and an x pressed right then would be lost.
	 */
	running(): boolean;
	/** Hands the human assistant's reply to the engine, then steps. */
	submit(text: string): void;
	/** Clears the session's error (engine.retryAfterError) and runs the failed step again. */
	retry(): void;
	notice(level: NoticeLevel, text: string): void;
};

const now = () => new Date().toISOString();

/**
 * Drives one EpisodeEngine: subscribes to its events, runs steps with an AbortController, and keeps
 * auto-run going between steps. No episode logic lives here: every step is `engine.step()`.
 */
export function useEpisodeDriver(engine: EpisodeEngine, options: {continuous?: boolean} = {}): EpisodeDriver {
	const [state, dispatch] = useReducer(liveReducer, engine.session, initialLive);
	const controller = useRef<AbortController | null>(null);
	const auto = useRef(false);
	/*
	 * With a person playing the assistant the episode runs on its own up to their next turn (there is
	 * nothing else for them to do, and a blind player has nothing to watch): on open and after each
	 * reply. An interrupt (x) pauses that until the next reply or step.
	 */
	const continuous = Boolean(options.continuous);
	const paused = useRef(false);
	const keepGoing = () => auto.current || (continuous && !paused.current);

	useEffect(() => engine.on((event) => dispatch({type: 'event', event, session: engine.session, at: now(), nowMs: Date.now()})), [engine]);
	useEffect(
		() => () => {
			auto.current = false;
			controller.current?.abort();
			// Leaving the episode lets go of its file (an unfinished one stays resumable).
			engine.close();
		},
		[engine],
	);

	const run = useCallback(async () => {
		if (controller.current) return;
		const current = new AbortController();
		controller.current = current;
		dispatch({type: 'run-start'});
		try {
			for (;;) {
				const result = await engine.step(current.signal);
				if (current.signal.aborted || result.done || result.awaiting || !keepGoing()) break;
			}
			if (current.signal.aborted) dispatch({type: 'notice', level: 'info', text: 'step interrupted; nothing was recorded (the session stays resumable)', at: now()});
			controller.current = null;
			dispatch({type: 'run-end', session: engine.session});
		} catch (error) {
			// A bug below the engine's error handling: shown, never thrown into Ink.
			controller.current = null;
			auto.current = false;
			dispatch({type: 'crash', message: `step failed: ${errorMessage(error)}`, session: engine.session, at: now()});
		}
		if (engine.session.status === 'completed' || engine.session.status === 'error') auto.current = false;
	}, [engine]);

	const step = useCallback(() => {
		paused.current = false;
		void run();
	}, [run]);

	useEffect(() => {
		if (continuous && !engine.awaitingHuman && engine.next.kind !== 'done') void run();
		// Once, when the episode opens.
		// eslint-disable-next-line react-hooks/exhaustive-deps
	}, [engine]);

	const toggleAuto = useCallback(() => {
		auto.current = !auto.current;
		dispatch({type: 'auto', on: auto.current});
		if (auto.current && !engine.awaitingHuman) void run();
	}, [engine, run]);

	const interrupt = useCallback(() => {
		auto.current = false;
		paused.current = true;
		dispatch({type: 'auto', on: false});
		controller.current?.abort();
	}, []);

	const submit = useCallback(
		(text: string) => {
			try {
				engine.submitHumanReply(text);
			} catch (error) {
				dispatch({type: 'notice', level: 'error', text: errorMessage(error), at: now()});
				return;
			}
			paused.current = false;
			void run();
		},
		[engine, run],
	);

	const retry = useCallback(() => {
		if (controller.current) return;
		void engine.retryAfterError().then((cleared) => {
			if (!cleared) return;
			paused.current = false;
			dispatch({type: 'notice', level: 'info', text: 'error cleared: running the failed step again', at: now()});
			void run();
		});
	}, [engine, run]);

	const notice = useCallback((level: NoticeLevel, text: string) => dispatch({type: 'notice', level, text, at: now()}), []);

	const running = useCallback(() => controller.current !== null, []);

	return {state, busy: state.inFlight, step, toggleAuto, interrupt, running, submit, retry, notice};
}
