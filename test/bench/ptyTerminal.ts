import {type ChildProcessWithoutNullStreams, spawn} from 'node:child_process';
import {performance} from 'node:perf_hooks';

/*
 * The TUI in a real pseudo-terminal for the benchmark: util-linux `script` gives the child a pty of
 * the size set with stty (no native module, nothing downloaded), and everything the TUI writes comes
 * back on script's stdout, so a key press can be timed to the last byte of the frame it causes.
 */

export type PtyTiming = {readonly ms: number; readonly bytes: number};

export type Pty = {
	/** Writes `key` and resolves once output has been quiet for `quietMs`: ms to the last byte, and bytes written. */
	press(key: string, quietMs?: number): Promise<PtyTiming>;
	/** Resolves when the screen so far contains `text` and output has gone quiet. */
	waitFor(text: string, timeoutMs?: number): Promise<void>;
	close(): Promise<void>;
};

export function openPty(options: {command: string; columns: number; rows: number; cwd: string; env: NodeJS.ProcessEnv}): Pty {
	const child: ChildProcessWithoutNullStreams = spawn('script', ['-q', '-e', '-c', `stty cols ${options.columns} rows ${options.rows}; exec ${options.command}`, '/dev/null'], {cwd: options.cwd, env: options.env});
	let all = '';
	let listener: ((chunk: Buffer, at: number) => void) | null = null;
	child.stdout.on('data', (chunk: Buffer) => {
		all += chunk.toString('utf8');
		listener?.(chunk, performance.now());
	});
	child.stderr.resume();
	const quiet = (since: number, quietMs: number, onChunk: (chunk: Buffer, at: number) => void) =>
		new Promise<number>((resolve) => {
			let last = since;
			let timer = setTimeout(() => done(), quietMs * 10);
			const done = () => {
				listener = null;
				resolve(last);
			};
			listener = (chunk, at) => {
				onChunk(chunk, at);
				last = at;
				clearTimeout(timer);
				timer = setTimeout(done, quietMs);
			};
		});
	return {
		async press(key, quietMs = 120) {
			let bytes = 0;
			const start = performance.now();
			const ended = quiet(start, quietMs, (chunk) => (bytes += chunk.length));
			child.stdin.write(key);
			const last = await ended;
			return {ms: bytes === 0 ? Number.NaN : last - start, bytes};
		},
		async waitFor(text, timeoutMs = 60_000) {
			const deadline = Date.now() + timeoutMs;
			while (!all.includes(text)) {
				if (Date.now() > deadline) throw new Error(`no "${text}" on the pty within ${timeoutMs} ms; last output: ${JSON.stringify(all.slice(-400))}`);
				await new Promise((resolve) => setTimeout(resolve, 50));
			}
			await quiet(performance.now(), 300, () => {});
		},
		async close() {
			if (child.exitCode !== null || child.signalCode !== null) return;
			child.stdin.write('\u0003');
			const exited = new Promise((resolve) => child.once('exit', resolve));
			const timer = setTimeout(() => child.kill('SIGKILL'), 5000);
			await exited;
			clearTimeout(timer);
		},
	};
}
