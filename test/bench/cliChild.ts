/**
 * Runs the CLI in this process and, at its end, prints what it cost as one JSON line on fd 3 (or
 * stderr): CPU, peak RSS, characters written to session and batch files, exit code. Used by the benchmarks to
 * time the harness in a process of its own, apart from the loopback server.
 *
 *   node --import tsx test/bench/cliChild.ts batch --name x ...
 */
import {writeSync} from 'node:fs';
import {main} from '../../src/main.js';
import {writeStats} from '../../src/store/sessionStore.js';

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
