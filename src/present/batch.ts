import type {BatchEvent} from '../batch/runner.js';
import {type BatchSummary, summarizeBatch, tally} from '../batch/summary.js';
import type {BatchManifest, BatchSelection} from '../domain/batch.js';
import type {CallRecord} from '../domain/session.js';
import type {IO} from '../commands/types.js';
import {estimateCost} from '../llm/pricing.js';
import {summarizeCalls} from '../llm/usage.js';
import type {SeedSpace} from '../universe/seeds.js';
import type {LiveLine} from './liveLine.js';

/* What `batch` prints: run figures, the summary, progress, the plan of a dry run. */

export type RunFigures = {calls: number; failedCalls: number; retries: number; tokens: number; costUsd: number; unpricedCalls: number; wallSeconds: number; episodesPerHour: number | null};

export function runFigures(calls: readonly CallRecord[], wallMs: number, episodes: number): RunFigures {
	const usage = summarizeCalls(calls);
	const cost = estimateCost(calls);
	return {
		calls: usage.calls,
		failedCalls: usage.failed,
		retries: usage.attempts - usage.calls,
		tokens: usage.tokens.total,
		costUsd: Math.round(cost.usd * 10_000) / 10_000,
		unpricedCalls: cost.unpriced,
		wallSeconds: Math.round(wallMs / 100) / 10,
		episodesPerHour: wallMs > 0 && episodes > 0 ? Math.round((episodes / wallMs) * 3_600_000) : null,
	};
}

export const stat = (value: number | null, digits = 2) => (value === null ? '–' : value.toFixed(digits));

export function summaryText(summary: BatchSummary, run?: RunFigures): string {
	const s = summary.byStatus;
	const lines = [
		`Batch ${summary.name}: ${s.completed}/${summary.planned} completed, ${s.error} error, ${s.pending + s.running + s.awaiting_assistant} unfinished`,
		`  3H   ${stat(summary.threeH.mean)} ± ${stat(summary.threeH.sd)} (sd, n=${summary.threeH.n})`,
		`  TDQ  ${stat(summary.tdq.mean)} ± ${stat(summary.tdq.sd)} (sd, n=${summary.tdq.n})`,
		`  clean ${summary.cleanRate === null ? '–' : `${(summary.cleanRate * 100).toFixed(1)}%`} of completed episodes`,
	];
	if (Object.keys(summary.terminations).length > 0) lines.push(`  endings: ${Object.entries(summary.terminations).map(([reason, n]) => `${reason} ${n}`).join(', ')}`);
	if (Object.keys(summary.errors).length > 0) lines.push(`  errors (not scored): ${Object.entries(summary.errors).map(([flag, n]) => `${flag} ${n}`).join(', ')}`);
	if (run) lines.push(`  this run: ${run.calls} call(s), ${run.retries} retries, ${run.tokens} tokens, $${run.costUsd}${run.unpricedCalls > 0 ? ` (+${run.unpricedCalls} unpriced)` : ''}, ${run.wallSeconds} s${run.episodesPerHour === null ? '' : `, ${run.episodesPerHour} episodes/hour`}`);
	return lines.join('\n');
}

/** Progress on stderr: one rewritten line on a terminal, one line per finished item otherwise; JSON lines with --jsonl. */
export function progressPrinter(io: IO, liveLine: LiveLine, mode: 'text' | 'json' | 'jsonl', total: number, width: () => {limit: number; max: number}): ((event: BatchEvent, manifest: BatchManifest) => void) & {done(): void; finished(): number} {
	const live = mode === 'text' && liveLine.enabled;
	let retries = 0;
	let finished = 0;
	const print = (event: BatchEvent, manifest: BatchManifest) => {
		if (event.type === 'call_retried') retries++;
		if (event.type === 'item_failed' || (event.type === 'item_finished' && (event.item.status === 'completed' || event.item.status === 'error'))) finished++;
		if (mode === 'jsonl') {
			if (event.type === 'item_finished') io.stdout.write(`${JSON.stringify({type: event.type, ...event.item})}\n`);
			else if (event.type === 'item_failed') io.stdout.write(`${JSON.stringify({type: event.type, message: event.message, ...event.item})}\n`);
			return;
		}
		if (mode !== 'text') return;
		const summary = summarizeBatch(manifest);
		const done = summary.byStatus.completed + summary.byStatus.error;
		if (live) {
			const {limit, max} = width();
			liveLine.set(`batch ${manifest.name}: ${done}/${total} done (${summary.byStatus.error} error) · ${summary.byStatus.running} running · 3H ${stat(summary.threeH.mean)} · ${retries} retries${limit < max ? ` · rate-limited: ${limit}/${max} calls in flight` : ''}`);
			return;
		}
		if (event.type === 'item_finished') {
			const item = event.item;
			io.stderr.write(`[${done}/${total}] ${item.errorFlag ?? item.status} ${item.seedId}${item.trial > 1 ? ` #${item.trial}` : ''} · 3H ${stat(item.threeH)} TDQ ${stat(item.tdq)} clean ${item.clean === null ? '–' : item.clean ? 'yes' : 'no'} · ${item.sessionId}\n`);
		} else if (event.type === 'item_failed') {
			io.stderr.write(`[${done}/${total}] could not run ${event.item.seedId}: ${event.message}\n`);
		}
	};
	return Object.assign(print, {done: () => liveLine.end(), finished: () => finished});
}

export function describeSelection(selection: BatchSelection): string {
	const parts = Object.entries(selection.filter).map(([key, value]) => `${key} ${String(value)}`);
	if (selection.seedFile) parts.push(`seed file ${selection.seedFile}`);
	if (selection.sample !== null) parts.push(`sample ${selection.sample} (key ${selection.sampleSeed})`);
	if (selection.trials > 1) parts.push(`${selection.trials} trials`);
	return parts.join(', ') || 'all seeds';
}

export function planReport(manifest: BatchManifest, space: SeedSpace): {name: string; items: number; seeds: number; byTier: Record<string, number>; byRegion: Record<string, number>; bySplit: Record<string, number>; first: string[]; text: string} {
	const seeds = [...new Set(manifest.items.map((item) => item.seedId))].map((id) => space.get(id));
	const byTier = tally(seeds.map((seed) => seed.tier));
	const byRegion = tally(seeds.map((seed) => seed.personaId.slice(0, 2).toUpperCase()));
	const bySplit = tally(seeds.map((seed) => seed.split));
	const first = seeds.slice(0, 10).map((seed) => seed.id);
	const fmt = (counts: Record<string, number>) => Object.entries(counts).map(([key, n]) => `${key} ${n}`).join(', ');
	const text = [
		`Batch ${manifest.name} (dry run): ${seeds.length} seed(s) x ${manifest.selection.trials} trial(s) = ${manifest.items.length} episode(s); ${describeSelection(manifest.selection)}`,
		`  tiers: ${fmt(byTier)}`,
		`  regions: ${fmt(byRegion)}`,
		`  splits: ${fmt(bySplit)}`,
		`  models: ${Object.entries(manifest.episode.models).map(([role, model]) => `${role} ${model}`).join(', ')}`,
		`  first seeds: ${first.join(', ')}${seeds.length > first.length ? ', ...' : ''}`,
	].join('\n');
	return {name: manifest.name, items: manifest.items.length, seeds: seeds.length, byTier, byRegion, bySplit, first, text};
}
