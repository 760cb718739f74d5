import {UserError} from '../util/errors.js';

/**
 * Where a distributed batch's queue lives: `redis://[user:password@]HOST:PORT[/DB]` (or `rediss://`
 * for TLS). Only Redis is shared between the coordinator and its workers: the batch's recorded
 * settings, the jobs, the steps streamed back, the finished sessions and the per-endpoint limits.
 */
export type QueueTarget = {
	readonly host: string;
	readonly port: number;
	readonly db: number;
	readonly username?: string;
	readonly password?: string;
	readonly tls: boolean;
	/** The URL without its password, for messages and status lines. */
	readonly display: string;
};

export function parseQueueUrl(value: unknown, flag = '--queue'): QueueTarget {
	if (typeof value !== 'string' || value.trim() === '') throw new UserError(`${flag} needs a Redis URL: redis://HOST:PORT[/DB] (e.g. redis://127.0.0.1:6379/0).`);
	let url: URL;
	try {
		url = new URL(value);
	} catch {
		throw new UserError(`${flag} '${value.slice(0, 120)}' is not a URL; use redis://HOST:PORT[/DB] (e.g. redis://127.0.0.1:6379/0).`);
	}
	if (url.protocol !== 'redis:' && url.protocol !== 'rediss:') throw new UserError(`${flag} '${mask(url)}' is not a Redis URL: it must start with redis:// (or rediss:// for TLS).`);
	if (!url.hostname) throw new UserError(`${flag} '${mask(url)}' names no host: redis://HOST:PORT[/DB].`);
	const port = url.port === '' ? 6379 : Number(url.port);
	const path = url.pathname.replace(/^\//, '');
	const db = path === '' ? 0 : Number(path);
	if (!Number.isInteger(db) || db < 0 || db > 15 || !/^\d*$/.test(path)) throw new UserError(`${flag} '${mask(url)}': the database after the port must be a number from 0 to 15 (got '${path}').`);
	return {
		host: url.hostname.replace(/^\[|\]$/g, ''),
		port,
		db,
		...(url.username ? {username: decodeURIComponent(url.username)} : {}),
		...(url.password ? {password: decodeURIComponent(url.password)} : {}),
		tls: url.protocol === 'rediss:',
		display: `${url.protocol}//${url.hostname}:${port}/${db}`,
	};
}

function mask(url: URL): string {
	return `${url.protocol}//${url.username ? `${url.username}:***@` : ''}${url.host}${url.pathname}`;
}

/**
 * Connection options for ioredis and BullMQ. `maxRetriesPerRequest: null` makes a command wait for
 * Redis to come back rather than fail (what BullMQ's workers require, and what keeps a worker's
 * streamed steps in order across an outage); reconnecting is retried every second at most.
 */
export function connectionOptions(target: QueueTarget, options: {failFast?: boolean} = {}) {
	return {
		host: target.host,
		port: target.port,
		db: target.db,
		...(target.username ? {username: target.username} : {}),
		...(target.password ? {password: target.password} : {}),
		...(target.tls ? {tls: {}} : {}),
		maxRetriesPerRequest: options.failFast ? 2 : null,
		retryStrategy: (times: number) => Math.min(100 * times, 1000),
		// ioredis 6 speaks RESP3 by default; BullMQ's scripts are written against RESP2 replies.
		protocol: 2 as const,
	};
}
