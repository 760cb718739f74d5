import {z} from 'zod';

/** Challenge tier (paper section 3.3): baseline help, cross-cultural friction, taboo/safety trap. */
export const Tier = z.enum(['standard', 'contextual', 'normative']);
export type Tier = z.infer<typeof Tier>;
export const Split = z.enum(['train', 'test']);
export type Split = z.infer<typeof Split>;

/** A seed s = (persona, template, tier, split), paper equation (1). */
export const Seed = z.strictObject({
	id: z.string().describe('<persona id>:<template id>'),
	personaId: z.string(),
	templateId: z.string(),
	tier: Tier,
	split: Split,
});
export type Seed = z.infer<typeof Seed>;
