import {z} from 'zod';

/** A conversational-variety directive for the simulated user (paper Appendix I). */
export const Style = z.strictObject({
	id: z.string().regex(/^(?:opener|response)-\d{2}$/),
	name: z.string().min(3),
	directive: z.string().min(10),
	conflicts: z.array(z.string()).optional().describe('styles this one must not be blended with'),
});
export type Style = z.infer<typeof Style>;

export const StylesFile = z.strictObject({version: z.literal(1), styles: z.array(Style).min(2)});
