import {Box, Text} from 'ink';
import {useRef, useState} from 'react';
import {METRICS} from '../../domain/session.js';
import type {Scores} from '../../store/ratingStore.js';
import {useKeys} from '../hooks/useKeys.js';
import {METRIC_QUESTIONS, initialRatingForm, ratingKey, unscored} from '../view/ratingForm.js';

/** Rows the form takes: border 2, title 1, one per metric, hint 1. */
export const RATING_FORM_ROWS = 2 + 1 + METRICS.length + 1;

type Props = {
	readonly rater: string;
	readonly initial: Scores;
	readonly width: number;
	readonly active: boolean;
	/** Saves and returns a message to show, or throws (the message of the error is shown, the form stays). */
	readonly onSave: (scores: Scores) => void;
	readonly onCancel: () => void;
};

/** A person's 1-5 scores for the six judge metrics, for judge-human agreement (`report agreement`). */
export function RatingForm({rater, initial, width, active, onSave, onCancel}: Props) {
	// Several keys can arrive before a re-render (typed fast): the ref is the state keys act on.
	const stateRef = useRef(initialRatingForm(initial));
	const [state, setState] = useState(stateRef.current);
	useKeys(
		(input, key) => {
			const result = ratingKey(stateRef.current, input, key);
			if (result.kind === 'cancel') onCancel();
			else if (result.kind === 'save') {
				try {
					onSave(result.scores);
				} catch (error) {
					stateRef.current = {...stateRef.current, message: `Not saved: ${(error as Error).message}`};
					setState(stateRef.current);
				}
			} else {
				stateRef.current = result.state;
				setState(result.state);
			}
		},
		{isActive: active},
	);
	return (
		<Box flexDirection="column" borderStyle="round" borderColor="magenta" paddingX={1} width={width}>
			<Text bold wrap="truncate-end">
				Your ratings as {rater} (1 poor … 5 excellent) · judge scores are hidden while you rate
			</Text>
			{METRICS.map((metric, index) => {
				const score = state.scores[metric];
				return (
					<Text key={metric} wrap="truncate-end" inverse={index === state.selected}>
						{`${index === state.selected ? '▶' : ' '} ${metric.padEnd(13)} ${score === undefined ? '[ ]' : `[${score}]`}  `}
						<Text dimColor={index !== state.selected}>{METRIC_QUESTIONS[metric]}</Text>
					</Text>
				);
			})}
			<Text wrap="truncate-end" color={state.message ? 'yellow' : undefined} dimColor={!state.message}>
				{state.message ?? `↑↓ move to a metric · 1-5 score it (the cursor stays) · 0 clear · Enter save (all six needed; ${unscored(state.scores).length} empty) · PgUp/PgDn, Tab scroll the transcript · Esc cancel`}
			</Text>
		</Box>
	);
}
