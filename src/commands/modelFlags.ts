import {ModelRole} from '../domain/session.js';
import {MODEL_DEFAULTS} from '../llm/config.js';
import {PRESET_IDS} from '../llm/presets.js';
import type {ModelOptions} from '../llm/settings.js';
import {UserError} from '../util/errors.js';
import type {Flags, FlagSpec} from './types.js';

/*
 * The model flags of the command line and their conversion to the core's `ModelOptions`. Checks
 * about flag syntax (a string flag without a value, a count that is not a whole number) are made
 * here; what a value means (a URL, a provider name) is checked where it is used (llm/settings.ts).
 */

/** Flags every command that calls models accepts (merge into a command's `flags`). */
export const modelFlags: Record<string, FlagSpec> = {
	config: {type: 'string', description: 'Config file (default: ./cultureconverse.config.json when present)'},
	model: {type: 'string', description: 'Model for every role not named otherwise (by a --<role>-model flag or the role\'s entry in the config file)'},
	generatorModel: {type: 'string', description: 'Model for blueprint and shard generation ("mock", "replay:FILE" or a model name)'},
	validatorModel: {type: 'string', description: 'Model for blueprint and shard audits'},
	simulatorModel: {type: 'string', description: 'Model for the simulated user'},
	assistantModel: {type: 'string', description: 'Model for the assistant under test'},
	judgeModel: {type: 'string', description: 'Model for the judge'},
	baseUrl: {type: 'string', description: 'OpenAI-compatible endpoint for every role (overrides OPENAI_BASE_URL and the config file)'},
	provider: {type: 'string', description: `Which provider every role's endpoint is (${PRESET_IDS.join(', ')} or compatible): sets auth, URL shape, parameter rules and error shapes; default: guessed from the base URL (docs/providers.md)`},
	cache: {type: 'boolean', default: true, description: 'Use the response cache (--no-cache to call the model every time)'},
	record: {type: 'string', description: 'Append every model exchange to this JSONL file (play it back with --<role>-model replay:FILE)'},
	concurrency: {type: 'number', description: `Model calls in flight at once, across roles (default ${MODEL_DEFAULTS.concurrency})`},
	stream: {type: 'boolean', default: true, description: '--no-stream asks for whole replies in every role (e.g. for an OpenAI organisation that is not verified); by default streaming is auto: tried, and dropped for the run if the server refuses it'},
	preflight: {type: 'boolean', default: true, description: 'Before model work, check that every endpoint answers and lists every role\'s model (--no-preflight skips it)'},
	maxReplyKb: {type: 'number', description: 'Largest reply read from a model, in KB, for every role (default 256 for the assistant, 64 for the others); a longer one is cut there and recorded as cut'},
};

/** The model options these flags choose; a flag with a value of the wrong kind stops here with the flag's name. */
export function modelOptionsFromFlags(flags: Flags): ModelOptions {
	const options: {-readonly [K in keyof ModelOptions]: ModelOptions[K]} = {};
	const config = stringFlag(flags, 'config');
	if (config !== undefined) options.config = config;
	const baseUrl = stringFlag(flags, 'baseUrl');
	if (baseUrl !== undefined) options.baseUrl = baseUrl;
	const provider = stringFlag(flags, 'provider');
	if (provider !== undefined) options.provider = provider;
	const roleModels: Partial<Record<ModelRole, string>> = {};
	for (const role of ModelRole.options) {
		const named = stringFlag(flags, `${role}Model`);
		if (named !== undefined) roleModels[role] = named;
	}
	if (Object.keys(roleModels).length > 0) options.roleModels = roleModels;
	const model = stringFlag(flags, 'model');
	if (model !== undefined) options.model = model;
	const maxReplyKb = replyKBFlag(flags);
	if (maxReplyKb !== undefined) options.maxReplyKb = maxReplyKb;
	const concurrency = concurrencyFlag(flags);
	if (concurrency !== undefined) options.concurrency = concurrency;
	const record = stringFlag(flags, 'record');
	if (record !== undefined) options.record = record;
	// Only an explicit false turns these off (meow gives the defaults as true).
	for (const name of ['cache', 'stream', 'preflight'] as const) if (flags[name] === false) options[name] = false;
	return options;
}

/** The --<role>-model flags that name these models (e.g. a saved session's, from `modelFlagsOf`). */
export function roleModelFlags(models: Readonly<Partial<Record<ModelRole, string>>>): Flags {
	const out: Flags = {};
	for (const role of ModelRole.options) if (models[role] !== undefined) out[`${role}Model`] = models[role];
	return out;
}

/** A string flag's value; undefined when absent or empty. */
function stringFlag(flags: Flags, name: string): string | undefined {
	const value = flags[name];
	if (value === undefined || value === '') return undefined;
	if (typeof value !== 'string') throw new UserError(`--${name.replace(/[A-Z]/g, (c) => `-${c.toLowerCase()}`)} needs a value.`);
	return value;
}

function concurrencyFlag(flags: Flags): number | undefined {
	const value = flags['concurrency'];
	if (value === undefined) return undefined;
	if (typeof value !== 'number' || !Number.isInteger(value) || value < 1) throw new UserError(`--concurrency must be a positive whole number (got ${String(value)}).`);
	return value;
}

/** `--max-reply-kb N`: the reply-size limit of every role (llm/replyLimit.ts), over the config's. */
function replyKBFlag(flags: Flags): number | undefined {
	const value = flags['maxReplyKb'];
	if (value === undefined) return undefined;
	if (typeof value !== 'number' || !Number.isFinite(value) || value <= 0 || value > 1024 * 1024) throw new UserError(`--max-reply-kb must be a number of kilobytes above 0 (got ${String(value)}).`);
	return value;
}
