import path from 'node:path';
import chalk from 'chalk';
import {createRuntime} from '../app/runtime.js';
import {runtimeOptionsFromFlags} from './runtimeFlags.js';
import {generateTemplates} from '../pipeline/templateGen.js';
import {UserError} from '../util/errors.js';
import {unknownMessage} from '../util/suggest.js';
import {workspaceDir} from '../util/paths.js';
import {templateSubcommands} from './templates.js';
import {type CommandContext, write, writeJson} from './types.js';


/**
 * `templates generate --subdomain S --count N`: stage 1, new culture-agnostic templates written to the
 * workspace's template folder (never into the shipped kb/).
 */
export async function templatesGenerate({flags, io, universe}: CommandContext): Promise<number> {
	const id = flags['subdomain'];
	if (typeof id !== 'string') throw new UserError('templates generate needs --subdomain <id> (see `npx cultureconverse domains`).');
	const loaded = universe();
	const matches = [...loaded.subdomainById.keys()].filter((candidate) => candidate === id || candidate.endsWith(`.${id}`));
	if (matches.length !== 1) throw new UserError(unknownMessage('subdomain', id, loaded.subdomainById.keys()));
	const count = Number(flags['count'] ?? 10);
	if (!Number.isInteger(count) || count < 1 || count > 30) throw new UserError(`--count must be a whole number from 1 to 30, got '${String(flags['count'])}'.`);
	const runtime = createRuntime({options: runtimeOptionsFromFlags(flags), io, universe: loaded, roles: ['generator']});
	await runtime.check(['generator']);
	if (runtime.settings.offline && !flags['json']) io.stderr.write(chalk.yellow('Offline mock provider: the generated templates are structural placeholders marked "(mock)".\n'));
	const outDir = path.join(workspaceDir(io.env, io.cwd), 'templates');
	const result = await generateTemplates({universe: loaded, subdomain: loaded.subdomainById.get(matches[0]!)!, count, outDir, gateway: runtime.gateway});
	if (flags['json']) {
		writeJson(io, result);
		return 0;
	}
	for (const template of result.accepted) write(io, `${chalk.green('+')} ${template.id}  ${template.title}`);
	for (const rejected of result.rejected) write(io, `${chalk.red('-')} ${rejected.title}: ${rejected.reason}`);
	write(io, result.file ? `${result.accepted.length} template(s) written to ${result.file}` : 'No new template was accepted.');
	return 0;
}

templateSubcommands.set('generate', templatesGenerate);
