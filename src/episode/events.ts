import type {JudgeResult, Metric, Session, SessionStatus, Termination, Turn} from '../domain/session.js';
import type {CallEvent} from '../llm/types.js';

/**
 * Everything an episode reports while it runs. The TUI reduces these into view state, headless `run`
 * prints them as text or JSONL, and tests assert on them; the engine knows none of its listeners.
 */
export type EngineEvent =
	| {readonly type: 'episode_started'; readonly sessionId: string; readonly seedId: string; readonly resumed: boolean}
	| {readonly type: 'step_started'; readonly step: number; readonly label: string}
	| {readonly type: 'stage_done'; readonly stage: 'blueprint' | 'shards'; readonly step: number}
	| {readonly type: 'user_turn'; readonly turn: Turn}
	| {readonly type: 'awaiting_assistant'; readonly t: number}
	| {readonly type: 'assistant_token'; readonly t: number; readonly delta: string}
	| {readonly type: 'assistant_turn'; readonly turn: Turn}
	| {readonly type: 'judge_metric'; readonly metric: Metric; readonly score: number; readonly rationale: string; readonly step: number}
	| {readonly type: 'step_done'; readonly step: number; readonly label: string; readonly status: SessionStatus}
	| {readonly type: 'saved'; readonly path: string}
	| {readonly type: 'episode_finished'; readonly status: SessionStatus; readonly termination: Termination | null; readonly judge: JudgeResult | null; readonly error: Session['error']}
	/**
	 * The session could not be saved (a full or read-only disk: `code` is the errno; a session past its
	 * size limit: `code` "TOO_LARGE"). The step's work is not on disk; the session on disk is as last
	 * saved and resumable. The step throws the same error (a StorageError or SessionTooLarge): a front
	 * end stops the episode and shows `message`, which names the folder and what to do.
	 */
	| {readonly type: 'save_failed'; readonly code: string; readonly file: string; readonly message: string}
	| CallEvent;

export type EngineListener = (event: EngineEvent) => void;
