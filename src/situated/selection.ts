import type {ScoredAnswer, SituatedEval} from '../domain/situated.js';
import {type Calibration, fitCalibration} from './calibrate.js';

/*
 * Best-of-N picks. A reward model's pick is the best-of-N result; the grader's own pick (the best
 * outcome grade, made with the norm in view) is the oracle: the ceiling a perfect selector reaches,
 * shown next to it but never as a best-of-N result.
 */

/** Outcome grade of a sample, 0 for an invalid one (the paper's end-to-end rule). */
export const outcomeOf = (sample: ScoredAnswer | undefined) => sample?.outcome?.score ?? 0;
/** Norm match of a sample, 0 for an invalid one. */
export const normMatchOf = (sample: ScoredAnswer | undefined) => sample?.normMatch?.score ?? 0;

/** The oracle pick (ceiling) among the first `n` samples: best outcome, then best norm match, then the earlier sample. */
export function oraclePick(samples: readonly ScoredAnswer[], n = samples.length): number {
	let best = 0;
	for (let index = 1; index < Math.min(n, samples.length); index++) {
		const [a, b] = [samples[index]!, samples[best]!];
		if (outcomeOf(a) > outcomeOf(b) || (outcomeOf(a) === outcomeOf(b) && normMatchOf(a) > normMatchOf(b))) best = index;
	}
	return best;
}

/**
 * A reward model's pick among the first `n` samples: the highest score among scored (valid) samples,
 * the earlier one on a tie; null when none of them was scored (every answer invalid).
 */
export function rewardPick(scores: readonly (number | null | undefined)[], n = scores.length): number | null {
	let best: number | null = null;
	for (let index = 0; index < Math.min(n, scores.length); index++) {
		const score = scores[index];
		if (score === null || score === undefined) continue;
		if (best === null || score > scores[best]!) best = index;
	}
	return best;
}

export const selectorScoresOf = (evaluation: SituatedEval, selector: string) => evaluation.selectors.find((entry) => entry.id === selector)?.scores ?? null;

/** Every selector id present in these evaluations, sorted. */
export const selectorIds = (evals: readonly SituatedEval[]) => [...new Set(evals.flatMap((evaluation) => evaluation.selectors.map((selector) => selector.id)))].sort();

export type SelectorCalibration = Calibration & {readonly selector: string; readonly from: 'validation' | 'all'};

/**
 * The robust calibration of one reward model, fitted on its own raw scores (CRISP C.2 fits on a
 * validation set): on the validation-split items when they hold at least 8 scores, else on all.
 * Null when the model scored fewer than 4 answers (no quartiles to speak of).
 */
export function selectorCalibration(evals: readonly SituatedEval[], selector: string): SelectorCalibration | null {
	const scoresOf = (list: readonly SituatedEval[]) => list.flatMap((evaluation) => (selectorScoresOf(evaluation, selector) ?? []).filter((score): score is number => score !== null));
	const validation = scoresOf(evals.filter((evaluation) => evaluation.split === 'validation'));
	if (validation.length >= 8) return {...fitCalibration(validation), selector, from: 'validation'};
	const all = scoresOf(evals);
	return all.length >= 4 ? {...fitCalibration(all), selector, from: 'all'} : null;
}
