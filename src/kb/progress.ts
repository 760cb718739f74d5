import type {BuildProgress} from './knowledgeBase.js';

const WIDTH = 24;

/** `[##########..............]  1,234/5,678  21%` */
export function progressBar(done: number, total: number, width = WIDTH): string {
	const share = total === 0 ? 1 : Math.min(1, done / total);
	const filled = Math.round(share * width);
	return `[${'#'.repeat(filled)}${'.'.repeat(width - filled)}] ${done.toLocaleString('en-US')}/${total.toLocaleString('en-US')} ${String(Math.round(share * 100)).padStart(3)}%`;
}

/**
 * A progress reporter for index builds on stderr. On a terminal it redraws one line per region
 * (at most every 100 ms); elsewhere (CI logs, tests) it writes one line when a region is done, so logs
 * stay readable.
 */
export function progressReporter(stream: NodeJS.WritableStream & {isTTY?: boolean}, options: {now?: () => number} = {}): (event: BuildProgress) => void {
	const now = options.now ?? (() => Date.now());
	let last = 0;
	let started = now();
	return (event) => {
		const label = `indexing ${event.kind}/${event.region}`.padEnd(24);
		if (event.phase === 'embed' && event.done === 0) started = now();
		if (!stream.isTTY) {
			if (event.phase === 'done') stream.write(`${label} ${event.total.toLocaleString('en-US')} entries in ${((now() - started) / 1000).toFixed(1)} s\n`);
			return;
		}
		const time = now();
		if (event.phase === 'embed' && event.done !== 0 && event.done !== event.total && time - last < 100) return;
		last = time;
		const state = event.phase === 'save' ? 'saving' : event.phase === 'done' ? `done in ${((time - started) / 1000).toFixed(1)} s` : '';
		stream.write(`\r\u001B[2K${label} ${progressBar(event.done, event.total)} ${state}${event.phase === 'done' ? '\n' : ''}`);
	};
}
