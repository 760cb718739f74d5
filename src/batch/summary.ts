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
	const scored = (pick: (item: BatchItem) => number | null) => completed.map(pick).filter((value): value is number => value !== null);
	const clean = completed.filter((item) => item.clean !== null);
	return {
		name: manifest.name,
		planned: manifest.items.length,
		byStatus,
		threeH: scoreStats(scored((item) => item.threeH)),
		tdq: scoreStats(scored((item) => item.tdq)),
		cleanRate: clean.length > 0 ? clean.filter((item) => item.clean).length / clean.length : null,
		errors: tally(manifest.items.filter((item) => item.status === 'error').map((item) => item.errorFlag ?? 'unknown')),
		terminations: tally(completed.map((item) => item.termination ?? 'unknown')),
	};
}
