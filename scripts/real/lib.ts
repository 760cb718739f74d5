/**
 * What `npm run real:setup` installs and how `real:serve`, the real-server tests and `bench:real`
 * find and start it: one place for the cache folder, the install manifest and the server's options.
 * Nothing here is part of the tool itself (src/ never imports it).
 */
import {spawn, type ChildProcess} from 'node:child_process';
import {existsSync, readFileSync} from 'node:fs';
import {createServer} from 'node:net';
import os from 'node:os';
import path from 'node:path';

/** The llama.cpp source comes from this npm package's `llama/` folder (a git bundle of llama.cpp). */
export const NODE_LLAMA_CPP_VERSION = '3.21.1';

/**
 * Where everything is kept: `CULTURECONVERSE_REAL_DIR`, else `$XDG_CACHE_HOME/cultureconverse/real`,
 * else `~/.cache/cultureconverse/real`. Never inside the project (nothing built or downloaded is committed).
 */
export function realDir(env: NodeJS.ProcessEnv = process.env): string {
	if (env['CULTURECONVERSE_REAL_DIR']) return path.resolve(env['CULTURECONVERSE_REAL_DIR']);
	const cache = env['XDG_CACHE_HOME'] && path.isAbsolute(env['XDG_CACHE_HOME']) ? env['XDG_CACHE_HOME'] : path.join(os.homedir(), '.cache');
	return path.join(cache, 'cultureconverse', 'real');
}

/** What `real:setup` wrote to `<realDir>/real.json`. */
export type InstalledModel = {readonly id: string; readonly name: string; readonly licence: string; readonly file: string; readonly bytes: number; readonly sha256: string; readonly from: string};

export type Install = {
	readonly llamaCpp: {readonly from: string; readonly binary: string; readonly buildSeconds: number | null; readonly cmakeFlags: readonly string[]};
	/** The model `real:serve` and `bench:real` use: the best small one (models.json "default"). */
	readonly model: InstalledModel;
	/** The tiny model the real-server tests use, for their wall time (models.json "test"); absent = `model`. */
	readonly testModel?: InstalledModel;
};

/** The install with the model a purpose uses: the tests take the tiny test model when there is one. */
export function forPurpose(install: Install, purpose: 'serve' | 'test'): Install {
	return purpose === 'test' && install.testModel && existsSync(install.testModel.file) ? {...install, model: install.testModel} : install;
}

export const MANIFEST = 'real.json';

/**
 * The installed server and model, with two overrides for people who have their own:
 * `CULTURECONVERSE_LLAMA_SERVER` (a llama-server binary) and `CULTURECONVERSE_REAL_GGUF` (any GGUF
 * file; its id is the file name without `.gguf`). Returns the reason when something is missing.
 */
export function findInstall(env: NodeJS.ProcessEnv = process.env): {readonly ok: true; readonly install: Install} | {readonly ok: false; readonly reason: string} {
	const dir = realDir(env);
	const file = path.join(dir, MANIFEST);
	let install: Install | null = null;
	if (existsSync(file)) {
		try {
			install = JSON.parse(readFileSync(file, 'utf8')) as Install;
		} catch (error) {
			return {ok: false, reason: `${file} is not JSON (${(error as Error).message}); run npm run real:setup again`};
		}
	}
	const binary = env['CULTURECONVERSE_LLAMA_SERVER'] ?? install?.llamaCpp?.binary;
	const gguf = env['CULTURECONVERSE_REAL_GGUF'];
	if (!binary) return {ok: false, reason: `no llama-server in ${dir} (run npm run real:setup, or set CULTURECONVERSE_LLAMA_SERVER)`};
	if (!existsSync(binary)) return {ok: false, reason: `llama-server ${binary} does not exist (run npm run real:setup)`};
	const llamaCpp = install?.llamaCpp ?? {from: 'CULTURECONVERSE_LLAMA_SERVER', binary, buildSeconds: null, cmakeFlags: []};
	if (gguf) {
		if (!existsSync(gguf)) return {ok: false, reason: `CULTURECONVERSE_REAL_GGUF=${gguf} does not exist`};
		const id = path.basename(gguf).replace(/\.gguf$/i, '');
		// The user's file serves every purpose (tests included).
		return {ok: true, install: {llamaCpp: {...llamaCpp, binary}, model: {id, name: id, licence: 'yours to check', file: path.resolve(gguf), bytes: 0, sha256: '', from: 'CULTURECONVERSE_REAL_GGUF'}}};
	}
	if (!install?.model || !existsSync(install.model.file)) return {ok: false, reason: `no model in ${dir} (run npm run real:setup, or set CULTURECONVERSE_REAL_GGUF to a GGUF file)`};
	return {ok: true, install: {...install, llamaCpp: {...llamaCpp, binary}}};
}

