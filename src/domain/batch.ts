import {z} from 'zod';
import {Split, Tier} from './seed.js';
import {AssistantKind, JudgeMode, LanguageMode, SessionStatus} from './session.js';

/** Which seeds a batch covers: the `seeds` filters, an optional deterministic sample, and trials. */
export const BatchSelection = z.strictObject({
	filter: z.strictObject({
		region: z.string().optional(),
		identity: z.string().optional(),
		domain: z.string().optional(),
		subdomain: z.string().optional(),
		tier: Tier.optional(),
		split: Split.optional(),
		personaId: z.string().optional(),
		templateId: z.string().optional(),
	}),
	seedFile: z.string().nullable().describe('a file of seed ids, one per line, instead of filters'),
	sample: z.number().int().positive().nullable().describe('how many seeds to draw from the selection (all when null)'),
	sampleSeed: z.string().describe('drawing is a stable hash order of the seed ids under this key'),
	/** Draw the sample equally from each stratum (the paper's balanced design); absent or null = a plain draw. */
	balance: z.enum(['identity', 'region', 'tier', 'domain']).nullable().optional(),
	trials: z.number().int().min(1).max(100).describe('episodes per seed: repeats show run-to-run noise'),
});
export type BatchSelection = z.infer<typeof BatchSelection>;

/** One way of running a seed: a language and a mode. */
export const BatchVariant = z.strictObject({language: LanguageMode, mode: z.enum(['eval', 'gold'])});
export type BatchVariant = z.infer<typeof BatchVariant>;

/** What every episode of the batch runs with; models are whatever the runtime resolves, recorded per session. */
export const BatchEpisodeConfig = z.strictObject({
	language: LanguageMode,
	mode: z.enum(['eval', 'gold']),
	assistant: AssistantKind,
	judgeMode: JudgeMode,
	maxTurns: z.number().int().min(1).max(20),
	bestOf: z.number().int().min(2).max(16).nullable().optional(),
	models: z.record(z.string(), z.string()).describe('role -> provider:model when the batch was planned'),
	/**
	 * Paired variants (`--lang english,native`, `--mode eval,gold`): every seed and trial runs once per
	 * variant, all from one blueprint and shard plan made by the first variant. Absent = one variant,
	 * the `language` and `mode` above.
	 */
	variants: z.array(BatchVariant).min(2).optional(),
});
export type BatchEpisodeConfig = z.infer<typeof BatchEpisodeConfig>;

export const BatchItemStatus = z.enum(['pending', ...SessionStatus.options]);
export type BatchItemStatus = z.infer<typeof BatchItemStatus>;

export const BatchItem = z.strictObject({
	key: z.string().describe('<seed id>#<trial>'),
	seedId: z.string(),
	trial: z.number().int().min(1),
	/** The item's variant in a paired batch (absent: the batch's own language and mode). */
	variant: BatchVariant.optional(),
	/** In a paired batch, the session of the seed's first variant, whose blueprint and shards this item runs from. */
	sharedFrom: z.string().regex(/^[A-Za-z0-9][A-Za-z0-9._-]{0,199}$/).optional(),
	/** A file name in the sessions folder: checked, so a manifest naming "../x" cannot write outside it. */
	sessionId: z.string().regex(/^[A-Za-z0-9][A-Za-z0-9._-]{0,199}$/, 'must be a safe session id (letters, digits, ".", "_" and "-")'),
	status: BatchItemStatus,
	threeH: z.number().nullable(),
	tdq: z.number().nullable(),
	clean: z.boolean().nullable(),
	errorFlag: z.string().nullable(),
	termination: z.string().nullable(),
	attempts: z.number().int().nonnegative().describe('how many times this item was started or resumed'),
	updatedAt: z.string().nullable(),
});
export type BatchItem = z.infer<typeof BatchItem>;

/**
 * A batch manifest (`<sessions>/batches/<name>.json`): the plan and where each item stands. The
 * sessions themselves are ordinary session files; the manifest only points at them, so `sessions`,
 * `replay` and the TUI see batch episodes like any other.
 */
export const BatchManifest = z.strictObject({
	format: z.literal('cultureconverse.batch'),
	version: z.literal(1),
	name: z.string().regex(/^[a-z0-9][a-z0-9_-]{0,47}$/i, 'must be a batch name (letters, digits, "-" and "_")'),
	createdAt: z.string(),
	updatedAt: z.string(),
	selection: BatchSelection,
	episode: BatchEpisodeConfig,
	items: z.array(BatchItem),
});
export type BatchManifest = z.infer<typeof BatchManifest>;
