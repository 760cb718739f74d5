import {useEffect, useMemo, useState} from 'react';
import type {Session} from '../../domain/session.js';
import {sessionAtStep} from '../../episode/replay.js';
import {EpisodeFrame} from '../components/EpisodeFrame.js';
import {RATING_FORM_ROWS, RatingForm} from '../components/RatingForm.js';
import {useTerminalSize} from '../hooks/useTerminalSize.js';
import type {Scores} from '../../store/ratingStore.js';
import {errorMessage} from '../../util/errors.js';
import {clamp} from '../text/scroll.js';
import {resumable} from '../view/sessionsList.js';
import {type EpisodeAction, replayKeys} from '../view/episodeKeys.js';

type Props = {
	readonly session: Session;
	/** Ratings of this session by the person at the terminal (s opens the form). */
	readonly rating: {readonly rater: string; readonly file: string; load(): Scores; save(scores: Scores): number};
	/** Set while resuming, or with the reason resuming failed. */
	readonly message: string | null;
	/** Continue live; `retry` clears the session's error first and runs the failed step again. */
	readonly onResume: (session: Session, options: {retry: boolean}) => void;
	readonly onQuit: () => void;
	readonly onBack: (() => void) | null;
	/** Open with the rating form (s on an ended live episode). @default false */
	readonly rateFirst?: boolean;
};

/** A saved session on the episode screen: every pane shows sessionAtStep(session, cursor). */
export function ReplayEpisode({session, rating, message, onResume, onQuit, onBack, rateFirst = false}: Props) {
	const total = session.steps.length;
	const [cursor, setCursor] = useState(total);
	const [note, setNote] = useState<string | null>(null);
	const {columns} = useTerminalSize();
	/** The rater's saved scores while the form is open, else null. */
	const [form, setForm] = useState<Scores | null>(null);
	const openForm = () => {
		if (!session.turns.some((turn) => turn.role === 'assistant')) {
			setNote('Nothing to rate yet: the session has no assistant turn.');
			return;
		}
		let saved: Scores;
		try {
			saved = rating.load();
		} catch (error) {
			setNote(`Cannot read ${rating.file}: ${errorMessage(error)}`);
			return;
		}
		// Rate before seeing the judge: the replay steps back to just before the judge's step.
		const judged = session.steps.findIndex((step) => step.kind === 'judge');
		if (judged >= 0) setCursor((at) => Math.min(at, judged));
		setNote(null);
		setForm(saved);
	};
	const view = useMemo(() => sessionAtStep(session, cursor), [session, cursor]);
	const label = cursor === 0 ? 'before the first step' : (session.steps[cursor - 1]?.label ?? '');
	const move = (to: (at: number) => number) => {
		setCursor((at) => clamp(to(at), 0, total));
		setNote(null);
	};
	const rateable = session.turns.some((turn) => turn.role === 'assistant');
	const act = (action: EpisodeAction) => {
		if (action === 'forward') move((at) => at + 1);
		else if (action === 'backward') move((at) => at - 1);
		else if (action === 'first') move(() => 0);
		else if (action === 'last') move(() => total);
		else if (action === 'resume') onResume(session, {retry: false});
		else if (action === 'retry') onResume(session, {retry: true});
		else if (action === 'rate') openForm();
		else if (action === 'explain') setNote('This session is completed: there is nothing to resume (rejudge scores it again with another judge).');
	};
	useEffect(() => {
		if (rateFirst) openForm();
		// Once, on opening.
		// eslint-disable-next-line react-hooks/exhaustive-deps
	}, []);
	const panel = form
		? {
				rows: RATING_FORM_ROWS,
				element: (
					<RatingForm
						rater={rating.rater}
						initial={form}
						width={columns}
						active
						onCancel={() => setForm(null)}
						onSave={(scores) => {
							const saved = rating.save(scores);
							setForm(null);
							setNote(`Saved ${saved} rating(s) by ${rating.rater} to ${rating.file}.`);
						}}
					/>
				),
			}
		: null;
	return (
		<EpisodeFrame
			session={view}
			mode="replay"
			streaming={null}
			status={{session: view, running: null, awaitingHuman: false, retry: null, lastLatencyMs: null, problem: message ?? note, auto: false, replay: {step: cursor, total, label}}}
			notices={[]}
			busy={false}
			keys={replayKeys({step: cursor, total, resumable: resumable(session), retryable: session.status === 'error', rateable: rateable && !form, canBack: onBack !== null})}
			onAction={act}
			onQuit={onQuit}
			onBack={onBack}
			panel={panel}
		/>
	);
}
