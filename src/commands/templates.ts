import {runtimeFlags} from './runtimeFlags.js';
import {summaryOf} from './registry.js';
import type {ResolvedTemplate} from '../domain/template.js';
import {filterTemplates} from '../universe/seeds.js';
import {UserError} from '../util/errors.js';
import {unknownMessage} from '../util/suggest.js';
import {renderTable} from '../util/table.js';
import {type Command, type CommandContext, write, writeJson} from './types.js';

/** Subcommands beyond listing register here (e.g. `generate`, added by the pipeline). */
export const templateSubcommands = new Map<string, (context: CommandContext) => Promise<number>>();

export const templatesCommand: Command = {
	name: 'templates',
	summary: summaryOf('templates'),
	usage: ['templates [--domain D] [--subdomain S] [--json]', 'templates show <template-id> [--json]', 'templates generate --subdomain S [--count N]'].join('\n  '),
	flags: {
		domain: {type: 'string', description: 'Domain id, e.g. culinary'},
		subdomain: {type: 'string', description: 'Subdomain id, e.g. culinary.dietary-rules (or just dietary-rules)'},
		count: {type: 'number', description: 'generate: how many templates to ask for', default: 10},
		json: {type: 'boolean', description: 'Print JSON'},
		...runtimeFlags,
	},
	async run(context) {
		const {args, flags, io, universe} = context;
		const sub = args[0];
		if (sub === 'show') {
			const id = args[1];
			if (!id) throw new UserError('Usage: npx cultureconverse templates show <template-id>');
			const template = universe().templateById.get(id);
			if (!template) throw new UserError(unknownMessage('template', id, universe().templateById.keys()));
			if (flags['json']) writeJson(io, template);
			else write(io, showTemplate(template));
			return 0;
		}
		if (sub) {
			const handler = templateSubcommands.get(sub);
			if (!handler) throw new UserError(unknownMessage('templates subcommand', sub, ['show', ...templateSubcommands.keys()]));
			return handler({...context, args: args.slice(1)});
		}
		const templates = filterTemplates(universe(), {domain: flags['domain'] as string | undefined, subdomain: flags['subdomain'] as string | undefined});
		if (flags['json']) {
			writeJson(io, templates);
			return 0;
		}
		write(io, renderTable(templates, [
			{header: 'ID', value: (t) => t.id},
			{header: 'DOMAIN', value: (t) => t.domain},
			{header: 'TITLE', value: (t) => t.title, max: 44},
			{header: 'SLOTS', value: (t) => t.slots.map((slot) => slot.name).join(' '), max: 60},
		]));
		write(io, `${templates.length} templates`);
		return 0;
	},
};

export function showTemplate(template: ResolvedTemplate): string {
	return [
		`${template.id}  (${template.domain} / ${template.subdomain}, from ${template.source})`,
		`Title:      ${template.title}`,
		`Sketch:     ${template.sketch}`,
		`Ask:        ${template.ask}`,
		`Dimensions: ${template.dimensions.join(', ')}`,
		'Slots:',
		...template.slots.map((slot) => `  {{${slot.name}}}  ${slot.meaning}`),
	].join('\n');
}
