import type {CulturalEntry, TabooEntry} from '../../domain/kb.js';

/**
 * Why a row was not imported. `invalid` rows are broken (malformed CSV, schema errors) and are
 * always listed one by one; `filtered` rows are fine but out of scope by design (another country, a
 * norm that states nothing to avoid); `duplicate` rows repeat an id or a norm already present.
 */
export type SkipKind = 'invalid' | 'filtered' | 'duplicate';

export type Skip = {
	file: string;
	line: number;
	kind: SkipKind;
	/** Stable short code to group by, e.g. "other-country", "schema", "no-region". */
	code: string;
	reason: string;
};

/** A converted row, not yet validated against the entry schema. */
export type Converted = {line: number; entry: Record<string, unknown>};

export type Conversion = {rows: number; converted: Converted[]; skips: Skip[]; notes: string[]};

export type ImportedEntry = CulturalEntry | TabooEntry;
