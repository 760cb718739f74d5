import type {RegionCode} from '../domain/universe.js';
import type {Universe} from '../universe/load.js';
import {normSplit} from './cultures.js';

/*
 * Records written before cultures became free labels (a norm had only a region code, a setting had
 * `expectations`, an evaluation a region and a judge-picked `chosen`) are read in today's shape, so
 * items and evaluations that cost model calls stay usable. Each function returns anything that is not
 * such a record unchanged, and the schema then judges it as usual.
 */

/** A region's name, for records of the first version, which carried only its code. */
export const regionNamer = (universe: Universe) => (code: RegionCode) => universe.regions.get(code)?.name ?? code;

type Json = Record<string, unknown>;
const isObject = (value: unknown): value is Json => typeof value === 'object' && value !== null && !Array.isArray(value);

/** A norm of the first version: {id, region, identities, text, type, source}. */
export function upgradeNorm(raw: unknown, regionName: (code: RegionCode) => string): unknown {
	if (!isObject(raw) || 'culture' in raw || typeof raw['region'] !== 'string') return raw;
	const region = raw['region'] as RegionCode;
	return {...raw, culture: regionName(region), country: region, region, category: raw['category'] ?? 'other'};
}

const NOT_RECORDED = '(not recorded: built before settings had this field)';

/** A setting of the first version had five fields; `expectations` is today's interpretive frame. */
export function upgradeChronotope(raw: unknown): unknown {
	if (!isObject(raw) || !('expectations' in raw) || 'frame' in raw) return raw;
	const {expectations, ...rest} = raw;
	return {...rest, frame: expectations, tension: NOT_RECORDED, activation: NOT_RECORDED, difference: NOT_RECORDED};
}

export function upgradeItem(raw: unknown, regionName: (code: RegionCode) => string): unknown {
	if (!isObject(raw)) return raw;
	return {...raw, norm: upgradeNorm(raw['norm'], regionName), chronotope: upgradeChronotope(raw['chronotope'])};
}

/**
 * An evaluation of the first version: a region, per-sample judge rewards and the judge's `chosen`
 * (which was the oracle's own pick, and is dropped: it is recomputed from the grades).
 */
export function upgradeEval(raw: unknown, regionName: (code: RegionCode) => string): unknown {
	if (!isObject(raw) || 'culture' in raw || typeof raw['region'] !== 'string') return raw;
	const {region, chosen: _chosen, samples, ...rest} = raw;
	const code = region as RegionCode;
	return {
		...rest,
		culture: regionName(code),
		country: code,
		region: code,
		split: normSplit(String(raw['normId'])),
		samples: Array.isArray(samples) ? samples.map((sample) => (isObject(sample) ? (({reward: _reward, ...kept}) => ({...kept, grounding: null}))(sample) : sample)) : samples,
		grounding: null,
		selectors: [],
	};
}
