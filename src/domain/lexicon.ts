import {z} from 'zod';
import {SlotKind} from './template.js';

/**
 * One filler of the curated lexicon (kb/lexicon/). `text` is the bare noun phrase; `det` is what goes in
 * front of it when the sentence gives no determiner of its own ("at {{VENUE}}" -> "at the community
 * hall", "their {{VENUE}}" -> "their community hall").
 */
export const LexiconEntry = z.strictObject({
	text: z.string().min(1),
	/** "a" becomes "an" before a vowel. @default 'none' */
	det: z.enum(['a', 'the', 'my', 'our', 'none']).default('none'),
	/** Words of a slot's name or meaning this filler suits; an entry without topics fits any slot of its kind. */
	topics: z.array(z.string().regex(/^[a-z-]+$/)).default([]),
	/** Persona tags of which one must be present ("religion:islam", "ethnicity:korean"). */
	tags: z.array(z.string()).optional(),
	/** Persona tags of which none may be present (a pork dish avoids "religion:islam"). */
	avoid: z.array(z.string()).optional(),
	/** Words the filler must follow ("within" for "three weeks" as a date); absent: any. */
	after: z.array(z.string()).optional(),
	/** The filler is plural ("sweets", "two aunts"). */
	plural: z.boolean().optional(),
});
export type LexiconEntry = z.infer<typeof LexiconEntry>;

export const LexiconFile = z.strictObject({
	version: z.literal(1),
	/** A region id of kb/universe/regions.json, or "common" for fillers that fit every region. */
	region: z.string(),
	/** ISO 4217 code of the region's currency, how the native opener names an amount. */
	currency: z.string().regex(/^[A-Z]{3}$/).optional(),
	entries: z.partialRecord(SlotKind, z.array(LexiconEntry)),
});
export type LexiconFile = z.infer<typeof LexiconFile>;

/**
 * Words that belong to one faith, community or region's rites (kb/lexicon/rites.json). A persona that has
 * none of a tradition's `owners` does not keep that tradition's rites as its own; personaFit.ts reads it.
 */
export const RiteTradition = z.strictObject({
	id: z.string(),
	/** Persona tags ("religion:islam") or regions ("region:KR") any of which makes the rites the persona's own. */
	owners: z.array(z.string()).min(1),
	/** Lower-case words and phrases, matched as whole words. */
	words: z.array(z.string()).min(1),
});
export const RiteTable = z.strictObject({
	version: z.literal(1),
	traditions: z.array(RiteTradition),
	/** Foods a faith forbids its own: a persona of `owners` eating or serving them as its own is a contradiction. */
	diets: z.array(z.strictObject({id: z.string(), owners: z.array(z.string()).min(1), words: z.array(z.string()).min(1)})),
});
export type RiteTable = z.infer<typeof RiteTable>;
