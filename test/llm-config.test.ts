import assert from 'node:assert/strict';
import {writeFileSync} from 'node:fs';
import path from 'node:path';
import {describe, it} from 'node:test';
import {z} from 'zod';
import type {Flags} from '../src/commands/types.js';
import {getSchema} from '../src/domain/registry.js';
import {ModelRole} from '../src/domain/session.js';
import {CONFIG_FILE_NAME, ConfigFile} from '../src/llm/config.js';
import {modelFlags, modelOptionsFromFlags} from '../src/commands/modelFlags.js';
import {resolveRoleSettings, usesMock} from '../src/llm/settings.js';
import {DataError, UserError} from '../src/util/errors.js';
import {tempDir} from './helpers/tmp.js';

const ROLES = ModelRole.options;

function resolve(options: {flags?: Flags; env?: NodeJS.ProcessEnv; config?: unknown; cwd?: string} = {}) {
	const cwd = options.cwd ?? tempDir();
	if (options.config !== undefined) writeFileSync(path.join(cwd, CONFIG_FILE_NAME), typeof options.config === 'string' ? options.config : JSON.stringify(options.config));
	// Through the face's converter, as the command line does: flag-syntax messages are made there.
	return resolveRoleSettings({options: modelOptionsFromFlags({cache: true, ...options.flags}), env: options.env ?? {}, cwd});
}

describe('llm settings: endpoint detection', () => {
	it('uses the mock for every role when no base URL and no API key exist anywhere', () => {
		const settings = resolve();
		assert.equal(settings.offline, true);
		for (const role of ROLES) {
			assert.equal(settings.roles[role].provider, 'mock');
			assert.equal(settings.roles[role].model, 'mock');
		}
		assert.equal(usesMock(settings.roles), true);
	});

	it('never uses the mock when an API key is set: every role gets gpt-5-mini on OpenAI', () => {
		const settings = resolve({env: {OPENAI_API_KEY: 'sk-1'}});
		assert.equal(settings.offline, false);
		for (const role of ROLES) assert.deepEqual([settings.roles[role].provider, settings.roles[role].model, settings.roles[role].baseURL], ['openai', 'gpt-5-mini', null]);
		assert.equal(usesMock(settings.roles), false);
	});

	it('never uses the mock when only a base URL is set (keyless local endpoint)', () => {
		const settings = resolve({env: {OPENAI_BASE_URL: 'http://localhost:8000/v1'}});
		for (const role of ROLES) assert.deepEqual([settings.roles[role].provider, settings.roles[role].baseURL], ['openai', 'http://localhost:8000/v1']);
	});

	it('a key in a role\'s own apiKeyEnv counts as an endpoint too, and then a role without a key fails loudly', () => {
		assert.throws(
			() => resolve({env: {JUDGE_KEY: 'sk-j'}, config: {roles: {judge: {apiKeyEnv: 'JUDGE_KEY'}}}}),
			(error: unknown) => error instanceof UserError && /generator role .* OPENAI_API_KEY/.test(error.message),
		);
		const settings = resolve({env: {JUDGE_KEY: 'sk-j', OPENAI_API_KEY: 'sk-o'}, config: {roles: {judge: {apiKeyEnv: 'JUDGE_KEY'}}}});
		assert.equal(settings.apiKeyEnv.judge, 'JUDGE_KEY');
		assert.equal(settings.apiKeyEnv.assistant, 'OPENAI_API_KEY');
	});

	it('an explicit "mock" model selects the mock for that role only', () => {
		const settings = resolve({env: {OPENAI_API_KEY: 'sk-1'}, flags: {simulatorModel: 'mock'}});
		assert.equal(settings.roles.simulator.provider, 'mock');
		assert.equal(settings.roles.assistant.provider, 'openai');
	});

	it('"replay:FILE" selects the replay provider with the file resolved from the working directory', () => {
		const cwd = tempDir();
		const settings = resolve({cwd, flags: {assistantModel: 'replay:runs/a.jsonl'}});
		assert.equal(settings.roles.assistant.provider, 'replay');
		assert.equal(settings.roles.assistant.replayFile, path.join(cwd, 'runs/a.jsonl'));
		assert.throws(() => resolve({flags: {judgeModel: 'replay:'}}), /needs a file/);
	});
});

