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

export type SelectorCalibration = Calibration & {readonly selector: string; readonly from: 'validation' | 'train'};

/** Fewest validation scores the calibration prefers (CRISP C.2), and the fewest it is fitted on at all. */
const CALIBRATION_MIN = 8;
const CALIBRATION_FLOOR = 4;

/**
 * The robust calibration of one reward model, fitted on its own raw scores of the validation-split
 * items (CRISP C.2). Never on test items: with fewer than 8 validation scores it uses the train split
 * (and says so through `from`); with fewer than 4 there, it refuses with the reason.
 */
export function selectorCalibration(evals: readonly SituatedEval[], selector: string): SelectorCalibration | {readonly selector: string; readonly reason: string} {
	const scoresOf = (list: readonly SituatedEval[]) => list.flatMap((evaluation) => (selectorScoresOf(evaluation, selector) ?? []).filter((score): score is number => score !== null));
	const validation = scoresOf(evals.filter((evaluation) => evaluation.split === 'validation'));
	if (validation.length >= CALIBRATION_MIN) return {...fitCalibration(validation), selector, from: 'validation'};
	const train = scoresOf(evals.filter((evaluation) => evaluation.split === 'train'));
	if (train.length >= CALIBRATION_FLOOR) return {...fitCalibration(train), selector, from: 'train'};
	return {selector, reason: `only ${validation.length} validation and ${train.length} train score(s) (${CALIBRATION_MIN} validation or ${CALIBRATION_FLOOR} train needed); test items are never used to calibrate`};
}
