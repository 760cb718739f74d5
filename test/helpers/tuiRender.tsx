import {EventEmitter} from 'node:events';
import {render} from 'ink';
import type {ReactElement} from 'react';

/*
 * One render helper for the TUI tests and benchmark: ink-testing-library's approach (fake streams,
 * debug mode so every frame is written whole), plus a terminal size that tests choose and change
 * (ink-testing-library fixes 100 columns), and waitFor, which polls instead of sleeping.
 */

class FakeStdout extends EventEmitter {
	readonly isTTY = true;
	frames: string[] = [];
	lastFrame: string | undefined;
	/** Called after every frame written (the benchmark times keypress-to-frame with it). */
	onFrame: ((frame: string) => void) | null = null;
	constructor(
		public columns: number,
		public rows: number,
	) {
		super();
	}
	write = (frame: string) => {
		this.frames.push(frame);
		if (this.frames.length > 50) this.frames.splice(0, this.frames.length - 50);
		this.lastFrame = frame;
		this.onFrame?.(frame);
		return true;
	};
}

class FakeStdin extends EventEmitter {
	readonly isTTY = true;
	private data: string | null = null;
	write = (data: string) => {
		this.data = data;
		this.emit('readable');
		this.emit('data', data);
	};
	read = () => {
		const data = this.data;
		this.data = null;
		return data;
	};
	setEncoding() {}
	setRawMode() {}
	resume() {}
	pause() {}
	ref() {}
	unref() {}
}

export const KEYS = {
	up: '\u001B[A',
	down: '\u001B[B',
	right: '\u001B[C',
	left: '\u001B[D',
	home: '\u001B[H',
	end: '\u001B[F',
	pageUp: '\u001B[5~',
	pageDown: '\u001B[6~',
	enter: '\r',
	escape: '\u001B',
	tab: '\t',
	backspace: '\u007F',
	ctrlS: '\u0013',
} as const;

export type TuiHandle = {
	readonly stdout: FakeStdout;
	frame(): string;
	/** Writes keys one press at a time (a string of letters is typed letter by letter). */
	press(...keys: string[]): Promise<void>;
	/** Writes a chunk as one read (a paste). */
	paste(text: string): void;
	resize(columns: number, rows: number): void;
	/** Polls the latest frame until `check` holds; fails with the frame after `timeoutMs`. */
	waitFor(check: (frame: string) => boolean, what: string, timeoutMs?: number): Promise<string>;
	/**
	 * Lets Ink subscribe the input handlers of what just appeared (useInput subscribes in an effect,
	 * after the frame is written): call it between seeing a new input region and typing into it.
	 */
	settle(): Promise<void>;
	/** Resolves when the app exits (useApp().exit()). */
	readonly exited: Promise<unknown>;
	unmount(): void;
};

const tick = () => new Promise((resolve) => setTimeout(resolve, 5));

export function renderTui(node: ReactElement, options: {columns?: number; rows?: number} = {}): TuiHandle {
	const stdout = new FakeStdout(options.columns ?? 160, options.rows ?? 48);
	const stdin = new FakeStdin();
	const instance = render(node, {stdout: stdout as never, stdin: stdin as never, stderr: new FakeStdout(160, 48) as never, debug: true, exitOnCtrlC: false, patchConsole: false});
	const frame = () => stdout.lastFrame ?? '';
	return {
		stdout,
		frame,
		async press(...keys) {
			for (const key of keys) {
				const presses = /^[\x20-\x7e]+$/.test(key) ? [...key] : [key];
				for (const press of presses) {
					stdin.write(press);
					await tick();
				}
			}
		},
		paste: (text) => stdin.write(text),
		resize(columns, rows) {
			stdout.columns = columns;
			stdout.rows = rows;
			stdout.emit('resize');
		},
		async waitFor(check, what, timeoutMs = 20_000) {
			const deadline = Date.now() + timeoutMs;
			for (;;) {
				const current = frame();
				if (check(current)) return current;
				if (Date.now() > deadline) throw new Error(`timed out after ${timeoutMs} ms waiting for ${what}; last frame:\n${current}`);
				await tick();
			}
		},
		settle: () => new Promise((resolve) => setTimeout(resolve, 30)),
		exited: instance.waitUntilExit(),
		unmount() {
			instance.unmount();
			instance.cleanup();
		},
	};
}
