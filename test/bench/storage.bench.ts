/**
 * Durability benchmark (`npm run bench:storage`). Prints figures; asserts nothing.
 *
 *  1. A server that answers 50 MB to every assistant request (test/helpers/hugeServer.ts): a batch
 *     (whole replies) and a `run` (streamed) in a process of their own (cliChild.ts, from src/): peak
 *     RSS, CPU, bytes written, session sizes, bytes the server got to send. Issue 21 measured the
 *     same set-up before the reply-size limit: `run --max-turns 2` 3.0 GB RSS and a 315 MB session,
 *     a 4-item batch a V8 out-of-memory abort at 5.4 GB.
 *  2. A batch journal of BENCH_LINES lines (default 20,000) appended through the journal module (each
 *     append checked), then damaged as a crash and a killed rerun leave it, read and healed.
 *  3. Masking a 256 KB reply for one key in all its forms (every reply and error passes it).
 */
import {spawn} from 'node:child_process';
import {randomBytes} from 'node:crypto';
import {mkdtempSync, readdirSync, rmSync, statSync, truncateSync, appendFileSync} from 'node:fs';
import {tmpdir} from 'node:os';
import path from 'node:path';
import {performance} from 'node:perf_hooks';
import {maskSecrets} from '../../src/llm/secrets.js';
import {JournalAppender, healJournal, readJournal} from '../../src/store/journal.js';
import {readSession} from '../../src/store/sessionStore.js';
import {hugeServer} from '../helpers/hugeServer.js';

const LINES = Number(process.env['BENCH_LINES'] ?? 20_000);
const dir = mkdtempSync(path.join(tmpdir(), 'cc-bench-storage-'));
const mb = (bytes: number) => `${(bytes / 1024 / 1024).toFixed(1)} MB`;

function child(args: string[]): Promise<{code: number; cpuMs: number; maxRssMb: number; writtenChars: number; wallMs: number}> {
	const started = performance.now();
	const proc = spawn(process.execPath, ['--import', import.meta.resolve('tsx'), path.join(import.meta.dirname, 'cliChild.ts'), ...args], {
		cwd: dir,
		env: {PATH: process.env['PATH'], HOME: process.env['HOME'], CULTURECONVERSE_EMBEDDER: 'hash', CULTURECONVERSE_HOME: path.join(dir, 'home'), BENCH_SOURCE: 'src'},
		stdio: ['ignore', 'ignore', 'pipe', 'pipe'],
	});
	let figures = '';
	proc.stdio[3]!.on('data', (chunk: Buffer) => (figures += chunk.toString()));
	let stderr = '';
	proc.stderr!.on('data', (chunk: Buffer) => (stderr += chunk.toString()));
	return new Promise((resolve, reject) =>
		proc.once('exit', () => {
			try {
				resolve({...(JSON.parse(figures) as {code: number; cpuMs: number; maxRssMb: number; writtenChars: number}), wallMs: performance.now() - started});
			} catch {
				reject(new Error(`no figures from the child: ${stderr.slice(-2000)}`));
			}
		}),
	);
}

try {
	console.log('1. replies of 50 MB to every assistant request (limit 256 KB)');
	const big = await hugeServer(50 * 1024 * 1024);
	const sessions = path.join(dir, 'sessions');
	const roles = ['--generator-model', 'mock', '--validator-model', 'mock', '--simulator-model', 'mock', '--judge-model', 'mock', '--assistant-model', 'big', '--base-url', big.baseURL, '--sessions-dir', sessions, '--max-turns', '2'];
	for (const [what, args] of [
		['batch of 4 (whole replies)', ['batch', '--name', 'huge', '--region', 'JP', '--sample', '4', ...roles]],
		['run --max-turns 2 (streamed)', ['run', '--seed', 'jp-yamato-shinto-a35-f:culinary.dietary-rules.01', ...roles]],
	] as const) {
		const before = big.sent();
		const figures = await child([...args]);
		console.log(`   ${what}: exit ${figures.code}, peak RSS ${figures.maxRssMb.toFixed(0)} MB, CPU ${(figures.cpuMs / 1000).toFixed(1)} s, wall ${(figures.wallMs / 1000).toFixed(1)} s, written ${mb(figures.writtenChars)}, the server sent ${mb(big.sent() - before)}`);
	}
	const files = readdirSync(sessions).filter((name) => name.endsWith('.json'));
	const sizes = files.map((name) => statSync(path.join(sessions, name)).size);
	const cut = files.flatMap((name) => readSession(path.join(sessions, name)).turns.filter((turn) => turn.role === 'assistant').map((turn) => turn.cut !== undefined));
	console.log(`   sessions: ${files.length}, largest ${mb(Math.max(...sizes))}, assistant turns recorded as cut ${cut.filter(Boolean).length} of ${cut.length}`);
	await big.close();

	console.log(`2. a batch journal of ${LINES.toLocaleString('en')} lines`);
	const journal = path.join(dir, 'bench.journal.jsonl');
	const line = (i: number) => JSON.stringify({i, set: {status: i % 2 ? 'completed' : 'running', threeH: 4.33, tdq: 3.67, clean: true, errorFlag: null, termination: 'all_shards_passed', updatedAt: new Date(0).toISOString()}, at: new Date(0).toISOString()});
	const options = {what: 'batch journal', afterTorn: 'skip' as const, maxBytes: 1024 * 1024 * 1024};
	let started = performance.now();
	const {appender} = JournalAppender.open(journal, options);
	for (let i = 0; i < LINES; i++) appender.append(line(i));
	appender.close();
	const appendMs = performance.now() - started;
	console.log(`   append (each checked): ${((appendMs * 1000) / LINES).toFixed(1)} µs a line, ${mb(statSync(journal).size)}`);
	// What a full disk and a killed rerun left: a line cut short, the next run's line appended after it, a cut tail.
	const size = statSync(journal).size;
	truncateSync(journal, size - 40);
	appendFileSync(journal, `${line(LINES)}\n${line(LINES + 1).slice(0, 30)}`);
	started = performance.now();
	const read = readJournal(journal, options);
	const readMs = performance.now() - started;
	started = performance.now();
	healJournal(journal, read);
	console.log(`   damaged: read ${readMs.toFixed(0)} ms (${read.damage.map((one) => one.kind).join(', ')}; ${read.lines.length} whole lines), healed (atomic rewrite) ${(performance.now() - started).toFixed(0)} ms`);

	console.log('3. masking a key in every form');
	const key = `sk-proj-${randomBytes(24).toString('base64url')}`;
	const reply = `${'The plan has three steps. '.repeat(10_000)} ${key}`;
	started = performance.now();
	const rounds = 20;
	for (let i = 0; i < rounds; i++) maskSecrets(reply, [key]);
	console.log(`   ${(reply.length / 1024).toFixed(0)} KB reply: ${((performance.now() - started) / rounds).toFixed(1)} ms; a 2 KB reply: ${timeOf(() => maskSecrets(reply.slice(0, 2048), [key]), 500).toFixed(3)} ms`);
} finally {
	rmSync(dir, {recursive: true, force: true});
}

function timeOf(work: () => unknown, rounds: number): number {
	const started = performance.now();
	for (let i = 0; i < rounds; i++) work();
	return (performance.now() - started) / rounds;
}
