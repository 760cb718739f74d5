import {fixed, signed, withInterval} from '../present/numbers.js';
import {setupLegend} from '../present/report.js';
import {reportable} from '../report/aggregate.js';
import {type MetricDistribution, scoreDistribution, trapGaps} from '../report/distribution.js';
import {type Spread, runNoise} from '../report/noise.js';
import {setupGroups} from '../report/setups.js';
import {ExitCode, UserError} from '../util/errors.js';
import {renderTable} from '../util/table.js';
import {bootstrapSeed, chooseSessions, counted} from './reportSelection.js';
import {type Flags, type IO, write, writeJson} from './types.js';

/* `report scores`, `report traps`, `report noise` and `report setups`. */

/** `report scores`: how each judge metric's 1-5 scores are spread (mean, sd, median, share of each score). */
export function scores(flags: Flags, io: IO): number {
	const rows = scoreDistribution(counted(flags, io, {what: 'report scores'}));
	if (flags['json']) {
		writeJson(io, rows);
		return ExitCode.ok;
	}
	write(io, `Judge score distribution over ${Math.max(...rows.map((row) => row.n))} scored episode(s)`);
	write(io, renderTable(rows, [
		{header: 'METRIC', value: (row) => row.metric},
		{header: 'N', value: (row) => row.n, align: 'right'},
		{header: 'MEAN', value: (row) => fixed(row.mean), align: 'right'},
		{header: 'SD', value: (row) => fixed(row.sd), align: 'right'},
		{header: 'MEDIAN', value: (row) => fixed(row.median), align: 'right'},
		...[1, 2, 3, 4, 5].map((score) => ({header: `%${score}`, value: (row: MetricDistribution) => (row.shares[score - 1]! * 100).toFixed(1), align: 'right' as const})),
	]));
	return ExitCode.ok;
}

/** `report traps`: 3H on standard seeds against contextual and normative trap seeds, per assistant model. */
export function traps(flags: Flags, io: IO): number {
	const rows = trapGaps(counted(flags, io, {what: 'report traps'}), {seed: bootstrapSeed(flags)});
	if (flags['json']) {
		writeJson(io, rows);
		return ExitCode.ok;
	}
	write(io, 'Standard against trap seeds (contextual and normative friction): 3H with 95% bootstrap intervals; Δ = trap − standard, negative when traps are harder. `report paired --by tier` matches them by region and domain.');
	write(io, renderTable(rows, [
		{header: 'MODEL', value: (row) => row.model, max: 28},
		{header: 'N STD', value: (row) => row.standard?.n ?? 0, align: 'right'},
		{header: 'N TRAP', value: (row) => row.trap?.n ?? 0, align: 'right'},
		{header: 'STANDARD 3H', value: (row) => withInterval(row.standard)},
		{header: 'TRAP 3H', value: (row) => withInterval(row.trap)},
		{header: 'Δ 3H', value: (row) => (row.delta ? `${signed(row.delta.mean)} [${fixed(row.delta.lo)}, ${fixed(row.delta.hi)}]` : '–')},
	]));
	return ExitCode.ok;
}

/** `report noise`: run-to-run variation from repeated trials of the same seeds, per full setup. */
export function noise(flags: Flags, io: IO): number {
	const chosen = chooseSessions(flags, io);
	const rows = runNoise(chosen);
	if (rows.length === 0) throw new UserError('No seed was run more than once under one setup among the chosen sessions: run a batch with --trials 3 (or more) first.');
	const labels = new Map(setupGroups(chosen.filter((s) => s.rejudgeOf === null)).map((group) => [group.key, group.label]));
	// With nothing compared, a setup group's key is the sessions' own setupKey.
	const labelled = rows.map((row) => ({...row, setup: labels.get(row.setupKey) ?? row.setupKey}));
	if (flags['json']) {
		writeJson(io, labelled);
		return ExitCode.ok;
	}
	const sd = (spread: Spread | null, pick: (spread: Spread) => number | null) => fixed(spread ? pick(spread) : null);
	write(io, 'Run-to-run noise: seeds run more than once under one setup (best-of-N runs and other setups never count as repeats). WITHIN SD is how much one seed moves between repeats; BETWEEN SD is the spread of the seed means, which still holds within-seed noise; SEED SD is the between-seed variance component with that noise taken out (one-way random-effects ANOVA), ICC its share of the variance; MIN DIFF is the smallest gap between two single runs over these seeds that exceeds the noise at 95%.');
	write(io, renderTable(labelled, [
		{header: 'SETUP', value: (row) => row.setup},
		{header: 'MODEL', value: (row) => row.model, max: 24},
		{header: 'MODE', value: (row) => row.mode},
		{header: 'LANG', value: (row) => row.language},
		{header: 'JUDGE', value: (row) => row.judge, max: 20},
		{header: 'SEEDS', value: (row) => row.seeds, align: 'right'},
		{header: 'EPISODES', value: (row) => row.episodes, align: 'right'},
		{header: '3H WITHIN SD', value: (row) => sd(row.threeH, (s) => s.withinSd), align: 'right'},
		{header: '3H BETWEEN SD', value: (row) => sd(row.threeH, (s) => s.betweenSd), align: 'right'},
		{header: '3H SEED SD', value: (row) => sd(row.threeH, (s) => s.seedSd), align: 'right'},
		{header: 'ICC', value: (row) => sd(row.threeH, (s) => s.icc), align: 'right'},
		{header: '3H MIN DIFF', value: (row) => sd(row.threeH, (s) => s.minDifference), align: 'right'},
		{header: 'TDQ WITHIN SD', value: (row) => sd(row.tdq, (s) => s.withinSd), align: 'right'},
		{header: 'CLEAN pass^k', value: (row) => row.passK.map((p) => `k${p.k} ${Math.round(p.value * 100)}%`).join(' ')},
	]));
	if (labels.size > 1) write(io, `\nSetups:\n${setupLegend(setupGroups(chosen.filter((s) => s.rejudgeOf === null))).map((line) => `  ${line}`).join('\n')}`);
	return ExitCode.ok;
}

/** `report setups`: every setup among the chosen sessions, with its label and what it is. */
export function setups(flags: Flags, io: IO): number {
	const {sessions, notes} = reportable(chooseSessions(flags, io), {includeMock: Boolean(flags['includeMock']), comparingJudges: true});
	for (const note of notes) io.stderr.write(`Note: ${note}\n`);
	const groups = setupGroups(sessions);
	if (flags['json']) {
		writeJson(io, groups);
		return ExitCode.ok;
	}
	write(io, `${groups.length} setup(s) among ${sessions.length} session(s); a report never pools two setups unless --pool-setups:`);
	for (const group of groups) {
		write(io, `${group.label}  ${group.sessions} session(s)${group.mock.kind === 'none' ? '' : group.mock.kind === 'all' ? '  [mock]' : `  [partly mock: ${group.mock.roles.join(', ')}]`}`);
		for (const [field, value] of Object.entries(group.setup)) write(io, `    ${field}: ${typeof value === 'object' && value !== null && !Array.isArray(value) ? Object.entries(value).map(([role, v]) => `${role} ${v ?? '(default)'}`).join(', ') : Array.isArray(value) ? value.join(', ') || '–' : String(value)}`);
	}
	return ExitCode.ok;
}
