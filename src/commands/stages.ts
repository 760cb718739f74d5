import chalk from 'chalk';
import {seedFromFlags} from '../app/episodes.js';
import {createRuntime, type Runtime, runtimeFlags} from '../app/runtime.js';
import type {Blueprint} from '../domain/blueprint.js';
import type {Evidence} from '../domain/kb.js';
import type {Seed} from '../domain/seed.js';
import type {Shard} from '../domain/shards.js';
import {blueprintContextFor, generateBlueprint} from '../pipeline/blueprint.js';
import {generateShards} from '../pipeline/shards.js';
import {StageError} from '../pipeline/stageError.js';
import {formatBlueprint, formatEvidence, formatShards} from '../present/text.js';
import {ExitCode, UserError} from '../util/errors.js';
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

/** The seed argument, the runtime, and the mock notice every stage command starts with. */
function prepare(context: CommandContext): {flags: Flags; runtime: Runtime; seed: Seed} {
	const {args, io} = context;
	if (!args[0]) throw new UserError('Give a seed id: <persona-id>:<template-id> (list some with `cultureconverse seeds`).');
	const flags: Flags = {...context.flags, seed: args[0]};
	const runtime = createRuntime({flags, io, universe: context.universe()});
	const seed = seedFromFlags(runtime, flags);
	if (!flags['json'] && runtime.settings.offline) io.stderr.write(chalk.yellow('Offline mock provider: no model endpoint is configured; this output is deterministic filler built from the seed and KB evidence.\n'));
	return {flags, runtime, seed};
}

async function guarded(run: () => Promise<number>, io: CommandContext['io']): Promise<number> {
	try {
		return await run();
	} catch (error) {
		if (error instanceof StageError) {
			io.stderr.write(`cultureconverse: ${error.message}\n`);
			for (const attempt of error.attempts) io.stderr.write(`  attempt ${attempt.attempt}: ${attempt.problems.join('; ')}\n`);
			return ExitCode.episodeError;
		}
		throw error;
	}
}

export const blueprintCommand: Command = {
	name: 'blueprint',
	summary: 'Run the blueprint stage alone for a seed: evidence, then public / private / oracle state',
	usage: 'blueprint <seed-id> [--tier T] [--json] [--generator-model M]',
	flags: stageFlags,
	async run(context) {
		const {io} = context;
		const {flags, runtime, seed} = prepare(context);
		return guarded(async () => {
			const {evidence, blueprint} = await buildBlueprint(runtime, seed);
			if (flags['json']) writeJson(io, {seed, evidence, blueprint});
			else write(io, `Seed ${seed.id} (tier ${seed.tier})\n\n${formatEvidence(evidence)}\n\n${formatBlueprint(blueprint)}`);
			return ExitCode.ok;
		}, io);
	},
};

export const shardsCommand: Command = {
	name: 'shards',
	summary: 'Run the shard stage for a seed (the blueprint comes from the response cache when it was made before)',
	usage: 'shards <seed-id> [--tier T] [--json]',
	flags: stageFlags,
	async run(context) {
		const {io} = context;
		const {flags, runtime, seed} = prepare(context);
		return guarded(async () => {
			const {evidence, blueprint} = await buildBlueprint(runtime, seed);
			const persona = runtime.universe.personaById.get(seed.personaId)!;
			const {shards, attempts}: {shards: Shard[]; attempts: Blueprint['meta']['shardAttempts']} = await generateShards(
				{blueprint, tier: seed.tier, persona, language: runtime.universe.languages.get(persona.language)!},
				{gateway: runtime.gateway, step: 0},
			);
			if (flags['json']) writeJson(io, {seed, evidence, blueprint: {...blueprint, meta: {...blueprint.meta, shardAttempts: attempts}}, shards});
			else write(io, `Seed ${seed.id} (tier ${seed.tier})\n\n${formatBlueprint(blueprint)}\n\n${formatShards(shards)}`);
			return ExitCode.ok;
		}, io);
	},
};
