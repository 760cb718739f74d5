import type {BatchItem, BatchItemStatus, BatchManifest} from '../domain/batch.js';

export type ScoreStats = {readonly n: number; readonly mean: number | null; readonly sd: number | null};

export type BatchSummary = {
	readonly name: string;
	readonly planned: number;
	readonly byStatus: Record<BatchItemStatus, number>;
	/** Over completed items only: errors are never scored as zeros. */
	readonly threeH: ScoreStats;
	readonly tdq: ScoreStats;
	readonly cleanRate: number | null;
	readonly errors: Record<string, number>;
	readonly terminations: Record<string, number>;
	/**
	 * A paired batch's figures per variant ("english/eval", "native/gold", ...): the batch-wide figures
	 * above pool the variants, which are different set-ups. Absent for a batch of one variant.
	 */
	readonly byVariant?: ReadonlyArray<{readonly variant: string; readonly completed: number; readonly threeH: ScoreStats; readonly tdq: ScoreStats; readonly cleanRate: number | null}>;
};

export function scoreStats(values: readonly number[]): ScoreStats {
	if (values.length === 0) return {n: 0, mean: null, sd: null};
	const mean = values.reduce((sum, value) => sum + value, 0) / values.length;
	const sd = values.length > 1 ? Math.sqrt(values.reduce((sum, value) => sum + (value - mean) ** 2, 0) / (values.length - 1)) : null;
	return {n: values.length, mean, sd};
}

/** How often each value occurs. */
export const tally = (values: readonly string[]) => values.reduce<Record<string, number>>((out, value) => ((out[value] = (out[value] ?? 0) + 1), out), {});

/** Where a batch stands, from its manifest alone (pure: the same manifest gives the same summary). */
export function summarizeBatch(manifest: BatchManifest): BatchSummary {
	const byStatus: Record<BatchItemStatus, number> = {pending: 0, running: 0, awaiting_assistant: 0, completed: 0, error: 0};
	for (const item of manifest.items) byStatus[item.status]++;
	const completed = manifest.items.filter((item) => item.status === 'completed');
	const scored = (items: readonly BatchItem[], pick: (item: BatchItem) => number | null) => items.map(pick).filter((value): value is number => value !== null);
	const cleanRate = (items: readonly BatchItem[]) => {
		const known = items.filter((item) => item.clean !== null);
		return known.length > 0 ? known.filter((item) => item.clean).length / known.length : null;
	};
	const variants = manifest.episode.variants;
	return {
		...(variants
			? {
					byVariant: variants.map(({language, mode}) => {
						const mine = completed.filter((item) => item.variant?.language === language && item.variant.mode === mode);
						return {variant: `${language}/${mode}`, completed: mine.length, threeH: scoreStats(scored(mine, (item) => item.threeH)), tdq: scoreStats(scored(mine, (item) => item.tdq)), cleanRate: cleanRate(mine)};
					}),
				}
			: {}),
		name: manifest.name,
		planned: manifest.items.length,
		byStatus,
		threeH: scoreStats(scored(completed, (item) => item.threeH)),
		tdq: scoreStats(scored(completed, (item) => item.tdq)),
		cleanRate: cleanRate(completed),
		errors: tally(manifest.items.filter((item) => item.status === 'error').map((item) => item.errorFlag ?? 'unknown')),
		terminations: tally(completed.map((item) => item.termination ?? 'unknown')),
	};
}
