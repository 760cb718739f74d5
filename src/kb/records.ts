import type {CulturalEntry, EvidenceHit, Provenance, Severity, TabooEntry} from '../domain/kb.js';
import type {DomainId, RegionCode} from '../domain/universe.js';
import type {KbKind} from './sources.js';

/**
 * Vectra metadata holds scalars only, so list fields are stored twice: joined into one string to
 * rebuild the hit, and as one boolean key per value (`tag:religion:islam`, `for:my-tamil-hindu`)
 * so Vectra's own filter language can select on them.
 */
export type RecordMetadata = Record<string, string | number | boolean>;

export type IndexRecord = {
	readonly id: string;
	/** What the embedder sees. */
	readonly text: string;
	readonly metadata: RecordMetadata;
};

const JOIN = '|';

/**
 * Version of the metadata layout below. It is part of every region's content hash
 * (`regionContentHashes`), so indexes written with an older layout are rebuilt rather than read with
 * fields missing. v2 added `primary` and `subdomains`.
 */
export const RECORD_FORMAT = 2;

export const tagKey = (tag: string) => `tag:${tag}`;
export const appliesKey = (identityId: string) => `for:${identityId}`;

export function culturalRecord(entry: CulturalEntry): IndexRecord {
	const metadata: RecordMetadata = {
		id: entry.id,
		kind: 'cultural',
		regions: entry.regions.join(JOIN),
		// The region a passage is written about; the others are secondary (a contextual seed's friction).
		primary: entry.regions[0]!,
		domain: entry.domain,
		subdomains: (entry.subdomains ?? []).join(JOIN),
		title: entry.title,
		text: entry.text,
		source: entry.source,
		tags: entry.tags.join(JOIN),
	};
	for (const tag of entry.tags) metadata[tagKey(tag)] = true;
	if (entry.provenance) metadata['provenance'] = JSON.stringify(entry.provenance);
	return {id: entry.id, text: `${entry.title}. ${entry.text}`, metadata};
}

export function tabooRecord(entry: TabooEntry): IndexRecord {
	const tags = entry.tags ?? [];
	const metadata: RecordMetadata = {
		id: entry.id,
		kind: 'taboo',
		regions: entry.region,
		primary: entry.region,
		domain: entry.category,
		category: entry.category,
		subdomains: (entry.subdomains ?? []).join(JOIN),
		title: entry.action,
		text: entry.explanation,
		source: entry.source,
		severity: entry.severity,
		tags: tags.join(JOIN),
		identities: entry.identities.join(JOIN),
		// Region-wide taboos apply to every persona of the region; the others only to their identities.
		scope: entry.identities.length === 0 ? 'region' : 'identity',
	};
	for (const tag of tags) metadata[tagKey(tag)] = true;
	for (const identity of entry.identities) metadata[appliesKey(identity)] = true;
	if (entry.provenance) metadata['provenance'] = JSON.stringify(entry.provenance);
	return {id: entry.id, text: `${entry.action}. ${entry.explanation}`, metadata};
}

export function toRecord(kind: KbKind, entry: CulturalEntry | TabooEntry): IndexRecord {
	return kind === 'cultural' ? culturalRecord(entry as CulturalEntry) : tabooRecord(entry as TabooEntry);
}

const split = (value: unknown) => (typeof value === 'string' && value !== '' ? value.split(JOIN) : []);

/** Rebuilds an EvidenceHit from stored metadata; score and rank are set by the caller after re-ranking. */
export function hitFromMetadata(metadata: RecordMetadata, scores: {score: number; similarity: number; rank: number}): EvidenceHit {
	const kind = metadata['kind'] as KbKind;
	const hit: EvidenceHit = {
		id: String(metadata['id']),
		kind,
		regions: split(metadata['regions']) as RegionCode[],
		score: round(scores.score),
		similarity: round(scores.similarity),
		rank: scores.rank,
		source: String(metadata['source']),
		title: String(metadata['title']),
		text: String(metadata['text']),
		domain: metadata['domain'] as DomainId,
		tags: split(metadata['tags']),
	};
	const subdomains = split(metadata['subdomains']);
	if (subdomains.length > 0) hit.subdomains = subdomains;
	if (kind === 'taboo') {
		hit.identities = split(metadata['identities']);
		hit.severity = metadata['severity'] as Severity;
	}
	if (typeof metadata['provenance'] === 'string') hit.provenance = JSON.parse(metadata['provenance']) as Provenance;
	return hit;
}

/** Scores are kept to 4 decimals: enough to order hits, short enough to read in JSON. */
function round(value: number): number {
	return Math.round(value * 10_000) / 10_000;
}
