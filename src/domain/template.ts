import {z} from 'zod';

export const SlotName = z.string().regex(/^[A-Z][A-Z0-9_]*$/, 'slot names are UPPER_SNAKE_CASE');

export const Slot = z.strictObject({
	name: SlotName,
	meaning: z.string().min(3),
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

/** A template as listed and resolved, with its domain made explicit. */
export type ResolvedTemplate = Template & {domain: string; source: string};
