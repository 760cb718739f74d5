import {z} from 'zod';

export const SlotName = z.string().regex(/^[A-Z][A-Z0-9_]*$/, 'slot names are UPPER_SNAKE_CASE');

/**
 * What kind of value fills a slot. The generator writes the value to fit it, and the offline mock fills
 * each kind from the curated lexicon (kb/lexicon/), so a date slot never receives a rite's name.
 */
export const SlotKind = z.enum(['relation', 'duration', 'date', 'amount', 'count', 'venue', 'dish', 'garment', 'ritual', 'object', 'title', 'free']);
export type SlotKind = z.infer<typeof SlotKind>;

/** One line per kind, for prompts and error messages: what a value of that kind looks like. */
export const SLOT_KIND_HELP: Readonly<Record<SlotKind, string>> = {
	relation: 'a person by their tie to the speaker ("my mother-in-law", "a senior colleague")',
	duration: 'a length of time ("two weeks", "10 days")',
	date: 'a point in time ("next Saturday", "the end of the month")',
	amount: 'a sum of money or a budget ("about 300 dollars", "a tight budget")',
	count: 'how many ("about 20 guests", "a dozen people")',
	venue: 'a place ("the community hall", "my grandmother\'s house")',
	dish: 'a dish or an ingredient ("a slow-cooked beef curry", "glutinous rice")',
	garment: 'clothing ("a long-sleeved blouse", "a plain dark suit")',
	ritual: 'a rite, ceremony, festival or occasion ("the naming ceremony", "a wedding reception")',
	object: 'a thing: a gift, an item, a document ("a box of fruit", "the marriage certificate")',
	title: 'a form of address or a work title ("the department head", "auntie")',
	free: 'anything else, written as a short noun phrase that fits the sentence',
};

export const Slot = z.strictObject({
	name: SlotName,
	meaning: z.string().min(3),
	kind: SlotKind,
	/** The value is a countable noun (a dish, not "rice"); reads after "a"/"an". */
	countable: z.boolean().optional(),
	/** The value is plural ("sweets", "two aunts"): verbs after it agree. */
	plural: z.boolean().optional(),
	/** The value names a person (a relation or a title): "their {{X}}" reads "my X". */
	person: z.boolean().optional(),
});
export type Slot = z.infer<typeof Slot>;

/**
 * A culture-agnostic scenario sketch (paper section 3.3). Culture-specific details are filled into its
 * `{{SLOT}}` placeholders by the blueprint stage, from the persona and retrieved KB evidence.
 */
export const Template = z.strictObject({
	id: z.string().regex(/^[a-z]+\.[a-z0-9-]+\.[a-z0-9-]+$/, 'must look like "<subdomain id>.<nn>"'),
	subdomain: z.string(),
	title: z.string().min(3),
	sketch: z.string().min(20),
	ask: z.string().min(10),
	slots: z.array(Slot).min(1),
	dimensions: z.array(z.string()).min(1).max(4),
});
export type Template = z.infer<typeof Template>;

export const TemplatesFile = z.strictObject({
	version: z.literal(1),
	templates: z.array(Template),
});

/**
 * A user's templates file as read: files written before slots had kinds (`templates generate` of an
 * older version) get `kind: "free"` on every slot without one, which is how such slots were filled
 * then; the shipped files are read with `TemplatesFile` and must type every slot.
 */
export const UserTemplatesFile = z.preprocess((raw) => {
	if (!raw || typeof raw !== 'object' || !Array.isArray((raw as {templates?: unknown}).templates)) return raw;
	const file = raw as {templates: unknown[]};
	return {
		...file,
		templates: file.templates.map((template) => {
			if (!template || typeof template !== 'object' || !Array.isArray((template as {slots?: unknown}).slots)) return template;
			const slots = (template as {slots: unknown[]}).slots.map((slot) => (slot && typeof slot === 'object' && !('kind' in slot) ? {...slot, kind: 'free'} : slot));
			return {...template, slots};
		}),
	};
}, TemplatesFile);

/** A template as listed and resolved, with its domain made explicit. */
export type ResolvedTemplate = Template & {domain: string; source: string};
