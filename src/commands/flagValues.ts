import {REGION_CODES, type RegionCode} from '../domain/universe.js';
import {PAIR_FORMATS, type PairFormat} from '../export/pairFormats.js';
import {UserError} from '../util/errors.js';
import {unknownMessage} from '../util/suggest.js';
import type {Flags} from './types.js';

const kebab = (name: string) => name.replace(/[A-Z]/g, (letter) => `-${letter.toLowerCase()}`);

/**
 * A whole-number flag within [min, max] (no max: min or more). Absent, it is `fallback` (null when no
 * fallback is given); anything else is a UserError naming the flag as the user typed it.
 */
export function wholeFlag(flags: Flags, name: string, range: {readonly min: number; readonly max?: number}, fallback: number): number;
export function wholeFlag(flags: Flags, name: string, range: {readonly min: number; readonly max?: number}): number | null;
export function wholeFlag(flags: Flags, name: string, range: {readonly min: number; readonly max?: number}, fallback?: number): number | null {
	const value = flags[name];
	if (value === undefined) return fallback ?? null;
	const {min, max} = range;
	if (typeof value !== 'number' || !Number.isInteger(value) || value < min || (max !== undefined && value > max)) {
		throw new UserError(`--${kebab(name)} must be a whole number ${max === undefined ? `of ${min} or more` : `from ${min} to ${max}`}, got ${JSON.stringify(value)}.`);
	}
	return value;
}

/** A region code as typed (any case), checked against the ten regions, with near matches when unknown. */
export function regionCode(value: string): RegionCode {
	const region = value.trim().toUpperCase();
	if (!(REGION_CODES as readonly string[]).includes(region)) throw new UserError(unknownMessage('region', value, REGION_CODES));
	return region as RegionCode;
}

/** --format of the pair exports (`crisp pairs`, `export pairs`): trl unless given. */
export function pairFormat(flags: Flags): PairFormat {
	const value = flags['format'] ?? 'trl';
	if (typeof value !== 'string' || !(PAIR_FORMATS as readonly string[]).includes(value)) throw new UserError(unknownMessage('pair format', String(value), PAIR_FORMATS));
	return value as PairFormat;
}
