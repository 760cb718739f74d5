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
		await loadRegistrations();
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

/**
 * The modules that register shapes of their own (`registerSchema`). A shape was known only once its
 * module had loaded, so `schema batch`, `schema config` or `schema norm` answered "Unknown schema"
 * although the manual (docs/reference.md) names them: `schema` loads every one of them first.
 */
async function loadRegistrations(): Promise<void> {
	await Promise.all([
		import('./batch.js'),
		import('./crisp.js'),
		import('./kb.js'),
		import('../llm/config.js'),
		import('../domain/ratings.js'),
		import('../export/sft.js'),
		import('../export/pairs.js'),
		import('../export/pairFormats.js'),
	]);
}
