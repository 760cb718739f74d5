import {batchCommand} from './batch.js';
import {crispCommand} from './crisp.js';
import {doctorCommand} from './doctor.js';
import {domainsCommand} from './domains.js';
import {exportCommand} from './export.js';
import {kbCommand} from './kb.js';
import {personasCommand} from './personas.js';
import {rejudgeCommand} from './rejudge.js';
import {replayCommand} from './replay.js';
import {reportCommand} from './report.js';
import {viewCommand} from './view.js';
import {runCommand} from './run.js';
import {schemaCommand} from './schema.js';
import {seedCommand, seedsCommand} from './seeds.js';
import {sessionsCommand} from './sessions.js';
import {blueprintCommand, shardsCommand} from './stages.js';
import {templatesCommand} from './templates.js';
import {tuiCommand} from './tui.js';
import './templatesGenerate.js';
import type {Command} from './types.js';

/** Every command of the binary, in the order the help screen lists them. */
export const commands: readonly Command[] = [
	runCommand,
	batchCommand,
	reportCommand,
	viewCommand,
	rejudgeCommand,
	exportCommand,
	crispCommand,
	doctorCommand,
	tuiCommand,
	replayCommand,
	sessionsCommand,
	blueprintCommand,
	shardsCommand,
	personasCommand,
	domainsCommand,
	templatesCommand,
	seedsCommand,
	seedCommand,
	kbCommand,
	schemaCommand,
];
