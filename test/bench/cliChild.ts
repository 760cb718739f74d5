/**
 * Runs the CLI in this process and, at its end, prints what it cost as one JSON line on fd 3 (or
 * stderr): CPU, peak RSS, characters written to session and batch files, exit code. Used by the benchmarks to
 * time the harness in a process of its own, apart from the loopback server.
 *
 *   node --import tsx test/bench/cliChild.ts batch --name x ...
 */
import {existsSync, writeSync} from 'node:fs';

// The shipped build (dist/, what `npx cultureconverse` runs) when present: under tsx every worker thread
// of a batch would compile the sources again, which costs CPU and memory the product never pays.
const dist = new URL('../../dist/main.js', import.meta.url);
const fromDist = process.env['BENCH_SOURCE'] !== 'src' && existsSync(dist);
const {main} = (fromDist ? await import(dist.href) : await import('../../src/main.js')) as typeof import('../../src/main.js');
const {writeStats} = (fromDist ? await import(new URL('../../dist/store/sessionStore.js', import.meta.url).href) : await import('../../src/store/sessionStore.js')) as typeof import('../../src/store/sessionStore.js');

const controller = new AbortController();
process.on('SIGINT', () => controller.abort());
const code = await main(process.argv.slice(2), {stdout: process.stdout, stderr: process.stderr, stdin: process.stdin, env: process.env, cwd: process.cwd(), signal: controller.signal});
const usage = process.resourceUsage();
const line = `${JSON.stringify({code, cpuMs: (usage.userCPUTime + usage.systemCPUTime) / 1000, maxRssMb: usage.maxRSS / 1024, writtenChars: writeStats.chars})}\n`;
try {
	writeSync(3, line);
} catch {
	process.stderr.write(line);
}
process.exitCode = code;
