import {type ChildProcess, spawn, spawnSync} from 'node:child_process';
import {createServer} from 'node:net';

/** True when Debian's redis-server is installed (`apt-get install redis-server`). */
export const hasRedisServer = (): boolean => spawnSync('redis-server', ['--version']).status === 0;

/** A free loopback port (taken and let go; the server binds it right after). */
export async function freePort(): Promise<number> {
	return new Promise((resolve, reject) => {
		const server = createServer();
		server.on('error', reject);
		server.listen(0, '127.0.0.1', () => {
			const address = server.address();
			server.close(() => resolve(typeof address === 'object' && address ? address.port : 0));
		});
	});
}

export type RedisServer = {
	readonly port: number;
	readonly url: string;
	/** Stops the server (SIGTERM: it writes its append-only file and exits). */
	stop(): Promise<void>;
	/** Starts it again on the same port and folder: the data comes back from the append-only file. */
	start(): Promise<void>;
};

/**
 * A redis-server of its own on a free loopback port, persisting to `dir` with an append-only file,
 * fsynced on every write by default (the tests: nothing may be lost whatever the timing), or once a
 * second (`everysec`, Redis's own default and what a lab deploys; the benchmark: an fsync per limiter
 * write would time the disk, not the harness).
 */
export async function startRedis(dir: string, options: {fsync?: 'always' | 'everysec'} = {}): Promise<RedisServer> {
	const port = await freePort();
	let child: ChildProcess | null = null;
	const start = () =>
		new Promise<void>((resolve, reject) => {
			const process_ = spawn('redis-server', ['--port', String(port), '--bind', '127.0.0.1', '--dir', dir, '--save', '', '--appendonly', 'yes', '--appendfsync', options.fsync ?? 'always', '--protected-mode', 'no'], {stdio: ['ignore', 'pipe', 'pipe']});
			child = process_;
			let out = '';
			const onData = (chunk: Buffer) => {
				out += chunk.toString();
				if (/Ready to accept connections/.test(out)) {
					process_.stdout!.off('data', onData);
					resolve();
				}
			};
			process_.stdout!.on('data', onData);
			process_.on('exit', (code) => reject(new Error(`redis-server exited (${code}) before it was ready:\n${out.slice(-2000)}`)));
		});
	const stop = () =>
		new Promise<void>((resolve) => {
			const running = child;
			if (!running || running.exitCode !== null) return resolve();
			running.removeAllListeners('exit');
			running.on('exit', () => resolve());
			running.kill('SIGTERM');
		});
	await start();
	return {port, url: `redis://127.0.0.1:${port}/0`, stop, start};
}
