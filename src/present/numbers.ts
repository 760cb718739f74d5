import type {Estimate} from '../report/bootstrap.js';

/* How figures read in every table: two decimals, percentages as whole numbers, '–' for nothing. */

export const fixed = (value: number | null | undefined, digits = 2) => (value === null || value === undefined ? '–' : value.toFixed(digits));

/** "3.41 [3.20, 3.60]": a mean with its interval. */
export const withInterval = (estimate: Estimate | null) => (estimate ? `${fixed(estimate.mean)} [${fixed(estimate.lo)}, ${fixed(estimate.hi)}]` : '–');

/** "42%" for a share in [0, 1]. */
export const percent = (value: number | null | undefined) => (value === null || value === undefined ? '–' : `${Math.round(value * 100)}%`);

/** "42% [35, 49]": a share with its interval. */
export const percentWithInterval = (estimate: Estimate | null) => (estimate ? `${percent(estimate.mean)} [${Math.round(estimate.lo * 100)}, ${Math.round(estimate.hi * 100)}]` : '–');

/** "+0.12" / "-0.30": a difference, signed. */
export const signed = (value: number | null | undefined) => (value === null || value === undefined ? '–' : `${value >= 0 ? '+' : ''}${value.toFixed(2)}`);
