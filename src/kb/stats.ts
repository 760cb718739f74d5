import type {Severity} from '../domain/kb.js';
import {DOMAIN_IDS, type DomainId, REGION_CODES, type RegionCode} from '../domain/universe.js';
import type {KbSources} from './sources.js';

type Counts<K extends string> = Record<K, number>;

/** Entry counts of the KB sources. `byRegion` counts an entry under every region it is tagged with. */
export type KbCounts = {
	cultural: {
		/** Unique passages. */
		total: number;
		byRegion: Counts<RegionCode>;
		byDomain: Counts<DomainId>;
		byRegionDomain: Record<RegionCode, Counts<DomainId>>;
	};
	taboo: {
		total: number;
		byRegion: Counts<RegionCode>;
		byCategory: Counts<DomainId>;
		byRegionCategory: Record<RegionCode, Counts<DomainId>>;
		bySeverity: Counts<Severity>;
		/** Entries that apply to listed identities only (the rest are region-wide). */
		identitySpecific: number;
	};
	/** Entries per source file, shipped files first. */
	byFile: Record<string, number>;
};

const zeros = <K extends string>(keys: readonly K[]) => Object.fromEntries(keys.map((key) => [key, 0])) as Counts<K>;

export function countSources(sources: Pick<KbSources, 'cultural' | 'taboo'>): KbCounts {
	const byRegionDomain = Object.fromEntries(REGION_CODES.map((region) => [region, zeros(DOMAIN_IDS)])) as Record<RegionCode, Counts<DomainId>>;
	const byRegionCategory = Object.fromEntries(REGION_CODES.map((region) => [region, zeros(DOMAIN_IDS)])) as Record<RegionCode, Counts<DomainId>>;
	const counts: KbCounts = {
		cultural: {total: sources.cultural.length, byRegion: zeros(REGION_CODES), byDomain: zeros(DOMAIN_IDS), byRegionDomain},
		taboo: {total: sources.taboo.length, byRegion: zeros(REGION_CODES), byCategory: zeros(DOMAIN_IDS), byRegionCategory, bySeverity: zeros(['low', 'medium', 'high', 'critical'] as const), identitySpecific: 0},
		byFile: {},
	};
	for (const {entry, file} of sources.cultural) {
		counts.cultural.byDomain[entry.domain]++;
		for (const region of entry.regions) {
			counts.cultural.byRegion[region]++;
			counts.cultural.byRegionDomain[region][entry.domain]++;
		}
		counts.byFile[file] = (counts.byFile[file] ?? 0) + 1;
	}
	for (const {entry, file} of sources.taboo) {
		counts.taboo.byRegion[entry.region]++;
		counts.taboo.byCategory[entry.category]++;
		counts.taboo.byRegionCategory[entry.region][entry.category]++;
		counts.taboo.bySeverity[entry.severity]++;
		if (entry.identities.length > 0) counts.taboo.identitySpecific++;
		counts.byFile[file] = (counts.byFile[file] ?? 0) + 1;
	}
	return counts;
}