/** llama-server's options for one run; the defaults are what `real:serve` and the tests use. */
export type ServeOptions = {
	/** Context of the whole server (`-c`), shared by the slots. @default 16384 */
	readonly context?: number;
	/** Slots (`-np`): requests decoded at once; each gets context / slots tokens. @default 2 */
	readonly slots?: number;
	/** The server's own reply cap (`-n`), so a model that never stops cannot hold a slot for ever. @default 1024 */
	readonly maxTokens?: number;
	/**
	 * CPU threads (`-t`). One by default: on this project's shared 2-core machines two threads made
	 * llama-server 7 to 40 times slower than one (each token waits for both threads, and the second is
	 * rarely scheduled when other work runs); on a machine of your own give it its cores.
	 * @default 1
	 */
	readonly threads?: number;
	/** A fixed port; default: a free one. */
	readonly port?: number;
	/** Appended to the command line as they are. */
	readonly extraArgs?: readonly string[];
	/** Where the server's log goes. @default ignored */
	readonly log?: (line: string) => void;
};

export type RunningServer = {
	readonly baseURL: string;
	readonly modelId: string;
	readonly port: number;
	readonly args: readonly string[];
	readonly child: ChildProcess;
	/** The last lines the server logged (for a failure message). */
	readonly tail: () => string;
	/** SIGTERM, then SIGKILL after 5 s; resolves once the process is gone. */
	readonly stop: () => Promise<void>;
	/** SIGKILL at once (a crash, for the tests of what happens to work in flight). */
	readonly kill: () => Promise<void>;
};

/** A port nothing listens on now (the kernel's pick on 127.0.0.1). */
export async function freePort(): Promise<number> {
	return new Promise((resolve, reject) => {
		const server = createServer();
		server.unref();
		server.on('error', reject);
		server.listen(0, '127.0.0.1', () => {
			const address = server.address();
			server.close(() => (typeof address === 'object' && address ? resolve(address.port) : reject(new Error('no port'))));
		});
	});
}

/** The command line of one llama-server run: loopback only, no web UI, the model served under its id. */
export function serverArgs(install: Install, port: number, options: ServeOptions = {}): string[] {
	return [
		'--model', install.model.file,
		'--alias', install.model.id,
		'--host', '127.0.0.1',
		'--port', String(port),
		'--ctx-size', String(options.context ?? 16384),
		'--parallel', String(options.slots ?? 2),
		'--n-predict', String(options.maxTokens ?? 1024),
		'--threads', String(options.threads ?? 1),
		'--jinja',
		'--reasoning-format', 'deepseek',
		'--no-webui',
		'--log-colors', 'off',
		...(options.extraArgs ?? []),
	];
}

/**
 * Starts llama-server on a free loopback port and waits until `/health` answers 200 (the model is
 * loaded). Fails with the server's last log lines when it exits first or takes over `timeoutMs`.
 */
export async function startServer(install: Install, options: ServeOptions & {readonly timeoutMs?: number} = {}): Promise<RunningServer> {
	const port = options.port ?? (await freePort());
	const args = serverArgs(install, port, options);
	const child = spawn(install.llamaCpp.binary, args, {stdio: ['ignore', 'pipe', 'pipe']});
	const lines: string[] = [];
	const onData = (chunk: Buffer) => {
		for (const line of chunk.toString('utf8').split('\n')) {
			if (!line) continue;
			lines.push(line);
			if (lines.length > 200) lines.shift();
			options.log?.(line);
		}
	};
	child.stdout!.on('data', onData);
	child.stderr!.on('data', onData);
	const exited = new Promise<void>((resolve) => child.once('exit', () => resolve()));
	let gone = false;
	void exited.then(() => (gone = true));
	const tail = () => lines.slice(-25).join('\n');
	const end = async (signal: NodeJS.Signals) => {
		if (gone) return;
		child.kill(signal);
		const timer = setTimeout(() => child.kill('SIGKILL'), 5000);
		await exited;
		clearTimeout(timer);
	};
	const baseURL = `http://127.0.0.1:${port}/v1`;
	const deadline = Date.now() + (options.timeoutMs ?? 120_000);
	for (;;) {
		if (gone) throw new Error(`llama-server exited before it was ready (${child.exitCode ?? child.signalCode}):\n${tail()}`);
		if (Date.now() > deadline) {
			await end('SIGKILL');
			throw new Error(`llama-server was not ready after ${options.timeoutMs ?? 120_000} ms:\n${tail()}`);
		}
		try {
			const response = await fetch(`http://127.0.0.1:${port}/health`, {signal: AbortSignal.timeout(2000)});
			await response.arrayBuffer();
			if (response.status === 200) break;
		} catch {
			// Not listening yet.
		}
		await new Promise((resolve) => setTimeout(resolve, 100));
	}
	return {baseURL, modelId: install.model.id, port, args, child, tail, stop: () => end('SIGTERM'), kill: () => end('SIGKILL')};
}
