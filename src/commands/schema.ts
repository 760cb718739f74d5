import {z} from 'zod';
import {summaryOf} from './registry.js';
import {getSchema, schemaNames} from '../domain/registry.js';
import {UserError} from '../util/errors.js';
import {unknownMessage} from '../util/suggest.js';
import {renderTable} from '../util/table.js';
import {type Command, write, writeJson} from './types.js';

export const schemaCommand: Command = {
	name: 'schema',
	summary: summaryOf('schema'),
	usage: 'schema [<name>] [--json]',
	flags: {json: {type: 'boolean', description: 'With no name: list the names as JSON'}},
	async run({args, flags, io}) {
		const name = args[0];
		if (!name) {
			const names = schemaNames();
			if (flags['json']) writeJson(io, names);
			else write(io, renderTable(names, [{header: 'NAME', value: (row) => row.name}, {header: 'DESCRIPTION', value: (row) => row.description}]));
			return 0;
		}
		const schema = getSchema(name);
		if (!schema) throw new UserError(unknownMessage('schema', name, schemaNames().map((row) => row.name)));
		writeJson(io, {$id: `cultureconverse:${name}`, ...z.toJSONSchema(schema, {io: 'input', unrepresentable: 'any'})});
		return 0;
	},
};