describe('llm settings: precedence (flags > config > env > defaults)', () => {
	it('config beats env, flags beat config', () => {
		const env = {OPENAI_API_KEY: 'sk-1', OPENAI_BASE_URL: 'http://env.example/v1'};
		const config = {baseURL: 'http://config.example/v1', model: 'config-model', roles: {judge: {model: 'judge-config-model', baseURL: 'http://judge.example/v1', temperature: 0, maxTokens: 900, structured: 'prompt', timeoutMs: 5000}}};
		const fromConfig = resolve({env, config});
		assert.equal(fromConfig.roles.generator.baseURL, 'http://config.example/v1');
		assert.equal(fromConfig.roles.generator.model, 'config-model');
		assert.equal(fromConfig.roles.judge.model, 'judge-config-model');
		assert.equal(fromConfig.roles.judge.baseURL, 'http://judge.example/v1');
		assert.deepEqual([fromConfig.roles.judge.temperature, fromConfig.roles.judge.maxTokens, fromConfig.roles.judge.structured, fromConfig.roles.judge.timeoutMs], [0, 900, 'prompt', 5000]);
		assert.deepEqual([fromConfig.roles.assistant.temperature, fromConfig.roles.assistant.maxTokens, fromConfig.roles.assistant.structured, fromConfig.roles.assistant.timeoutMs], [null, null, 'auto', 120_000]);

		const fromFlags = resolve({env, config, flags: {baseUrl: 'http://flag.example/v1', judgeModel: 'judge-flag-model'}});
		for (const role of ROLES) assert.equal(fromFlags.roles[role].baseURL, 'http://flag.example/v1');
		assert.equal(fromFlags.roles.judge.model, 'judge-flag-model');
		assert.equal(fromFlags.roles.generator.model, 'config-model');
	});

	it('env base URL applies when neither flag nor config sets one', () => {
		assert.equal(resolve({env: {OPENAI_API_KEY: 'k', OPENAI_BASE_URL: 'http://env.example/v1'}}).roles.judge.baseURL, 'http://env.example/v1');
	});

	it('global options: defaults, config, flags', () => {
		const defaults = resolve();
		assert.deepEqual([defaults.concurrency, defaults.cache, defaults.validationRetries, defaults.record, defaults.configFile], [4, true, 2, null, null]);
		assert.deepEqual(defaults.retry, {maxAttempts: 5, baseDelayMs: 1000, maxDelayMs: 30_000});
		const cwd = tempDir();
		const configured = resolve({cwd, config: {concurrency: 8, cache: false, validationRetries: 1, retry: {maxAttempts: 2}}});
		assert.deepEqual([configured.concurrency, configured.cache, configured.validationRetries, configured.retry.maxAttempts, configured.retry.baseDelayMs], [8, false, 1, 2, 1000]);
		assert.equal(configured.configFile, path.join(cwd, CONFIG_FILE_NAME));
		const flagged = resolve({cwd, flags: {concurrency: 2, cache: false, record: 'out/run.jsonl'}, config: {concurrency: 8}});
		assert.deepEqual([flagged.concurrency, flagged.cache, flagged.record], [2, false, path.join(cwd, 'out/run.jsonl')]);
		assert.throws(() => resolve({flags: {concurrency: 0}}), /--concurrency must be a positive whole number/);
	});

	it('--config reads another file, and a missing one is an error', () => {
		const dir = tempDir();
		writeFileSync(path.join(dir, 'alt.json'), JSON.stringify({model: 'alt-model', baseURL: 'http://alt.example/v1'}));
		assert.equal(resolve({flags: {config: path.join(dir, 'alt.json')}}).roles.judge.model, 'alt-model');
		assert.throws(() => resolve({flags: {config: path.join(dir, 'nope.json')}}), (error: unknown) => error instanceof UserError && /nope\.json does not exist/.test(error.message));
	});
});

