import type {HiddenView, Session, TerminationReason} from '../domain/session.js';
import type {SessionSummary} from '../domain/sessionSummary.js';

/*
 * What a blind seat, and a session played from one, may show. A session whose assistant is a person
 * carries its blindness: while its dialogue is still open (a reply can still be written), showing its
 * private or oracle state to anyone at this machine makes the person no longer a blind baseline. Every
 * route that can show that state (the TUI's reveal key, its replay and compare screens, `replay`,
 * `replay --print`, `view --html`, `sessions --json`, `run --human --reveal`) asks this module first and
 * either refuses or records the view with `markHiddenSeen`; the engine's `revealHidden` is one of them.
 * Nothing else decides it.
 */

/** Terminations caused by a failed call: the dialogue did not end, a retry (`--retry`) continues it. */
const ERROR_ENDED: readonly TerminationReason[] = ['simulator_error', 'assistant_error', 'generation_error'];

type Openness = Pick<Session, 'status' | 'termination'>;

/** True while a reply can still be written: not completed, and not ended (an error-caused end can be retried). */
export function dialogueOpen(session: Openness): boolean {
	if (session.status === 'completed') return false;
	return !session.termination || ERROR_ENDED.includes(session.termination.reason);
}

/** A person plays the assistant and has not been shown hidden state. */
export function blindSeat(session: Pick<Session, 'config' | 'sawHidden'>): boolean {
	return session.config.assistant === 'human' && !session.sawHidden && !session.config.sawHidden;
}

/**
 * True when showing this session's private or oracle state would break a blind seat: a person plays
 * the assistant blind and the dialogue is still open. Such a view is refused, or asked for and recorded.
 */
export function hiddenGuarded(session: Pick<Session, 'config' | 'sawHidden' | 'status' | 'termination'>): boolean {
	return blindSeat(session) && dialogueOpen(session);
}

/** The same decision from a listing row (no transcript read). */
export function summaryGuarded(summary: Pick<SessionSummary, 'assistant' | 'assistantModel' | 'status' | 'termination' | 'setup'>): boolean {
	if (summary.assistant !== 'human' || summary.setup.sawHidden || summary.assistantModel.includes('saw hidden')) return false;
	if (summary.status === 'completed') return false;
	return summary.termination === null || (ERROR_ENDED as readonly string[]).includes(summary.termination);
}

/**
 * The session after its hidden state was shown by `view`: `sawHidden` set and the view recorded with
 * the step the session had reached. Unchanged (the same object) when nothing needs recording: no
 * blind seat, or the dialogue already over (no reply can change any more).
 */
export function markHiddenSeen(session: Session, view: HiddenView, at: string = new Date().toISOString()): Session {
	if (!hiddenGuarded(session)) return session;
	return {...session, sawHidden: true, hiddenViews: [...(session.hiddenViews ?? []), {view, step: session.steps.length, at}]};
}

/** The summary as a listing may show it: a guarded session's judge figures withheld (it should have none; this makes sure). */
export function blindSafeSummary<T extends SessionSummary>(summary: T): T {
	if (!summaryGuarded(summary)) return summary;
	return {...summary, threeH: null, tdq: null, clean: null, scores: null, violationIds: []};
}

/**
 * Why a command will not show a guarded session's hidden state, and what to do instead. `reveal` is
 * how the command is told to show it anyway (a flag), `resume` how to continue blind.
 */
export function blindRefusal(session: Pick<Session, 'id' | 'steps'>, what: string): string {
	return [
		`Session ${session.id} is played blind by a person and its dialogue is still open (step ${session.steps.length}): ${what} would show its private and oracle state.`,
		`Continue it blind with \`npx cultureconverse tui --resume ${session.id}\`, or add --reveal to show it anyway: that is recorded on the session (sawHidden), and its human replies from then on are reported apart from blind ones.`,
	].join('\n');
}
