import type {BatchEvent} from '../batch/runner.js';
import {type BatchSummary, tally} from '../batch/summary.js';
import type {BatchManifest, BatchSelection} from '../domain/batch.js';
import type {CallRecord} from '../domain/session.js';
import type {Streams} from '../util/streams.js';
import type {UsageTally} from '../llm/usage.js';
import type {Seed} from '../domain/seed.js';
import type {LiveLine} from './liveLine.js';
import {forTerminal, jsonText} from '../util/outsideText.js';

/* What `batch` prints: run figures, the summary, progress, the plan of a dry run. */

/**
 * What a batch run cost and how fast it went. `retries` are HTTP attempts after the first (429s, 5xx,
 * timeouts); `reasks` are re-asks after an invalid structured reply; `episodesPerHour` counts episodes
 * that completed in this run only (never errors), so a run where everything failed has none.
 */
export type RunFigures = {calls: number; failedCalls: number; retries: number; reasks: number; tokens: number; tokensEstimated: boolean; costUsd: number; costEstimatedUsd: number; unpricedCalls: number; wallSeconds: number; completed: number; episodesPerHour: number | null};

export function runFigures(usage: UsageTally, wallMs: number, completed: number): RunFigures {
	return {
		calls: usage.calls,
		failedCalls: usage.failed,
		retries: usage.attempts - usage.calls - usage.reasks,
		reasks: usage.reasks,
		tokens: usage.tokens.total,
		tokensEstimated: usage.estimatedCalls > 0,
		costUsd: Math.round(usage.usd * 10_000) / 10_000,
		costEstimatedUsd: Math.round(usage.estimatedUsd * 10_000) / 10_000,
		unpricedCalls: usage.unpriced,
		completed,
		wallSeconds: Math.round(wallMs / 100) / 10,
		episodesPerHour: wallMs > 0 && completed > 0 ? Math.round((completed / wallMs) * 3_600_000) : null,
	};
}

export const stat = (value: number | null, digits = 2) => (value === null ? '–' : value.toFixed(digits));

export function summaryText(summary: BatchSummary, run?: RunFigures): string {
	const s = summary.byStatus;
	const clean = (rate: number | null) => (rate === null ? '–' : `${(rate * 100).toFixed(1)}%`);
	const lines = [`Batch ${summary.name}: ${s.completed}/${summary.planned} completed, ${s.error} error, ${s.pending + s.running + s.awaiting_assistant} unfinished`];
	if (summary.byVariant) {
		// Variants are different set-ups: never one pooled mean (`report paired` gives the per-seed deltas).
		lines.push('  per variant (completed episodes; mean ± sd):');
		for (const row of summary.byVariant) lines.push(`    ${row.variant.padEnd(15)} n=${String(row.completed).padEnd(5)} 3H ${stat(row.threeH.mean)} ± ${stat(row.threeH.sd)}  TDQ ${stat(row.tdq.mean)} ± ${stat(row.tdq.sd)}  clean ${clean(row.cleanRate)}`);
		lines.push(`  paired deltas per seed: npx cultureconverse report paired --batch ${summary.name} --by language${summary.byVariant.some((row) => row.variant.endsWith('/gold')) ? ' (or --by mode)' : ''}`);
	} else {
		lines.push(
			`  3H   ${stat(summary.threeH.mean)} ± ${stat(summary.threeH.sd)} (sd, n=${summary.threeH.n})`,
			`  TDQ  ${stat(summary.tdq.mean)} ± ${stat(summary.tdq.sd)} (sd, n=${summary.tdq.n})`,
			`  clean ${clean(summary.cleanRate)} of completed episodes`,
		);
	}
	if (Object.keys(summary.terminations).length > 0) lines.push(`  endings: ${Object.entries(summary.terminations).map(([reason, n]) => `${reason} ${n}`).join(', ')}`);
	if (Object.keys(summary.errors).length > 0) lines.push(`  errors (not scored): ${Object.entries(summary.errors).map(([flag, n]) => `${flag} ${n}`).join(', ')}`);
	if (run) {
		const cost = `${run.tokensEstimated ? '~' : ''}$${run.costUsd}${run.costEstimatedUsd > 0 ? ` (~$${run.costEstimatedUsd} of it from locally counted tokens)` : ''}${run.unpricedCalls > 0 ? ` (+${run.unpricedCalls} unpriced)` : ''}`;
		const speed = run.episodesPerHour === null ? ', no episode completed' : `, ${run.episodesPerHour} completed episodes/hour`;
		lines.push(`  this run: ${run.calls} call(s), ${run.retries} retries, ${run.reasks} re-asks, ${run.tokens} tokens${run.tokensEstimated ? ' (some estimated)' : ''}, ${cost}, ${run.wallSeconds} s${speed}`);
	}
	return lines.join('\n');
}

/**
 * Progress on stderr: one rewritten line on a terminal, one line per finished item otherwise; JSON
 * lines with --jsonl. Every figure comes from the event's running counts (the manifest is never
 * re-read or re-summarised per event, which made long batches quadratic).
 */
