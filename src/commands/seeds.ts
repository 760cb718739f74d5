import chalk from 'chalk';
import {Split} from '../domain/seed.js';
import {summaryOf} from './registry.js';
import type {Seed} from '../domain/seed.js';
import {type SeedFilter, SeedSpace, tierFlag} from '../universe/seeds.js';
import {UserError} from '../util/errors.js';
import {showTemplate} from './templates.js';
import {type Command, type Flags, write, writeJson} from './types.js';
import {jsonText} from '../util/outsideText.js';

export const filterFlags = {
	split: {type: 'string', description: 'train or test'},
	tier: {type: 'string', description: 'standard, contextual or normative'},
	region: {type: 'string', description: 'Region code, e.g. MY'},
	identity: {type: 'string', description: 'Identity id or label'},
	domain: {type: 'string', description: 'Domain id'},
	subdomain: {type: 'string', description: 'Subdomain id'},
	persona: {type: 'string', description: 'Persona id'},
	template: {type: 'string', description: 'Template id'},
} as const;

export function seedFilter(flags: Flags): SeedFilter {
	const split = flags['split'] === undefined ? undefined : Split.safeParse(flags['split']);
	if (split && !split.success) throw new UserError(`Unknown split '${String(flags['split'])}'. Use one of: ${Split.options.join(', ')}.`);
	return {
		tier: tierFlag(flags['tier']),
		split: split?.data,
		region: flags['region'] as string | undefined,
		identity: flags['identity'] as string | undefined,
		domain: flags['domain'] as string | undefined,
		subdomain: flags['subdomain'] as string | undefined,
		personaId: flags['persona'] as string | undefined,
		templateId: flags['template'] as string | undefined,
	};
}

export const seedsCommand: Command = {
	name: 'seeds',
	summary: summaryOf('seeds'),
	usage: ['seeds [--split train|test] [--tier T] [--region R] [--identity I] [--domain D] [--limit N] [--offset N] [--json]', 'seeds count [same filters] [--json]'].join('\n  '),
	flags: {
		...filterFlags,
		limit: {type: 'number', default: 20, description: 'How many seeds to list; 0 lists all'},
		offset: {type: 'number', default: 0, description: 'Skip this many matching seeds first'},
		json: {type: 'boolean', description: 'Print JSON'},
	},
	async run({args, flags, io, universe}) {
		const space = new SeedSpace(universe());
		const filter = seedFilter(flags);
		if (args[0] === 'count') return countSeeds(space, filter, Boolean(flags['json']), io);
		if (args[0]) throw new UserError(`Unknown seeds subcommand '${args[0]}'. Did you mean: count?`);
		const limit = Number(flags['limit'] ?? 20);
		const offset = Number(flags['offset'] ?? 0);
		if (!Number.isInteger(limit) || limit < 0) throw new UserError(`--limit must be a whole number >= 0, got '${String(flags['limit'])}'.`);
		if (!Number.isInteger(offset) || offset < 0) throw new UserError(`--offset must be a whole number >= 0, got '${String(flags['offset'])}'.`);
		const page = {offset, limit: limit === 0 ? Number.POSITIVE_INFINITY : limit};
		// Streamed row by row: `--limit 0` lists all 146,160 seeds without holding them (the table's
		// column widths once overflowed the stack above about 125k rows). A reader that closes the pipe
		// early (`| head`) ends the listing quietly.
		const rows = () => paged(space.iterate(filter), page);
		if (flags['json']) {
			io.stdout.write('[');
			let n = 0;
			for (const seed of rows()) {
				if (!io.stdout.writable) break;
				io.stdout.write(`${n++ === 0 ? '\n' : ',\n'}  ${jsonText(seed)}`);
			}
			io.stdout.write(n > 0 ? '\n]\n' : ']\n');
			return 0;
		}
		let width = 'ID'.length;
		for (const id of paged(space.ids(filter), page)) width = Math.max(width, id.length);
		const line = (id: string, tier: string, split: string) => `${id.padEnd(width)}  ${tier.padEnd('contextual'.length)}  ${split}`;
		io.stdout.write(`${chalk.bold(line('ID', 'TIER', 'SPLIT').trimEnd())}\n`);
		let shown = 0;
		for (const seed of rows()) {
			if (!io.stdout.writable) return 0;
			io.stdout.write(`${line(seed.id, seed.tier, seed.split)}\n`);
			shown++;
		}
		write(io, `${shown} shown (offset ${offset}); \`seeds count\` gives the total`);
		return 0;
	},
};

/** The `limit` items after the first `offset` of a generator, as a generator. */
function* paged<T>(items: Iterable<T>, page: {offset: number; limit: number}): Generator<T> {
	let index = 0;
	let given = 0;
	for (const item of items) {
		if (index++ < page.offset) continue;
		if (given++ >= page.limit) return;
		yield item;
	}
}

function countSeeds(space: SeedSpace, filter: SeedFilter, json: boolean, io: Parameters<Command['run']>[0]['io']): number {
	const byTier: Record<string, number> = {standard: 0, contextual: 0, normative: 0};
	const bySplit: Record<string, number> = {train: 0, test: 0};
	let total = 0;
	for (const seed of space.iterate(filter)) {
		total++;
		byTier[seed.tier]!++;
		bySplit[seed.split]!++;
	}
	if (json) {
		writeJson(io, {count: total, byTier, bySplit});
		return 0;
	}
	const share = (n: number) => (total === 0 ? '0.0' : ((100 * n) / total).toFixed(1));
	write(io, String(total));
	write(io, `  tiers:  standard ${byTier['standard']} (${share(byTier['standard']!)}%)  contextual ${byTier['contextual']} (${share(byTier['contextual']!)}%)  normative ${byTier['normative']} (${share(byTier['normative']!)}%)`);
	write(io, `  splits: train ${bySplit['train']}  test ${bySplit['test']} (${share(bySplit['test']!)}%)`);
	return 0;
}

export const seedCommand: Command = {
	name: 'seed',
	summary: summaryOf('seed'),
	usage: 'seed <persona-id>:<template-id> [--json]',
	flags: {json: {type: 'boolean', description: 'Print JSON'}},
	async run({args, flags, io, universe}) {
		const id = args[0];
		if (!id) throw new UserError('Usage: cultureconverse seed <persona-id>:<template-id> (list some with `npx cultureconverse seeds`)');
		const space = new SeedSpace(universe());
		const seed: Seed = space.get(id);
		const persona = space.persona(seed.personaId);
		const template = space.template(seed.templateId);
		const subdomain = universe().subdomainById.get(template.subdomain)!;
		if (flags['json']) {
			writeJson(io, {...seed, persona, template, subdomain});
			return 0;
		}
		write(io, [
			`Seed      ${seed.id}`,
			`Tier      ${seed.tier}`,
			`Split     ${seed.split}`,
			`Persona   ${persona.id}: ${persona.identity} (${persona.regionName}), ${persona.age}, ${persona.gender}, native language ${persona.languageName}`,
			`Tags      ${persona.tags.join(' ')}`,
			`Subdomain ${subdomain.id}: ${subdomain.description}`,
			'',
			showTemplate(template),
		].join('\n'));
		return 0;
	},
};
