import chalk from 'chalk';
import {summaryOf} from './registry.js';
import {runtimeFlags} from '../app/runtime.js';
import {runDoctor, type RoleCheck} from '../llm/doctor.js';
import {resolveRoleSettings} from '../llm/settings.js';
import {registerMocks} from '../mock/index.js';
import {ExitCode, UserError} from '../util/errors.js';
import {workspaceDir} from '../util/paths.js';
import {renderTable} from '../util/table.js';
import {type Command, write, writeJson} from './types.js';

const mark = (value: boolean | 'any' | null, any = 'any') => (value === null ? '–' : value === 'any' ? any : value ? 'yes' : chalk.red('NO'));

export const doctorCommand: Command = {
	name: 'doctor',
	summary: summaryOf('doctor'),
	usage: 'doctor [--model M] [--<role>-model M] [--base-url URL] [--config FILE] [--json]',
	flags: {
		json: {type: 'boolean', description: 'Print the checks, problems and warnings as JSON'},
		...runtimeFlags,
	},
	async run({flags, io}) {
		registerMocks();
		let settings;
		try {
			settings = resolveRoleSettings({flags, env: io.env, cwd: io.cwd});
		} catch (error) {
			if (!(error instanceof UserError) || error.exitCode !== ExitCode.badInput) throw error;
			if (flags['json']) writeJson(io, {roles: [], problems: [error.message], warnings: []});
			else io.stderr.write(`${chalk.red('problem')} ${error.message}\n`);
			return ExitCode.badInput;
		}
		if (!flags['json'] && settings.offline) io.stderr.write(chalk.yellow('No model endpoint is configured: every role runs on the offline mock (set OPENAI_BASE_URL / OPENAI_API_KEY, or --base-url and --model).\n'));
		const report = await runDoctor(settings, {env: io.env, workspaceDir: workspaceDir(io.env, io.cwd)});
		if (flags['json']) {
			writeJson(io, report);
			return report.problems.length > 0 ? ExitCode.badInput : ExitCode.ok;
		}
		write(
			io,
			renderTable(report.roles, [
				{header: 'ROLE', value: (check: RoleCheck) => check.role},
				{header: 'MODEL', value: (check) => (check.provider === 'openai' ? check.model || chalk.red('(none)') : check.provider), max: 32},
				{header: 'ENDPOINT', value: (check) => check.endpoint ?? (check.provider === 'openai' ? 'api.openai.com' : '–'), max: 34},
				{header: 'SERVER', value: (check) => check.server},
				{header: 'REACH', value: (check) => mark(check.reachable)},
				{header: 'KEY', value: (check) => mark(check.auth)},
				{header: 'LISTED', value: (check) => mark(check.listed, 'any name')},
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
		if (report.problems.length === 0) write(io, chalk.green(`\nThe set-up works${report.warnings.length > 0 ? `, with ${report.warnings.length} warning(s)` : ''}.`));
		return report.problems.length > 0 ? ExitCode.badInput : ExitCode.ok;
	},
};
