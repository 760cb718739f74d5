import {filterPersonas} from '../universe/seeds.js';
import {summaryOf} from './registry.js';
import {renderTable} from '../util/table.js';
import {type Command, write, writeJson} from './types.js';

export const personasCommand: Command = {
	name: 'personas',
	summary: summaryOf('personas'),
	usage: 'personas [--region R] [--identity ID|LABEL] [--age 18-34|35-54|55+] [--gender female|male] [--json]',
	flags: {
		region: {type: 'string', description: 'Region code: BN CN ID JP KR MY PH SG TH VN'},
		identity: {type: 'string', description: 'Identity id or (part of) its label, e.g. "tamil" or my-tamil-hindu'},
		age: {type: 'string', description: 'Age cohort: 18-34, 35-54 or 55+'},
		gender: {type: 'string', description: 'female or male'},
		language: {type: 'string', description: 'Native language id, e.g. thai'},
		json: {type: 'boolean', description: 'Print a JSON array'},
	},
	async run({flags, io, universe}) {
		const personas = filterPersonas(universe(), {
			region: flags['region'] as string | undefined,
			identity: flags['identity'] as string | undefined,
			age: flags['age'] as string | undefined,
			gender: flags['gender'] as string | undefined,
			language: flags['language'] as string | undefined,
		});
		if (flags['json']) {
			writeJson(io, personas);
			return 0;
		}
		write(io, renderTable(personas, [
			{header: 'ID', value: (p) => p.id},
			{header: 'REGION', value: (p) => p.region},
			{header: 'IDENTITY', value: (p) => p.identity, max: 40},
			{header: 'LANGUAGE', value: (p) => p.languageName},
			{header: 'AGE', value: (p) => p.age},
			{header: 'GENDER', value: (p) => p.gender},
		]));
		write(io, `${personas.length} personas`);
		return 0;
	},
};
