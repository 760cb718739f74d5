import {domainsCommand} from './domains.js';
import {personasCommand} from './personas.js';
import {schemaCommand} from './schema.js';
import {seedCommand, seedsCommand} from './seeds.js';
import {templatesCommand} from './templates.js';
import type {Command} from './types.js';

/** Every command of the binary, in the order the help screen lists them. */
export const commands: readonly Command[] = [
	personasCommand,
	domainsCommand,
	templatesCommand,
	seedsCommand,
	seedCommand,
	schemaCommand,
];
