import {z} from 'zod';

/** One turn-level phase q_i of the interaction plan (paper equation 3). */
export const Shard = z.strictObject({
	title: z.string().min(3),
	goal: z.string().min(10).describe('what the user wants out of this phase'),
	signifiers: z.array(z.string()).describe('cultural details the user lets slip in this phase'),
	disclose: z.array(z.string()).describe('hidden constraints revealed in this phase, if the assistant gives occasion'),
	directives: z.strictObject({
		english: z.string().min(5).describe('how to speak in English mode'),
		native: z.string().min(5).describe('how to speak in native-language mode'),
	}),
	successCondition: z.string().min(10).describe('what the assistant must do for the user to move on'),
	failureCondition: z.string().min(10).describe('what counts as failing this phase'),
});
export type Shard = z.infer<typeof Shard>;

export const ShardPlan = z.strictObject({shards: z.array(Shard).min(3).max(5)});
export type ShardPlan = z.infer<typeof ShardPlan>;

export const ShardAudit = z.strictObject({
	plausible: z.boolean(),
	answerable: z.boolean(),
	tierChallengePresent: z.boolean(),
	progressiveDisclosure: z.boolean().describe('constraints are spread over phases, not front-loaded'),
	problems: z.array(z.string()),
});
export type ShardAudit = z.infer<typeof ShardAudit>;
