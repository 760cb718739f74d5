/*
 * Reward calibration (CRISP appendix C.2): a raw reward is centred on the median of a validation set,
 * divided by a robust scale (IQR / 1.349, the standard deviation of a normal with that IQR), clipped to
 * [-20, 20] and squashed by the logistic function into (0, 1). Norm grounding is added with weight λ.
 */

export type Calibration = {readonly median: number; readonly scale: number; readonly n: number};

/** Invalid answers get this fixed reward, below anything a valid answer can reach (as in the paper). */
export const INVALID_REWARD = -5;

/** Quantile by linear interpolation between order statistics (type 7, numpy's default). */
export function quantile(sorted: readonly number[], q: number): number {
	if (sorted.length === 0) throw new Error('quantile of an empty list');
	const at = (sorted.length - 1) * q;
	const lo = Math.floor(at);
	const hi = Math.ceil(at);
	return sorted[lo]! + (sorted[hi]! - sorted[lo]!) * (at - lo);
}

/**
 * Fits median and robust scale on validation rewards. A set whose middle half is one value has no
 * spread to divide by; the scale then falls back to 1 (rewards become shifted raw differences) rather
 * than dividing by zero.
 */
export function fitCalibration(values: readonly number[]): Calibration {
	const finite = values.filter((value) => Number.isFinite(value));
	if (finite.length === 0) throw new Error('cannot calibrate on no rewards');
	const sorted = [...finite].sort((a, b) => a - b);
	const iqr = quantile(sorted, 0.75) - quantile(sorted, 0.25);
	return {median: quantile(sorted, 0.5), scale: iqr > 0 ? iqr / 1.349 : 1, n: sorted.length};
}

export function calibrate(raw: number, calibration: Calibration): number {
	const z = Math.min(20, Math.max(-20, (raw - calibration.median) / calibration.scale));
	return 1 / (1 + Math.exp(-z));
}

/** λ, the weight of norm grounding in r_total = r̃_RM + λ·r_NGS: CRISP's figure 6 finds 0.1-0.2 best. */
export const DEFAULT_LAMBDA = 0.15;

/**
 * The training reward of one valid answer: its calibrated reward-model score plus λ times its norm
 * grounding probability (CRISP C.2); without a grounding source the second term is 0.
 */
export function totalReward(raw: number, grounding: number | null, options: {readonly lambda: number; readonly calibration: Calibration}): number {
	return calibrate(raw, options.calibration) + options.lambda * (grounding ?? 0);
}
