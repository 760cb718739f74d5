import assert from 'node:assert/strict';
import {mkdirSync, readFileSync, writeFileSync} from 'node:fs';
import path from 'node:path';
import {describe, it} from 'node:test';
import {DEFAULT_EMBEDDER} from '../src/kb/embedder.js';
import {HashEmbedder} from '../src/kb/hashEmbedder.js';
import {runCli} from './helpers/cli.js';
import {tempDir} from './helpers/tmp.js';

/*
 * The embedder fallback is remembered by every command, as the README says (issue 22, item 8): once
 * the default model could not be loaded, `<workspace>/embedder-unavailable.json` is honoured by `run`,
 * `blueprint` and `batch` (and the TUI, which builds the same runtime), not only by `kb stats`; they
 * neither try the download again nor repeat the warning. The failure is planted, so nothing here
 * reaches the network: before the fix these commands ignored it and tried the download.
 */

describe('a default embedder that could not be loaded is remembered by every command', () => {
	it('run, blueprint and batch use hash without trying the model again or saying so again', async () => {
		const cwd = tempDir('cc-embed-');
		const home = path.join(cwd, 'home');
		mkdirSync(home, {recursive: true});
		const failure = path.join(home, 'embedder-unavailable.json');
		writeFileSync(failure, JSON.stringify({spec: DEFAULT_EMBEDDER, reason: 'fetch failed', at: '2026-12-01T00:00:00.000Z'}));
		// No CULTURECONVERSE_EMBEDDER: the default is what the commands would load.
		// runCli's test environment names hash; empty here, so the default is what the commands would load.
		const env = {CULTURECONVERSE_EMBEDDER: '', CULTURECONVERSE_HOME: home, HF_HOME: path.join(cwd, 'hf'), PATH: process.env['PATH']};
		const sessions = path.join(cwd, 'sessions');
		const seed = 'my-tamil-hindu-a55-f:culinary.dietary-rules.02';
		for (const args of [
			['run', '--seed', seed, '--tier', 'standard', '--sessions-dir', sessions, '--json'],
			['blueprint', seed, '--tier', 'standard', '--json'],
			['batch', '--name', 'fallback', '--persona', 'my-tamil-hindu-a55-f', '--template', 'culinary.dietary-rules.01', '--sessions-dir', sessions],
		]) {
			const result = await runCli(args, {env, cwd});
			assert.equal(result.code, 0, `${args[0]}: ${result.stderr}`);
			assert.doesNotMatch(result.stderr, /cannot load embedder/, `${args[0]} said it again`);
		}
		const saved = JSON.parse(readFileSync(path.join(sessions, readFileSync(path.join(sessions, 'batches', 'fallback.json'), 'utf8').match(/"sessionId":"([^"]+)"/)![1]! + '.json'), 'utf8')) as {config: {embedder: string}};
		assert.equal(saved.config.embedder, new HashEmbedder().id, 'the episode ran on the hash embedder');
		assert.match(readFileSync(failure, 'utf8'), /fetch failed/, 'the remembered failure stays until the model is named');
	});
});
