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

/* Services for TUI tests: the real ones, on the offline mock, in throwaway folders. */

import {mkdtempSync, rmSync} from 'node:fs';
import {tmpdir} from 'node:os';
import path from 'node:path';
import {PassThrough} from 'node:stream';
import type {Flags, IO} from '../../src/commands/types.js';
import {createServices, type TuiServices} from '../../src/tui/services.js';
import {loadUniverse, type Universe} from '../../src/universe/load.js';

let universe: Universe | undefined;
export const testUniverse = () => (universe ??= loadUniverse());

export type TuiFixture = {
	readonly dir: string;
	readonly sessionsDir: string;
	readonly env: NodeJS.ProcessEnv;
	readonly io: IO;
	services(flags?: Flags): TuiServices;
	close(): void;
};

/** Temp sessions and workspace folders, hash embeddings, no endpoint (so every role is the mock). */
export function tuiFixture(extraEnv: NodeJS.ProcessEnv = {}): TuiFixture {
	const dir = mkdtempSync(path.join(tmpdir(), 'cc-tui-'));
	const sessionsDir = path.join(dir, 'sessions');
	const env: NodeJS.ProcessEnv = {PATH: process.env['PATH'], CULTURECONVERSE_EMBEDDER: 'hash', CULTURECONVERSE_HOME: path.join(dir, 'home'), ...extraEnv};
	const io: IO = {stdout: new PassThrough(), stderr: new PassThrough(), stdin: new PassThrough(), env, cwd: dir};
	return {
		dir,
		sessionsDir,
		env,
		io,
		services: (flags = {}) => createServices(io, {sessionsDir, ...flags}, testUniverse()),
		close: () => rmSync(dir, {recursive: true, force: true}),
	};
}

/* A long synthetic session for render tests and the benchmark. */

import type {CallRecord, Session, Turn} from '../../src/domain/session.js';

const WORDS = 'the family meal plan needs a quiet word with the eldest aunt before the festival week so that every dish on the shared table respects the fast days and nobody feels their cooking was refused'.split(' ');

/** `count` words of plain text, varied by `seed` so turns differ. */
export function filler(count: number, seed: number): string {
	const out: string[] = [];
	for (let i = 0; i < count; i++) out.push(WORDS[(i * 7 + seed * 13) % WORDS.length]!);
	return `${out.join(' ')}.`;
}

/**
 * `base` (a session with a blueprint and shards) with `turns` alternating user/assistant turns of
 * `words` words each, ending on a user turn so the next step is the assistant's. Steps and calls
 * line up so sessionAtStep can replay it.
 */
export function longSession(base: Session, options: {turns?: number; words?: number} = {}): Session {
	const count = options.turns ?? 40;
	const words = options.words ?? 300;
	const first = (base.stageSteps.shards ?? 2) + 1;
	const turns: Turn[] = [];
	for (let index = 0; index < count; index++) {
		const role = index % 2 === 0 ? 'user' : 'assistant';
		const t = Math.floor(index / 2);
		turns.push({index, role, content: filler(words, index), t, shard: Math.min(t, (base.shards?.length ?? 1) - 1), step: first + index, source: role === 'user' ? (index === 0 ? 'blueprint' : 'simulator') : 'llm', language: 'english', style: null, assessment: role === 'user' && index > 0 ? {decision: 'CONTINUE_CURRENT', reasoning: filler(30, index)} : null, closing: false, callId: null});
	}
	if (turns.at(-1)?.role === 'assistant') turns.pop();
	const steps = [...base.steps.filter((step) => step.n < first), ...turns.map((turn) => ({n: turn.step, kind: turn.role === 'user' ? ('simulate' as const) : ('assistant' as const), label: `${turn.role} t=${turn.t}`, at: base.createdAt, ok: true}))];
	return {...base, status: 'running', turns, steps, judge: null, termination: null, error: null, shardIndex: 0, config: {...base.config, maxTurns: 20}, calls: base.calls.filter((call: CallRecord) => call.step < first)};
}
