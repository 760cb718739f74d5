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
		/** Passages naming a specific public source (the rest say `curated`). */
		namedSource: number;
		/** Imported passages by the dataset their provenance names (e.g. `wikipedia-jsonl`). */
		byDataset: Record<string, number>;
	};
	taboo: {
		total: number;
		byRegion: Counts<RegionCode>;
		byCategory: Counts<DomainId>;
		byRegionCategory: Record<RegionCode, Counts<DomainId>>;
		bySeverity: Counts<Severity>;
		/** Entries that apply to listed identities only (the rest are region-wide). */
		identitySpecific: number;
		/** Entries naming a specific public source (the rest say `curated`). */
		namedSource: number;
		/** Imported entries by the dataset their provenance names (e.g. `NormAd-Eti`). */
		byDataset: Record<string, number>;
	};
	/** Entries per source file, shipped files first. */
	byFile: Record<string, number>;
};

/** The `source` of an entry written for this project with no single public reference (kb/README.md). */
const CURATED = 'curated';

const zeros = <K extends string>(keys: readonly K[]) => Object.fromEntries(keys.map((key) => [key, 0])) as Counts<K>;

export function countSources(sources: Pick<KbSources, 'cultural' | 'taboo'>): KbCounts {
	const byRegionDomain = Object.fromEntries(REGION_CODES.map((region) => [region, zeros(DOMAIN_IDS)])) as Record<RegionCode, Counts<DomainId>>;
	const byRegionCategory = Object.fromEntries(REGION_CODES.map((region) => [region, zeros(DOMAIN_IDS)])) as Record<RegionCode, Counts<DomainId>>;
	const counts: KbCounts = {
		cultural: {total: sources.cultural.length, byRegion: zeros(REGION_CODES), byDomain: zeros(DOMAIN_IDS), byRegionDomain, namedSource: 0, byDataset: {}},
		taboo: {total: sources.taboo.length, byRegion: zeros(REGION_CODES), byCategory: zeros(DOMAIN_IDS), byRegionCategory, bySeverity: zeros(['low', 'medium', 'high', 'critical'] as const), identitySpecific: 0, namedSource: 0, byDataset: {}},
		byFile: {},
	};
	for (const {entry, file} of sources.cultural) {
		counts.cultural.byDomain[entry.domain]++;
		if (entry.source !== CURATED) counts.cultural.namedSource++;
		if (entry.provenance) counts.cultural.byDataset[entry.provenance.dataset] = (counts.cultural.byDataset[entry.provenance.dataset] ?? 0) + 1;
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
		if (entry.source !== CURATED) counts.taboo.namedSource++;
		if (entry.provenance) counts.taboo.byDataset[entry.provenance.dataset] = (counts.taboo.byDataset[entry.provenance.dataset] ?? 0) + 1;
		counts.byFile[file] = (counts.byFile[file] ?? 0) + 1;
	}
	return counts;
}

/**
 * The knowledge bases of the CultureConverse paper (section 3.5, /work/shared/seeds/000_*): a cultural
 * KB of 180,992 region-tagged Wikipedia passages, a taboo KB of 962 source-attributed entries of which
 * 103 come from NormAd, and 420 templates (10 per subdomain).
 */
export const PAPER_KB = {wikipediaPassages: 180_992, taboo: 962, tabooFromNormad: 103, templates: 420} as const;

export type PaperComparison = {
	paper: typeof PAPER_KB;
	ours: {culturalPassages: number; wikipediaPassages: number; taboo: number; tabooFromNormad: number; templates: number};
	/** Our count as a share of the paper's (1 = the same size). */
	share: {cultural: number; taboo: number; templates: number};
};

/** How this KB's sizes compare with the paper's (shipped sources plus the user's imports). */
export function comparePaper(counts: KbCounts, templates: number): PaperComparison {
	const round = (x: number) => Math.round(x * 1000) / 1000;
	const ours = {
		culturalPassages: counts.cultural.total,
		wikipediaPassages: counts.cultural.byDataset['wikipedia-jsonl'] ?? 0,
		taboo: counts.taboo.total,
		tabooFromNormad: counts.taboo.byDataset['NormAd-Eti'] ?? 0,
		templates,
	};
	return {paper: PAPER_KB, ours, share: {cultural: round(ours.culturalPassages / PAPER_KB.wikipediaPassages), taboo: round(ours.taboo / PAPER_KB.taboo), templates: round(templates / PAPER_KB.templates)}};
}