describe('llm config file validation', () => {
	const problem = (config: unknown) => {
		try {
			resolve({config});
		} catch (error) {
			assert.ok(error instanceof DataError, String(error));
			return error.message;
		}
		assert.fail('expected a DataError');
	};

	it('names the file and the field', () => {
		const message = problem({roles: {judge: {temperature: 'hot'}}});
		assert.match(message, new RegExp(`${CONFIG_FILE_NAME.replace('.', '\\.')}`));
		assert.match(message, /roles\.judge\.temperature/);
	});

	it('rejects unknown fields, bad enums, bad URLs and bad JSON', () => {
		assert.match(problem({roles: {jduge: {}}}), /jduge/);
		assert.match(problem({roles: {judge: {structured: 'xml'}}}), /roles\.judge\.structured/);
		assert.match(problem({baseURL: 'localhost:8000'}), /baseURL/);
		assert.match(problem({concurrency: 0}), /concurrency/);
		assert.match(problem('{"model": '), /not valid JSON/);
	});

	it('refuses API keys in the file and explains apiKeyEnv', () => {
		const message = problem({roles: {judge: {apiKey: 'sk-oops'}}});
		assert.match(message, /roles\.judge\.apiKey/);
		assert.match(message, /apiKeyEnv/);
		assert.equal(message.includes('sk-oops'), false, 'the secret is not echoed');
		assert.match(problem({apiKeyEnv: 'sk-live-123'.replace(/-/g, ' ')}), /NAME of an environment variable/);
	});

	it('registers the config schema for `cultureconverse schema config`', () => {
		assert.equal(getSchema('config'), ConfigFile);
		const json = z.toJSONSchema(ConfigFile, {io: 'input', unrepresentable: 'any'}) as {properties: Record<string, unknown>};
		assert.ok(json.properties['roles']);
	});
});

describe('llm model flags', () => {
	it('covers the documented flags, with --no-cache as the negation of cache', () => {
		assert.deepEqual(Object.keys(modelFlags).sort(), ['assistantModel', 'baseUrl', 'cache', 'concurrency', 'config', 'generatorModel', 'judgeModel', 'maxReplyKb', 'model', 'preflight', 'provider', 'record', 'simulatorModel', 'stream', 'validatorModel']);
		assert.equal(modelFlags['cache']!.type, 'boolean');
		assert.equal(modelFlags['cache']!.default, true);
		assert.equal(modelFlags['concurrency']!.type, 'number');
	});

	it('carries every model flag into the model options (a flag the converter forgot would do nothing)', () => {
		const flags: Flags = {};
		for (const [name, spec] of Object.entries(modelFlags)) flags[name] = spec.type === 'boolean' ? false : spec.type === 'number' ? 7 : `value-of-${name}`;
		const options = modelOptionsFromFlags(flags);
		assert.deepEqual(options, {
			config: 'value-of-config',
			model: 'value-of-model',
			roleModels: Object.fromEntries(ROLES.map((role) => [role, `value-of-${role}Model`])),
			baseUrl: 'value-of-baseUrl',
			provider: 'value-of-provider',
			cache: false,
			record: 'value-of-record',
			concurrency: 7,
			stream: false,
			preflight: false,
			maxReplyKb: 7,
		});
		// Defaults as meow gives them (true, nothing typed) choose nothing.
		assert.deepEqual(modelOptionsFromFlags({cache: true, stream: true, preflight: true, model: ''}), {});
		assert.throws(() => modelOptionsFromFlags({judgeModel: true}), /^UserError: --judge-model needs a value\.$/);
	});
});
