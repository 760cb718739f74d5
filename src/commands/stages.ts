import chalk from 'chalk';
import {summaryOf} from './registry.js';
import {createRuntime, type Runtime} from '../app/runtime.js';
import type {Blueprint} from '../domain/blueprint.js';
import type {Evidence} from '../domain/kb.js';
import type {Seed} from '../domain/seed.js';
import {blueprintContextFor, generateBlueprint} from '../pipeline/blueprint.js';
import {generateShards} from '../pipeline/shards.js';
import {StageError} from '../pipeline/stageError.js';
import {formatBlueprint, formatEvidence, formatShards} from '../present/text.js';
import {ExitCode, UserError} from '../util/errors.js';
import {seedFromFlags} from './episodeOptions.js';
import {runtimeFlags, runtimeOptionsFromFlags} from './runtimeFlags.js';
import {type Command, type CommandContext, type Flags, write, writeJson} from './types.js';

const stageFlags = {
	tier: {type: 'string', description: 'Override the seed\'s tier: standard, contextual or normative'},
	json: {type: 'boolean', description: 'Print JSON'},
	...runtimeFlags,
} as const;

async function buildBlueprint(runtime: Runtime, seed: Seed): Promise<{evidence: Evidence; blueprint: Blueprint}> {
	const {universe} = runtime;
	const persona = universe.personaById.get(seed.personaId)!;
	const template = universe.templateById.get(seed.templateId)!;
	const evidence = await runtime.evidence({seed, persona, template, universe});
	const blueprint = await generateBlueprint(blueprintContextFor({universe, seed, persona, template, evidence}), {gateway: runtime.gateway, step: 0});
	return {evidence, blueprint};
}

/** Blueprints and shards are written by the generator and audited by the validator. */
const STAGE_ROLES = ['generator', 'validator'] as const;

/** The seed argument, the runtime, and the mock notice every stage command starts with. */
function prepare(context: CommandContext): {flags: Flags; runtime: Runtime; seed: Seed} {
	const {args, io} = context;
	if (!args[0]) throw new UserError('Give a seed id: <persona-id>:<template-id> (list some with `npx cultureconverse seeds`).');
	const flags: Flags = {...context.flags, seed: args[0]};
	const runtime = createRuntime({options: runtimeOptionsFromFlags(flags), io, universe: context.universe(), roles: STAGE_ROLES});
	const seed = seedFromFlags(runtime, flags);
	if (!flags['json'] && runtime.settings.offline) io.stderr.write(chalk.yellow('Offline mock provider: no model endpoint is configured; this output is deterministic filler built from the seed and KB evidence.\n'));
	return {flags, runtime, seed};
}

/**
 * A stage command: seed argument, runtime and mock notice, then `body`, printed as JSON or text; a
 * stage that could not produce a valid artefact prints its attempts trace and exits 3.
 */
function stageRun(body: (runtime: Runtime, seed: Seed) => Promise<{json: unknown; text: string}>): Command['run'] {
	return async (context) => {
		const {io} = context;
		const {flags, runtime, seed} = prepare(context);
		await runtime.check(STAGE_ROLES);
		try {
			const out = await body(runtime, seed);
			if (flags['json']) writeJson(io, out.json);
			else write(io, `Seed ${seed.id} (tier ${seed.tier})\n\n${out.text}`);
			return ExitCode.ok;
		} catch (error) {
			if (!(error instanceof StageError)) throw error;
			io.stderr.write(`cultureconverse: ${error.message}\n`);
			for (const attempt of error.attempts) io.stderr.write(`  attempt ${attempt.attempt}: ${attempt.problems.join('; ')}\n`);
			return ExitCode.episodeError;
		}
	};
}

export const blueprintCommand: Command = {
	name: 'blueprint',
	summary: summaryOf('blueprint'),
	usage: 'blueprint <seed-id> [--tier T] [--json] [--generator-model M]',
	flags: stageFlags,
	run: stageRun(async (runtime, seed) => {
		const {evidence, blueprint} = await buildBlueprint(runtime, seed);
		return {json: {seed, evidence, blueprint}, text: `${formatEvidence(evidence)}\n\n${formatBlueprint(blueprint)}`};
	}),
};

export const shardsCommand: Command = {
	name: 'shards',
	summary: summaryOf('shards'),
	usage: 'shards <seed-id> [--tier T] [--json]',
	flags: stageFlags,
	run: stageRun(async (runtime, seed) => {
		const {evidence, blueprint} = await buildBlueprint(runtime, seed);
		const persona = runtime.universe.personaById.get(seed.personaId)!;
		const {shards, attempts} = await generateShards({blueprint, tier: seed.tier, persona, language: runtime.universe.languages.get(persona.language)!}, {gateway: runtime.gateway, step: 0});
		return {json: {seed, evidence, blueprint: {...blueprint, meta: {...blueprint.meta, shardAttempts: attempts}}, shards}, text: `${formatBlueprint(blueprint)}\n\n${formatShards(shards)}`};
	}),
};
