/**
 * Distributed batch benchmark (`npm run bench:distributed`): prints figures, asserts nothing.
 *
 * A redis-server on a free loopback port, the loopback OpenAI-compatible server (loopbackServer.ts,
 * its own process, answering every call after BENCH_LATENCY_MS, default 100 ms) and, for each
 * worker count in BENCH_WORKERS (default 1,2,4), a coordinator (`batch --queue`) and that many
 * `worker` processes of the real CLI on this machine. Each run is a new batch of BENCH_EPISODES
 * (default 240) test seeds; generator and validator on the offline mock, the other roles over HTTP.
 *
 * Figures per run: episodes per hour between the first episode's start and the last one's end (the
 * session files' own times, so process start-up and a worker's first look for batches are left out),
 * the speed-up against one worker, the most calls the server ever had in flight against the global
 * cap (BENCH_CAP, default 48, below what four workers would send: each worker runs BENCH_PARALLEL
 * episodes, default 24), and the CPU seconds the workers used.
 */
import {type ChildProcess, spawn} from 'node:child_process';
import {mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync} from 'node:fs';
import {tmpdir} from 'node:os';
import path from 'node:path';
import {fileURLToPath} from 'node:url';
import {readSession} from '../../src/store/sessionStore.js';
import {hasRedisServer, startRedis} from '../helpers/redisServer.js';
import {startBenchServer} from './benchServer.js';

const here = path.dirname(fileURLToPath(import.meta.url));
const TSX = import.meta.resolve('tsx');
const CLI = path.resolve(here, '../../src/cli.tsx');
const counts = (process.env['BENCH_WORKERS'] ?? '1,2,4').split(',').map(Number);
const episodes = Number(process.env['BENCH_EPISODES'] ?? 240);
const cap = Number(process.env['BENCH_CAP'] ?? 48);
const parallel = Number(process.env['BENCH_PARALLEL'] ?? 24);
const latency = process.env['BENCH_LATENCY_MS'] ?? '100';

if (!hasRedisServer()) {
	process.stdout.write('redis-server is not installed (apt-get install redis-server): nothing to measure.\n');
	process.exit(0);
}
const work = mkdtempSync(path.join(tmpdir(), 'cc-bench-distributed-'));
mkdirSync(path.join(work, 'redis'));
const redis = await startRedis(path.join(work, 'redis'), {fsync: 'everysec'});


const exited = (child: ChildProcess) => new Promise<number | null>((resolve) => child.on('close', (code) => resolve(code)));
const cpuOf = (pid: number): number => {
	// utime + stime of a process, from /proc (seconds); 0 where /proc is not there.
	try {
		const fields = readFileSync(`/proc/${pid}/stat`, 'utf8').split(') ')[1]!.split(' ');
		return (Number(fields[11]) + Number(fields[12])) / 100;
	} catch {
		return 0;
	}
};

const rows: Array<{workers: number; perHour: number; maxInFlight: number; cpu: number; wall: number}> = [];
try {
	for (const n of counts) {
		const model = await startBenchServer({BENCH_LATENCY_MS: latency});
		const env = {...process.env, CULTURECONVERSE_HOME: path.join(work, 'home'), CULTURECONVERSE_EMBEDDER: 'hash', OPENAI_API_KEY: 'sk-bench-0000000000', OPENAI_BASE_URL: model.baseURL};
		const name = `bench-${n}w`;
		const workers = Array.from({length: n}, (_, i) => spawn(process.execPath, ['--import', TSX, CLI, 'worker', '--queue', redis.url, '--sessions-dir', path.join(work, `${name}-w${i}`), '--parallel', String(parallel), '--concurrency', String(parallel), '--name-filter', name], {cwd: work, env, stdio: ['ignore', 'ignore', 'pipe']}));
		let cpu = 0;
		const sample = setInterval(() => (cpu = Math.max(cpu, workers.reduce((sum, child) => sum + cpuOf(child.pid!), 0))), 500);
		const coordinator = spawn(process.execPath, ['--import', TSX, CLI, 'batch', '--name', name, '--split', 'test', '--sample', String(episodes), '--sample-seed', name, '--concurrency', String(cap), '--model', 'fake-model', '--generator-model', 'mock', '--validator-model', 'mock', '--no-cache', '--sessions-dir', path.join(work, name), '--queue', redis.url, '--json'], {cwd: work, env, stdio: ['ignore', 'pipe', 'pipe']});
		let err = '';
		coordinator.stderr!.on('data', (chunk: Buffer) => (err += chunk.toString()));
		coordinator.stdout!.on('data', (chunk: Buffer) => (err += chunk.toString()));
		const code = await exited(coordinator);
		clearInterval(sample);
		for (const child of workers) child.kill('SIGTERM');
		await Promise.all(workers.map(exited));
		const stats = await model.stop();
		// 3: some episodes ended in an error flag, which a local batch of the same seeds gives too (counted below).
		if (code !== 0 && code !== 3) throw new Error(`the ${n}-worker batch exited ${code}:\n${err.slice(-2000)}`);
		const dir = path.join(work, name);
		const sessions = readdirSync(dir)
			.filter((file) => file.endsWith('.json') && !file.startsWith('.'))
			.map((file) => readSession(path.join(dir, file)));
		const first = Math.min(...sessions.map((session) => Date.parse(session.createdAt)));
		const last = Math.max(...sessions.map((session) => Date.parse(session.updatedAt)));
		const wall = (last - first) / 1000;
		const errors = sessions.filter((session) => session.status === 'error');
		rows.push({workers: n, perHour: Math.round((sessions.length / wall) * 3600), maxInFlight: stats.maxInFlight, cpu, wall});
		process.stdout.write(`${n} worker(s): ${sessions.length} episodes in ${wall.toFixed(1)} s${errors.length ? `, ${errors.length} ended in an error flag (${errors.map((session) => `${session.seed.id}: ${session.error?.message.slice(0, 160)}`).join('; ')})` : ''}\n`);
	}
} finally {
	await redis.stop();
	rmSync(work, {recursive: true, force: true});
}

const base = rows[0]?.perHour ?? 1;
process.stdout.write(`\nDistributed batches: ${episodes} episodes a run, ${latency} ms per call, each worker ${parallel} episodes in flight, global cap ${cap} calls in flight\n`);
process.stdout.write('WORKERS  EPISODES/HOUR  SPEED-UP  MAX IN FLIGHT (cap)  WORKER CPU s\n');
for (const row of rows) process.stdout.write(`${String(row.workers).padStart(7)}  ${String(row.perHour).padStart(13)}  ${(row.perHour / base).toFixed(2).padStart(7)}x  ${`${row.maxInFlight} (${cap})`.padStart(19)}  ${row.cpu.toFixed(1).padStart(12)}\n`);