export function progressPrinter(io: Streams, liveLine: LiveLine, mode: 'text' | 'json' | 'jsonl', name: string, width: () => {limit: number; max: number}): ((event: BatchEvent) => void) & {done(): void} {
	const live = mode === 'text' && liveLine.enabled;
	let retries = 0;
	const print = (event: BatchEvent) => {
		if (event.type === 'call_retried') retries++;
		// The command says what will run (its own header line); nothing to print per item here.
		if (event.type === 'planned') return;
		if (event.type === 'notice') {
			if (mode === 'jsonl') io.stdout.write(`${jsonText(event)}\n`);
			else io.stderr.write(`cultureconverse: ${forTerminal(event.message)}\n`);
			return;
		}
		if (mode === 'jsonl') {
			if (event.type === 'item_finished') io.stdout.write(`${jsonText({type: event.type, ...event.item})}\n`);
			else if (event.type === 'item_failed') io.stdout.write(`${jsonText({type: event.type, message: event.message, ...event.item})}\n`);
			return;
		}
		if (mode !== 'text' || event.type === 'call_retried') return;
		const {byStatus, total, meanThreeH, done} = event.progress;
		if (live) {
			const {limit, max} = width();
			liveLine.set(`batch ${name}: ${done}/${total} done (${byStatus.error} error) · ${byStatus.running} running · 3H ${stat(meanThreeH)} · ${retries} retries${limit < max ? ` · rate-limited: ${limit}/${max} calls in flight` : ''}`);
			return;
		}
		if (event.type === 'item_finished') {
			const item = event.item;
			io.stderr.write(`[${done}/${total}] ${item.errorFlag ?? item.status} ${item.seedId}${item.trial > 1 ? ` #${item.trial}` : ''} · 3H ${stat(item.threeH)} TDQ ${stat(item.tdq)} clean ${item.clean === null ? '–' : item.clean ? 'yes' : 'no'} · ${item.sessionId}\n`);
		} else if (event.type === 'item_failed') {
			io.stderr.write(`[${done}/${total}] could not run ${event.item.seedId}: ${forTerminal(event.message)}\n`);
		}
	};
	return Object.assign(print, {done: () => liveLine.end()});
}

export function describeSelection(selection: BatchSelection): string {
	const parts = Object.entries(selection.filter).map(([key, value]) => `${key} ${String(value)}`);
	if (selection.seedFile) parts.push(`seed file ${selection.seedFile}`);
	if (selection.sample !== null) parts.push(`sample ${selection.sample} (key ${selection.sampleSeed})${selection.balance ? `, balanced by ${selection.balance}` : ''}`);
	if (selection.trials > 1) parts.push(`${selection.trials} trials`);
	return parts.join(', ') || 'all seeds';
}

/** "english / eval", or the paired variants: "english+native / eval (paired: one blueprint per seed)". */
export function describeVariants(episode: BatchManifest['episode']): string {
	if (!episode.variants) return `${episode.language} / ${episode.mode}`;
	const languages = [...new Set(episode.variants.map((variant) => variant.language))].join('+');
	const modes = [...new Set(episode.variants.map((variant) => variant.mode))].join('+');
	return `${languages} / ${modes} (paired: each seed's variants share one blueprint and shard plan)`;
}

/** What a dry run prints: from the plan's seeds and its episode count (its items are never made). */
export function planReport(plan: {name: string; selection: BatchSelection; episode: BatchManifest['episode']; seeds: readonly Seed[]; items: number}): {name: string; items: number; seeds: number; byTier: Record<string, number>; byRegion: Record<string, number>; bySplit: Record<string, number>; first: string[]; text: string} {
	const {seeds} = plan;
	const byTier = tally(seeds.map((seed) => seed.tier));
	const byRegion = tally(seeds.map((seed) => seed.personaId.slice(0, 2).toUpperCase()));
	const bySplit = tally(seeds.map((seed) => seed.split));
	const first = seeds.slice(0, 10).map((seed) => seed.id);
	const fmt = (counts: Record<string, number>) => Object.entries(counts).map(([key, n]) => `${key} ${n}`).join(', ');
	const text = [
		`Batch ${plan.name} (dry run): ${seeds.length} seed(s) x ${plan.selection.trials} trial(s)${plan.episode.variants ? ` x ${plan.episode.variants.length} variants` : ''} = ${plan.items} episode(s); ${describeSelection(plan.selection)}`,
		`  runs: ${describeVariants(plan.episode)}`,
		`  tiers: ${fmt(byTier)}`,
		`  regions: ${fmt(byRegion)}`,
		`  splits: ${fmt(bySplit)}`,
		`  models: ${Object.entries(plan.episode.models).map(([role, model]) => `${role} ${model}`).join(', ')}`,
		`  first seeds: ${first.join(', ')}${seeds.length > first.length ? ', ...' : ''}`,
	].join('\n');
	return {name: plan.name, items: plan.items, seeds: seeds.length, byTier, byRegion, bySplit, first, text};
}
