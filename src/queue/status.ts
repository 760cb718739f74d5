import {Redis} from 'ioredis';
import {renderTable} from '../util/table.js';
import {queueCounts} from './coordinator.js';
import {BATCHES_KEY, WORKERS_KEY} from './keys.js';
import {type EndpointLimit, readEndpointLimit} from './redisLimiter.js';
import {BatchSpec, WorkerBeat} from './schemas.js';
import {connectionOptions, type QueueTarget} from './target.js';

/** A batch on its queue, as `batch status <name> --queue URL` shows it. */
export type QueueStatus = {
	readonly queue: string;
	readonly recorded: boolean;
	readonly paused: boolean;
	readonly jobs: {readonly waiting: number; readonly active: number; readonly delayed: number; readonly finished: number; readonly failed: number};
	/** Finished sessions on their way back, not yet taken by a coordinator. */
	readonly returning: number;
	readonly workers: readonly WorkerBeat[];
	readonly limits: readonly EndpointLimit[];
};

export async function readQueueStatus(target: QueueTarget, name: string): Promise<QueueStatus> {
	const redis = new Redis(connectionOptions(target, {failFast: true}));
	redis.on('error', () => undefined);
	try {
		const specText = await redis.hget(BATCHES_KEY, name);
		const spec = specText ? BatchSpec.safeParse(JSON.parse(specText)) : null;
		const endpoints = spec?.success ? [...new Set(Object.values(spec.data.roles).filter((role) => role.provider === 'openai').map((role) => role.baseURL ?? 'default'))] : [];
		const limits = (await Promise.all(endpoints.map((endpoint) => readEndpointLimit(redis, endpoint)))).filter((limit): limit is EndpointLimit => limit !== null);
		const workers = Object.values(await redis.hgetall(WORKERS_KEY))
			.flatMap((text) => {
				const beat = WorkerBeat.safeParse(JSON.parse(text));
				return beat.success ? [beat.data] : [];
			})
			.filter((beat) => beat.batches.includes(name))
			.sort((a, b) => a.host.localeCompare(b.host) || a.pid - b.pid);
		const counts = await queueCounts(target, name);
		const n = (key: string) => counts.work[key] ?? 0;
		return {
			queue: target.display,
			recorded: Boolean(spec?.success),
			paused: counts.paused,
			jobs: {waiting: n('waiting') + n('prioritized'), active: n('active'), delayed: n('delayed'), finished: n('completed'), failed: n('failed')},
			returning: counts.results,
			workers,
			limits,
		};
	} finally {
		redis.disconnect();
	}
}

/** A worker silent for this long is shown as lost (it beats every 2 s). */
const LOST_AFTER_MS = 15_000;

export function queueStatusText(status: QueueStatus, now: Date): string {
	const lines: string[] = [];
	const {jobs} = status;
	lines.push(`Queue ${status.queue}${status.recorded ? '' : ' (this batch is not recorded there)'}${status.paused ? ' · PAUSED (run the batch again to resume it)' : ''}`);
	lines.push(`  jobs: ${jobs.waiting} waiting, ${jobs.active} active, ${jobs.delayed} delayed, ${jobs.finished} finished, ${jobs.failed} failed; ${status.returning} session(s) on the way back`);
	for (const limit of status.limits) lines.push(`  endpoint ${limit.endpoint}: ${limit.inFlight} call(s) in flight, limit ${limit.limit} of ${limit.max}${limit.narrowings > 0 ? ` (narrowed ${limit.narrowings}x by 429s)` : ''}, peak ${limit.peak}`);
	if (status.workers.length === 0) lines.push('  no worker is serving this batch (start one: npx cultureconverse worker --queue ' + status.queue + ')');
	else {
		lines.push(
			renderTable(status.workers, [
				{header: 'HOST', value: (beat) => beat.host},
				{header: 'PID', value: (beat) => beat.pid, align: 'right'},
				{header: 'IN FLIGHT', value: (beat) => beat.inFlight, align: 'right'},
				{header: 'DONE', value: (beat) => beat.done, align: 'right'},
				{header: 'LAST SEEN', value: (beat) => lastSeen(beat, now)},
			]),
		);
	}
	return lines.join('\n');
}

function lastSeen(beat: WorkerBeat, now: Date): string {
	const ago = Math.max(0, now.getTime() - Date.parse(beat.lastSeen));
	const text = ago < 60_000 ? `${Math.round(ago / 1000)} s ago` : `${Math.round(ago / 60_000)} min ago`;
	return ago > LOST_AFTER_MS ? `${text} (lost?)` : text;
}
