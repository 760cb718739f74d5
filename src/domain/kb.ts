import {z} from 'zod';
import {DomainId, RegionCode, Tag} from './universe.js';

export const Severity = z.enum(['low', 'medium', 'high', 'critical']);
export type Severity = z.infer<typeof Severity>;

/** Where an entry came from when it was imported rather than written for the shipped KB. */
export const Provenance = z.strictObject({
	dataset: z.string().describe('e.g. "NormAd-Eti" or "wikipedia-jsonl"'),
	file: z.string(),
	line: z.number().int().positive(),
	ref: z.string().optional().describe('row id, article title or URL given by the source file'),
	license: z.string().optional(),
});
export type Provenance = z.infer<typeof Provenance>;

/** A cultural KB passage (paper section 3.5, K_W): broad local context for grounding a blueprint. */
export const CulturalEntry = z.strictObject({
	id: z.string().regex(/^[a-z0-9][a-z0-9._-]*$/),
	regions: z.array(RegionCode).min(1),
	tags: z.array(Tag),
	domain: DomainId,
	/** Subdomain ids (e.g. "culinary.dietary-rules") the passage is about; retrieval uses them as a topical prior. */
	subdomains: z.array(z.string()).optional(),
	title: z.string().min(3),
	text: z.string().min(20).max(20_000, 'a passage may have at most 20,000 characters (split longer texts: `kb import --format wikipedia` chunks articles)'),
	source: z.string().min(3),
	provenance: Provenance.optional(),
});
export type CulturalEntry = z.infer<typeof CulturalEntry>;

/** A taboo KB entry (paper Appendix D, K_T): a strict, normalised constraint for normative traps. */
export const TabooEntry = z.strictObject({
	id: z.string().regex(/^[a-z0-9][a-z0-9._-]*$/),
	region: RegionCode,
	identities: z.array(z.string()).describe('identity ids it applies to; empty = region-wide'),
	category: DomainId,
	/** Subdomain ids of the category the entry bears on (e.g. "ritual.death-mourning"); a topical prior for retrieval. */
	subdomains: z.array(z.string()).optional(),
	action: z.string().min(5).max(1000, 'an action may have at most 1,000 characters'),
	explanation: z.string().min(10).max(5000, 'an explanation may have at most 5,000 characters'),
	severity: Severity,
	source: z.string().min(3),
	tags: z.array(Tag).optional(),
	provenance: Provenance.optional(),
});
export type TabooEntry = z.infer<typeof TabooEntry>;

export const EvidenceKind = z.enum(['cultural', 'taboo']);
export type EvidenceKind = z.infer<typeof EvidenceKind>;

/** One retrieved KB entry with its provenance, as the blueprint stage receives it. */
export const EvidenceHit = z.strictObject({
	id: z.string(),
	kind: EvidenceKind,
	regions: z.array(RegionCode),
	/** Final score after re-ranking (higher is better). */
	score: z.number(),
	/** Raw similarity from the index before re-ranking. */
	similarity: z.number(),
	rank: z.number().int().positive(),
	source: z.string(),
	/** Cultural: the passage title. Taboo: the action to avoid. */
	title: z.string(),
	/** Cultural: the passage text. Taboo: the explanation. */
	text: z.string(),
	domain: DomainId,
	/** Subdomain ids the entry is about, when its source names them. */
	subdomains: z.array(z.string()).optional(),
	tags: z.array(z.string()),
	identities: z.array(z.string()).optional(),
	severity: Severity.optional(),
	provenance: Provenance.optional(),
});
export type EvidenceHit = z.infer<typeof EvidenceHit>;

/** K_W(s) and K_T(s) for one seed, with the queries that produced them. */
export const Evidence = z.strictObject({
	cultural: z.array(EvidenceHit),
	taboo: z.array(EvidenceHit),
	queries: z.strictObject({cultural: z.string(), taboo: z.string().nullable()}),
	/** The second culture of a contextual (cross-cultural) seed. */
	secondaryRegion: RegionCode.nullable(),
	embedder: z.string().describe('embedder id the index was built with, e.g. "hash:v1:384"'),
});
export type Evidence = z.infer<typeof Evidence>;
