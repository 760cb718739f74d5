import assert from 'node:assert/strict';
import {writeFileSync} from 'node:fs';
import path from 'node:path';
import {describe, it} from 'node:test';
import {type Install, MANIFEST, findInstall, forPurpose, realDir, serverArgs} from '../scripts/real/lib.js';
import {tempDir} from './helpers/tmp.js';

const model = (id: string, file: string) => ({id, name: id, licence: 'Apache-2.0', file, bytes: 1, sha256: 'x', from: 'test'});

describe('real:setup and real:serve helpers', () => {
	it('keep everything in the user\'s cache folder, never in the project', () => {
		assert.equal(realDir({XDG_CACHE_HOME: '/c'}), path.join('/c', 'cultureconverse', 'real'));
		assert.equal(realDir({CULTURECONVERSE_REAL_DIR: '/x/y'}), '/x/y');
		assert.ok(realDir({}).endsWith(path.join('.cache', 'cultureconverse', 'real')));
		assert.ok(!realDir({XDG_CACHE_HOME: 'relative'}).startsWith('relative'), 'a relative XDG_CACHE_HOME is ignored, as the spec says');
	});

	it('say what is missing, and take a GGUF or a server binary the user has', () => {
		const dir = tempDir();
		const missing = findInstall({CULTURECONVERSE_REAL_DIR: dir});
		assert.ok(!missing.ok && /npm run real:setup/.test(missing.reason));
		writeFileSync(path.join(dir, MANIFEST), '{not json');
		const broken = findInstall({CULTURECONVERSE_REAL_DIR: dir});
		assert.ok(!broken.ok && /not JSON/.test(broken.reason));
		const binary = path.join(dir, 'llama-server');
		const gguf = path.join(dir, 'Mine-7B.Q4.gguf');
		writeFileSync(binary, '');
		writeFileSync(gguf, 'GGUF');
		writeFileSync(path.join(dir, MANIFEST), '{}');
		const empty = findInstall({CULTURECONVERSE_REAL_DIR: dir});
		assert.ok(!empty.ok && /no llama-server/.test(empty.reason));
		const own = findInstall({CULTURECONVERSE_REAL_DIR: dir, CULTURECONVERSE_LLAMA_SERVER: binary, CULTURECONVERSE_REAL_GGUF: gguf});
		assert.ok(own.ok);
		assert.equal(own.install.model.id, 'Mine-7B.Q4');
		assert.equal(own.install.llamaCpp.binary, binary);
		const absent = findInstall({CULTURECONVERSE_REAL_DIR: dir, CULTURECONVERSE_LLAMA_SERVER: binary, CULTURECONVERSE_REAL_GGUF: path.join(dir, 'nope.gguf')});
		assert.ok(!absent.ok && /does not exist/.test(absent.reason));
	});

	it('start llama-server on loopback only, without the web UI, with a reply cap and the model under its id', () => {
		const dir = tempDir();
		const install: Install = {llamaCpp: {from: 'test', binary: '/bin/true', buildSeconds: null, cmakeFlags: []}, model: model('serve-model', path.join(dir, 'a.gguf')), testModel: model('tiny', path.join(dir, 'b.gguf'))};
		const args = serverArgs(install, 4321, {context: 4096, slots: 4});
		const value = (flag: string) => args[args.indexOf(flag) + 1];
		assert.equal(value('--host'), '127.0.0.1');
		assert.equal(value('--port'), '4321');
		assert.equal(value('--alias'), 'serve-model');
		assert.equal(value('--ctx-size'), '4096');
		assert.equal(value('--parallel'), '4');
		assert.equal(value('--n-predict'), '1024');
		assert.equal(value('--threads'), '1');
		assert.ok(args.includes('--no-webui'));
		// The tests take the tiny model only when its file is there.
		assert.equal(forPurpose(install, 'test').model.id, 'serve-model');
		writeFileSync(path.join(dir, 'b.gguf'), 'GGUF');
		assert.equal(forPurpose(install, 'test').model.id, 'tiny');
		assert.equal(forPurpose(install, 'serve').model.id, 'serve-model');
	});
});
