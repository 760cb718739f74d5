import chalk from 'chalk';
import {summaryOf} from './registry.js';
import {modelOptionsFromFlags} from './modelFlags.js';
import {runtimeFlags} from './runtimeFlags.js';
import {runDoctor, type RoleCheck} from '../llm/doctor.js';
import {resolveRoleSettings} from '../llm/settings.js';
import {registerMocks} from '../mock/index.js';
import {ExitCode, UserError} from '../util/errors.js';
import {workspaceDir} from '../util/paths.js';
import {renderTable} from '../util/table.js';
import {type Command, write, writeJson} from './types.js';

const mark = (value: boolean | 'any' | 'unlisted' | null, any = 'any', none = '–') => (value === null ? none : value === 'any' ? any : value === 'unlisted' ? 'by call' : value ? 'yes' : chalk.red('NO'));
const statusText = (check: RoleCheck) => (check.status === 'works' ? chalk.green('works') : check.status === 'fails' ? chalk.red('FAILS') : check.status === 'unchecked' ? chalk.yellow('unchecked') : 'offline');

export const doctorCommand: Command = {
	name: 'doctor',
	summary: summaryOf('doctor'),
	usage: 'doctor [--model M] [--<role>-model M] [--base-url URL] [--provider NAME] [--config FILE] [--allow-unchecked] [--json]',
	flags: {
		json: {type: 'boolean', description: 'Print the checks, problems and warnings as JSON'},
		allowUnchecked: {type: 'boolean', description: 'Exit 0 when no role fails even if some could not be checked (a timeout, a server that did not answer); by default only a set-up whose every role was shown to work exits 0'},
		...runtimeFlags,
	},
	async run({flags, io}) {
		registerMocks();
		let settings;
		try {
			settings = resolveRoleSettings({options: modelOptionsFromFlags(flags), env: io.env, cwd: io.cwd});
		} catch (error) {
			if (!(error instanceof UserError) || error.exitCode !== ExitCode.badInput) throw error;
			if (flags['json']) writeJson(io, {roles: [], problems: [error.message], warnings: []});
			else io.stderr.write(`${chalk.red('problem')} ${error.message}\n`);
			return ExitCode.badInput;
		}
		if (!flags['json'] && settings.offline) io.stderr.write(chalk.yellow('No model endpoint is configured: every role runs on the offline mock (set OPENAI_BASE_URL / OPENAI_API_KEY, or --base-url and --model).\n'));
		const report = await runDoctor(settings, {env: io.env, workspaceDir: workspaceDir(io.env, io.cwd)});
		const allow = flags['allowUnchecked'] === true;
		const failing = report.roles.filter((check) => check.status === 'fails' || (check.status === 'unchecked' && !allow));
		const code = report.problems.length > 0 || failing.length > 0 ? ExitCode.badInput : ExitCode.ok;
		if (flags['json']) {
			writeJson(io, report);
			return code;
		}
		write(
			io,
			renderTable(report.roles, [
				{header: 'ROLE', value: (check: RoleCheck) => check.role},
				{header: 'MODEL', value: (check) => (check.provider === 'openai' ? check.model || chalk.red('(none)') : check.provider), max: 32},
				{header: 'ENDPOINT', value: (check) => check.endpoint ?? (check.provider === 'openai' ? 'api.openai.com' : '–'), max: 34},
				{header: 'SERVER', value: (check) => `${check.server}${check.serverGuessed && check.endpoint !== null ? '?' : ''}`},
				{header: 'REACH', value: (check) => mark(check.reachable)},
				{header: 'KEY', value: (check) => mark(check.auth, 'any', check.provider === 'openai' && check.reachable === false ? 'unknown' : '–')},
				{header: 'LISTED', value: (check) => mark(check.listed, 'any name')},
				{header: 'STATUS', value: statusText},
				{header: 'STRUCTURED', value: (check) => (check.structured ? `${check.structured.ok ? 'ok' : chalk.red('FAIL')} (${check.structured.mode})` : '–')},
				{header: 'STREAM', value: (check) => check.streaming ?? '–'},
				{header: 'THINKING', value: (check) => check.reasoning ?? '–'},
				{header: 'N', value: (check) => mark(check.supportsN)},
				{header: 'LATENCY', value: (check) => (check.latencyMs === null ? '–' : `${check.latencyMs} ms`), align: 'right'},
				{header: 'CONTEXT', value: (check) => (check.contextWindow === null ? '–' : String(check.contextWindow)), align: 'right'},
			]),
		);
		for (const problem of report.problems) write(io, `${chalk.red('problem')}  ${problem}`);
		for (const warning of report.warnings) write(io, `${chalk.yellow('warning')}  ${warning}`);
		for (const check of report.roles.filter((one) => one.status === 'unchecked')) write(io, `${chalk.yellow('unchecked')}  ${check.role}: ${check.statusReason ?? 'not checked'}`);
		const unchecked = report.roles.filter((check) => check.status === 'unchecked').length;
		if (code === ExitCode.ok) write(io, chalk.green(`\n${unchecked > 0 ? `No role fails; ${unchecked} role(s) could not be checked (accepted with --allow-unchecked)` : 'The set-up works: every role answered a real call in the mode the run will use'}${report.warnings.length > 0 ? `, with ${report.warnings.length} warning(s)` : ''}.`));
		else if (report.problems.length === 0) write(io, chalk.yellow(`\n${unchecked} role(s) could not be checked, so the set-up is not shown to work: fix what is named above, or pass --allow-unchecked to accept it.`));
		if (report.capabilitiesFile) write(io, `What each server accepts is recorded in ${report.capabilitiesFile}; runs start from it.`);
		return code;
	},
};
