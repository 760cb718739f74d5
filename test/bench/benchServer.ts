import {spawn} from 'node:child_process';
import path from 'node:path';
import {fileURLToPath} from 'node:url';

/** What loopbackServer.ts prints on SIGTERM. */
export type ServerStats = {served: number; refused: number; faulted: number; maxInFlight: number; steadyPerSecond: number | null; cpuMs: number};

const here = path.dirname(fileURLToPath(import.meta.url));

/**
 * Starts loopbackServer.ts in a process of its own (so its CPU is not billed to the harness) with
 * `env` (BENCH_LATENCY_MS, BENCH_ADMIT, BENCH_FAULTS, ...); `stop` ends it and returns its counters.
 */
export async function startBenchServer(env: Record<string, string>): Promise<{baseURL: string; stop: () => Promise<ServerStats>}> {
	const child = spawn(process.execPath, ['--import', import.meta.resolve('tsx'), path.join(here, 'loopbackServer.ts')], {env: {...process.env, ...env}, stdio: ['ignore', 'pipe', 'inherit']});
	let out = '';
	const baseURL = await new Promise<string>((resolve, reject) => {
		child.stdout.on('data', (chunk: Buffer) => {
			out += chunk.toString();
			if (out.includes('\n')) resolve((JSON.parse(out.split('\n')[0]!) as {baseURL: string}).baseURL);
		});
		child.on('exit', () => reject(new Error('the loopback server did not start')));
	});
	return {
		baseURL,
		stop: () =>
			new Promise<ServerStats>((resolve) => {
				child.on('exit', () => resolve(JSON.parse(out.trim().split('\n').at(-1)!) as ServerStats));
				child.kill('SIGTERM');
			}),
	};
}
