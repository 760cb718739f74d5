export type {Rating} from '../domain/ratings.js';

/*
 * Agreement statistics as pure functions. Each returns null when it is not defined (too few units, no
 * variance): never a kappa of 0 or an alpha of 1 that only rounding made.
 */

/** Below this expected disagreement (or variance) a statistic has nothing to divide by. */
const TINY = 1e-12;

const mean = (values: readonly number[]) => values.reduce((sum, value) => sum + value, 0) / values.length;

export function pearson(x: readonly number[], y: readonly number[]): number | null {
	if (x.length < 3) return null;
	const mx = mean(x);
	const my = mean(y);
	let sxy = 0;
	let sxx = 0;
	let syy = 0;
	for (let i = 0; i < x.length; i++) {
		sxy += (x[i]! - mx) * (y[i]! - my);
		sxx += (x[i]! - mx) ** 2;
		syy += (y[i]! - my) ** 2;
	}
	return sxx < TINY || syy < TINY ? null : sxy / Math.sqrt(sxx * syy);
}

/** Average ranks, ties sharing the mean of their positions. */
function ranks(values: readonly number[]): number[] {
	const order = values.map((value, index) => ({value, index})).sort((a, b) => a.value - b.value);
	const out = new Array<number>(values.length);
	for (let i = 0; i < order.length; ) {
		let j = i;
		while (j + 1 < order.length && order[j + 1]!.value === order[i]!.value) j++;
		for (let k = i; k <= j; k++) out[order[k]!.index] = (i + j) / 2 + 1;
		i = j + 1;
	}
	return out;
}

export function spearman(x: readonly number[], y: readonly number[]): number | null {
	return pearson(ranks(x), ranks(y));
}

/** Quadratic-weighted Cohen's kappa for two raters on the integer scale [min, max]. */
export function weightedKappa(a: readonly number[], b: readonly number[], min = 1, max = 5): number | null {
	return weightedKappaOf(a.map((x, i) => ({a: x, b: b[i]!, weight: 1})), min, max);
}

/**
 * The same over weighted pairs, so one item can sit half in two cells: a human mean of 2.5 is half a
 * 2 and half a 3, and no rounding rule favours the judge or the people.
 */
export function weightedKappaOf(pairs: ReadonlyArray<{readonly a: number; readonly b: number; readonly weight: number}>, min = 1, max = 5): number | null {
	const k = max - min + 1;
	const n = pairs.reduce((sum, pair) => sum + pair.weight, 0);
	// One unit cannot disagree with chance: kappa is not defined below two.
	if (n < 2) return null;
	const observed = Array.from({length: k}, () => new Array<number>(k).fill(0));
	const ra = new Array<number>(k).fill(0);
	const rb = new Array<number>(k).fill(0);
	for (const pair of pairs) {
		const x = pair.a - min;
		const y = pair.b - min;
		observed[x]![y]! += pair.weight;
		ra[x]! += pair.weight;
		rb[y]! += pair.weight;
	}
	// A rater who used one category only leaves nothing to agree beyond chance: kappa is not defined.
	if (ra.filter((w) => w > 0).length < 2 || rb.filter((w) => w > 0).length < 2) return null;
	let disagreeObserved = 0;
	let disagreeExpected = 0;
	for (let x = 0; x < k; x++) {
		for (let y = 0; y < k; y++) {
			const weight = ((x - y) / (k - 1)) ** 2;
			disagreeObserved += weight * observed[x]![y]!;
			disagreeExpected += (weight * ra[x]! * rb[y]!) / n;
		}
	}
	return disagreeExpected < TINY ? null : 1 - disagreeObserved / disagreeExpected;
}

/**
 * Krippendorff's alpha for interval data: 1 - observed / expected disagreement, over units that have
 * at least two values (a unit with one value cannot disagree with anything).
 */
export function krippendorffInterval(units: ReadonlyArray<readonly number[]>): number | null {
	const pairable = units.filter((values) => values.length >= 2);
	let n = 0;
	let total = 0;
	let squares = 0;
	let observed = 0;
	for (const values of pairable) {
		// Σ_{i≠j} (x_i − x_j)² = 2m·Σx² − 2(Σx)²: linear in the values, so a bootstrap can afford it.
		let sum = 0;
		let sq = 0;
		for (const value of values) {
			sum += value;
			sq += value * value;
		}
		observed += (2 * values.length * sq - 2 * sum * sum) / (values.length - 1);
		n += values.length;
		total += sum;
		squares += sq;
	}
	if (pairable.length < 2 || n < 4) return null;
	observed /= n;
	const expected = (2 * n * squares - 2 * total * total) / (n * (n - 1));
	return expected < TINY ? null : 1 - observed / expected;
}
