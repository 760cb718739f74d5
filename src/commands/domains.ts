import {renderTable} from '../util/table.js';
import {summaryOf} from './registry.js';
import {type Command, write, writeJson} from './types.js';

export const domainsCommand: Command = {
	name: 'domains',
	summary: summaryOf('domains'),
	usage: 'domains [--json]',
	flags: {json: {type: 'boolean', description: 'Print a JSON array of domains, each with its subdomains'}},
	async run({flags, io, universe}) {
		const {domains, templates} = universe();
		if (flags['json']) {
			writeJson(io, domains);
			return 0;
		}
		const rows = domains.flatMap((domain) => domain.subdomains.map((subdomain) => ({domain, subdomain})));
		write(io, renderTable(rows, [
			{header: 'DOMAIN', value: (row) => row.domain.id},
			{header: 'SUBDOMAIN', value: (row) => row.subdomain.id},
			{header: 'TEMPLATES', value: (row) => templates.filter((template) => template.subdomain === row.subdomain.id).length, align: 'right'},
			{header: 'DESCRIPTION', value: (row) => row.subdomain.description, max: 70},
		]));
		write(io, `${domains.length} domains, ${rows.length} subdomains`);
		return 0;
	},
};
