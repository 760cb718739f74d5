import type {Estimate} from '../report/bootstrap.js';

/*
 * How figures read in every table: two decimals, percentages as whole numbers, '–' for nothing, no
 * signed zeros (a value that rounds to zero prints as 0.00, never -0.00 or +0.00), and an interval
 * that cannot be made as "n/a" with its reason, never a zero-width [x, x].
 */

/** The value rounded to `digits`, with a negative zero made plain. */
const rounded = (value: number, digits: number) => {
	const text = value.toFixed(digits);
	return Number(text) === 0 ? (0).toFixed(digits) : text;
};

export const fixed = (value: number | null | undefined, digits = 2) => (value === null || value === undefined ? '–' : rounded(value, digits));

/** "[n/a: one seed]" or "[3.20, 3.60]": the bracket of an estimate. */
export const bracket = (estimate: Estimate, format: (value: number) => string) => (estimate.lo === null || estimate.hi === null ? `[n/a: ${estimate.na ?? 'not estimable'}]` : `[${format(estimate.lo)}, ${format(estimate.hi)}]`);

/** "3.41 [3.20, 3.60]": a mean with its interval. */
export const withInterval = (estimate: Estimate | null, digits = 2) => (estimate ? `${fixed(estimate.mean, digits)} ${bracket(estimate, (value) => fixed(value, digits))}` : '–');

/** "42%" for a share in [0, 1]. */
export const percent = (value: number | null | undefined) => (value === null || value === undefined ? '–' : `${Math.round(value * 100)}%`);

/** "42% [35, 49]": a share with its interval. */
export const percentWithInterval = (estimate: Estimate | null) => (estimate ? `${percent(estimate.mean)} ${bracket(estimate, (value) => String(Math.round(value * 100)))}` : '–');

/** "+0.12" / "-0.30" / "0.00": a difference, signed unless it rounds to zero. */
export const signed = (value: number | null | undefined, digits = 2) => {
	if (value === null || value === undefined) return '–';
	const text = rounded(value, digits);
	return Number(text) > 0 ? `+${text}` : text;
};

/** "+0.12 [-0.05, 0.30]": a difference with its interval. */
export const signedWithInterval = (estimate: Estimate | null, digits = 2) => (estimate ? `${signed(estimate.mean, digits)} ${bracket(estimate, (value) => fixed(value, digits))}` : '–');

/** "+5.3 [1.2, 9.0] pp": a difference of shares in percentage points. */
export const pointsWithInterval = (estimate: Estimate | null) => (estimate ? `${signed(estimate.mean * 100, 1)} ${bracket(estimate, (value) => fixed(value * 100, 1))}` : '–');

/** "0.003" or "<0.001": a p-value. */
export const pValue = (p: number | null | undefined) => (p === null || p === undefined ? '–' : p < 0.001 ? '<0.001' : p.toFixed(3));

/** The small-sample mark of a count: "8*" when the row rests on fewer than 10 units. */
export const counted = (count: number, small: boolean) => `${count}${small ? '*' : ''}`;
