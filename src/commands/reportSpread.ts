import {counted, fixed, pValue, signedWithInterval, withInterval} from '../present/numbers.js';
import {rangeBracket, setupLegend} from '../present/report.js';
import {SMALL_SLICE} from '../report/bootstrap.js';
import {type CellKey, cellLabel} from '../report/cells.js';
import {type MetricDistribution, scoreDistributions, trapGaps} from '../report/distribution.js';
import {pairwiseSlices, sliceDisparities} from '../report/disparities.js';
import {type Spread, runNoise} from '../report/noise.js';
import {SLICES, type SeedSlice, isCellKey} from '../report/slices.js';
import {ExitCode, UserError} from '../util/errors.js';
import {unknownMessage} from '../util/suggest.js';
import {renderTable} from '../util/table.js';
import {intervalOptions, sayNotes, selectionFor} from './reportSelection.js';
import {type Flags, type IO, write, writeJson} from './types.js';

/* `report scores`, `report traps`, `report noise`, `report setups` and `report disparities`: each over the cells layer. */

const cellColumns = (keys: readonly CellKey[]) => keys.map((key) => ({header: key.toUpperCase(), value: (row: {cell: Record<CellKey, string>}) => row.cell[key], max: 28}));
/** The cell keys a view shows: those that vary, and any pooled one (its label says what it holds). */
const shownKeys = (selection: {varying: readonly CellKey[]; pool: readonly CellKey[]; values: Readonly<Record<CellKey, readonly string[]>>}) => [...selection.varying, ...selection.pool.filter((key) => selection.values[key].length > 1)];

/** `report scores`: each cell's judge metric distribution (mean with its interval, sd, median, share of each score). */
export function scores(flags: Flags, io: IO): number {
	const selection = selectionFor(flags, io);
	sayNotes(io, selection);
	const cells = scoreDistributions(selection, intervalOptions(flags));
	if (flags['json']) {
		writeJson(io, {cells, notes: selection.notes, mockNotice: selection.mockNotice});
		return ExitCode.ok;
	}
	const keys = shownKeys(selection);
	if (selection.mockNotice) write(io, selection.mockNotice);
	for (const {cell, metrics} of cells) {
		write(io, `Judge score distribution${keys.length > 0 ? ` · ${cellLabel(cell, keys)}` : ''} over ${Math.max(...metrics.map((row) => row.n))} scored episode(s) (one per cell: assistants, languages, modes and judges are never pooled)`);
		write(io, renderTable(metrics, [
			{header: 'METRIC', value: (row) => row.metric},
			{header: 'N', value: (row) => counted(row.n, row.small), align: 'right'},
			{header: 'SEEDS', value: (row) => row.seeds, align: 'right'},
			{header: 'MEAN [95% CI]', value: (row) => withInterval(row.mean)},
			{header: 'SD', value: (row) => fixed(row.sd), align: 'right'},
			{header: 'MEDIAN', value: (row) => fixed(row.median), align: 'right'},
			...[1, 2, 3, 4, 5].map((score) => ({header: `%${score}`, value: (row: MetricDistribution) => (row.shares[score - 1]! * 100).toFixed(1), align: 'right' as const})),
		]));
		write(io, '');
	}
	if (cells.some((cell) => cell.metrics.some((row) => row.small))) write(io, `* fewer than ${SMALL_SLICE} seeds.`);
	return ExitCode.ok;
}

/** `report traps`: 3H on standard seeds against contextual and normative trap seeds, per cell. */
export function traps(flags: Flags, io: IO): number {
	const selection = selectionFor(flags, io);
	sayNotes(io, selection);
	const {rows, comparisons} = trapGaps(selection, intervalOptions(flags));
	if (flags['json']) {
		writeJson(io, {rows, comparisons, notes: selection.notes, mockNotice: selection.mockNotice});
		return ExitCode.ok;
	}
	const keys = shownKeys(selection);
	write(io, `Standard against trap seeds (contextual and normative friction) per cell: 3H with 95% seed-cluster bootstrap intervals; Δ = trap − standard (negative when traps are harder), its interval from resampling each tier's seeds; p: permutation (tiers shuffled between the cell's seeds), Holm-adjusted over the ${comparisons} comparison(s) here. \`report paired --by tier\` matches them by region and domain.`);
	if (selection.mockNotice) write(io, selection.mockNotice);
	write(io, renderTable(rows, [
		...(keys.length > 0 ? cellColumns(keys) : [{header: 'CELL', value: () => 'all'}]),
		{header: 'N STD', value: (row) => counted(row.standard?.n ?? 0, false), align: 'right'},
		{header: 'SEEDS STD', value: (row) => row.standard?.seeds ?? 0, align: 'right'},
		{header: 'N TRAP', value: (row) => row.trap?.n ?? 0, align: 'right'},
		{header: 'SEEDS TRAP', value: (row) => `${row.trap?.seeds ?? 0}${row.small ? '*' : ''}`, align: 'right'},
		{header: 'STANDARD 3H', value: (row) => withInterval(row.standard)},
		{header: 'TRAP 3H', value: (row) => withInterval(row.trap)},
		{header: 'Δ 3H', value: (row) => signedWithInterval(row.delta)},
		{header: 'p(Holm)', value: (row) => pValue(row.pHolm), align: 'right'},
	]));
	if (rows.some((row) => row.small)) write(io, `* fewer than ${SMALL_SLICE} seeds on one side.`);
	return ExitCode.ok;
}

/** `report noise`: run-to-run variation from repeated trials of the same seeds, per cell. */
export function noise(flags: Flags, io: IO): number {
	const selection = selectionFor(flags, io);
	const rows = runNoise(selection);
	if (rows.length === 0) throw new UserError('No seed was run more than once in one cell (setup, assistant, language, mode, judge) among the chosen sessions: run a batch with --trials 3 (or more) first.');
	if (flags['json']) {
		writeJson(io, {rows, setups: selection.registry.groups});
		return ExitCode.ok;
	}
	const sd = (spread: Spread | null, pick: (spread: Spread) => number | null) => fixed(spread ? pick(spread) : null);
	write(io, 'Run-to-run noise: seeds run more than once in one cell (a setup of the one registry, so best-of-N runs, other sampling settings and other setups never count as repeats). WITHIN SD is how much one seed moves between repeats; BETWEEN SD is the spread of the seed means, which still holds within-seed noise; SEED SD is the between-seed variance component with that noise taken out (one-way random-effects ANOVA), ICC its share of the variance (n/a with no variance); MIN DIFF is the smallest gap between two single runs over these seeds that exceeds the noise at 95%.');
	write(io, renderTable(rows, [
		{header: 'SETUP', value: (row) => row.cell.setup},
		{header: 'MODEL', value: (row) => row.cell.model, max: 24},
		{header: 'MODE', value: (row) => row.cell.mode},
		{header: 'LANG', value: (row) => row.cell.language},
		{header: 'JUDGE', value: (row) => row.cell.judge, max: 20},
		{header: 'SEEDS', value: (row) => counted(row.seeds, row.small), align: 'right'},
		{header: 'EPISODES', value: (row) => row.episodes, align: 'right'},
		{header: '3H WITHIN SD', value: (row) => sd(row.threeH, (s) => s.withinSd), align: 'right'},
		{header: '3H BETWEEN SD', value: (row) => sd(row.threeH, (s) => s.betweenSd), align: 'right'},
		{header: '3H SEED SD', value: (row) => sd(row.threeH, (s) => s.seedSd), align: 'right'},
		{header: 'ICC', value: (row) => (row.threeH && row.threeH.icc === null ? `n/a (${row.threeH.iccNa})` : sd(row.threeH, (s) => s.icc)), align: 'right'},
		{header: '3H MIN DIFF', value: (row) => sd(row.threeH, (s) => s.minDifference), align: 'right'},
		{header: 'TDQ WITHIN SD', value: (row) => sd(row.tdq, (s) => s.withinSd), align: 'right'},
		{header: 'CLEAN pass^k', value: (row) => row.passK.map((p) => `k${p.k} ${Math.round(p.value * 100)}%`).join(' ')},
	]));
	if (rows.some((row) => row.small)) write(io, `* fewer than ${SMALL_SLICE} repeated seeds.`);
	if (selection.registry.groups.length > 1) write(io, `\nSetups:\n${setupLegend(selection.registry.groups).map((line) => `  ${line}`).join('\n')}`);
	return ExitCode.ok;
}

/** `report setups`: every setup of the registry, with its label, what it is, and which cells it holds. */
export function setups(flags: Flags, io: IO): number {
	const selection = selectionFor(flags, io, {judges: true});
	const groups = selection.registry.groups;
	const cellsOf = (label: string) => {
		const mine = selection.chosen.filter((s) => selection.registry.labelOf(s) === label);
		return {models: [...new Set(mine.map((s) => s.assistantModel))].sort(), languages: [...new Set(mine.map((s) => s.language))].sort(), modes: [...new Set(mine.map((s) => s.mode))].sort(), judges: [...new Set(mine.map((s) => s.judgeModel))].sort()};
	};
	if (flags['json']) {
		writeJson(io, groups.map((group) => ({...group, holds: cellsOf(group.label)})));
		return ExitCode.ok;
	}
	write(io, `${groups.length} setup(s) among ${selection.chosen.length} chosen session(s) (labels from the one registry: the same in every command and page for this selection); a report never pools two setups unless --pool setup. A setup is everything that changes what a model does, apart from the assistant, the judge, the language and the mode, which are cell keys of their own:`);
	for (const group of groups) {
		const holds = cellsOf(group.label);
		write(io, `${group.label}  ${group.sessions} session(s)${group.mock.kind === 'none' ? '' : group.mock.kind === 'all' ? '  [mock]' : `  [partly mock: ${group.mock.roles.join(', ')}]`}  holds assistants ${holds.models.join(', ')}; languages ${holds.languages.join(', ')}; modes ${holds.modes.join(', ')}; judges ${holds.judges.join(', ')}`);
		for (const [field, value] of Object.entries(group.setup)) {
			if (field === 'roles' && value && typeof value === 'object') {
				for (const [role, identity] of Object.entries(value as Record<string, Record<string, unknown>>)) write(io, `    roles.${role}: ${Object.entries(identity).map(([name, v]) => `${name} ${v === null ? '–' : typeof v === 'object' ? JSON.stringify(v) : String(v)}`).join(', ')}`);
			} else write(io, `    ${field}: ${Array.isArray(value) ? value.join(', ') || '–' : value === null ? '–' : String(value)}`);
		}
	}
	return ExitCode.ok;
}

const SEED_SLICES = SLICES.filter((slice): slice is SeedSlice => !isCellKey(slice));

/**
 * `report disparities --by region|identity|gender|age|...`: the range of the slice's means within each
 * cell, with a bootstrap interval and a permutation p-value; `--pairwise` adds every pair of values.
 */
export function disparities(flags: Flags, io: IO): number {
	const by = flags['by'];
	if (typeof by !== 'string' || !(SEED_SLICES as readonly string[]).includes(by)) throw new UserError(typeof by === 'string' ? unknownMessage('disparity slice', by, SEED_SLICES) : `report disparities needs --by one of ${SEED_SLICES.join(', ')}.`);
	const slice = by as SeedSlice;
	const selection = selectionFor(flags, io);
	sayNotes(io, selection);
	const options = intervalOptions(flags);
	const table = sliceDisparities(selection, slice, options);
	const pairwise = flags['pairwise'] ? pairwiseSlices(selection, slice, options) : null;
	if (flags['json']) {
		writeJson(io, {...table, pairwise, notes: selection.notes, mockNotice: selection.mockNotice});
		return ExitCode.ok;
	}
	const keys = shownKeys(selection);
	write(io, `Disparities across ${slice} within each cell: RANGE = max − min of the ${slice} means of 3H (and TDQ), with a ${Math.round(options.resamples)}-resample stratified seed-cluster bootstrap interval (each value's seeds resampled within it; a range's bootstrap leans high on small slices) and a permutation p-value (${slice} labels shuffled between the cell's seeds: "no ${slice} effect"), Holm-adjusted over the ${table.comparisons} range(s) here.`);
	if (selection.mockNotice) write(io, selection.mockNotice);
	write(io, renderTable(table.rows, [
		...(keys.length > 0 ? cellColumns(keys) : []),
		{header: 'VALUES', value: (row) => row.values, align: 'right'},
		{header: 'SMALL', value: (row) => row.small, align: 'right'},
		{header: '3H RANGE [95% CI]', value: (row) => (row.threeH ? `${fixed(row.threeH.range, 3)} ${rangeBracket(row.threeH)}` : '–')},
		{header: 'p', value: (row) => pValue(row.threeH?.p), align: 'right'},
		{header: 'p(Holm)', value: (row) => pValue(row.threeH?.pHolm), align: 'right'},
		{header: 'LOWEST', value: (row) => row.threeH?.lowest ?? '', max: 30},
		{header: 'HIGHEST', value: (row) => row.threeH?.highest ?? '', max: 30},
		{header: 'TDQ RANGE [95% CI]', value: (row) => (row.tdq ? `${fixed(row.tdq.range, 3)} ${rangeBracket(row.tdq)}` : '–')},
		{header: 'TDQ p', value: (row) => pValue(row.tdq?.p), align: 'right'},
	]));
	write(io, `SMALL: ${slice} values resting on fewer than ${SMALL_SLICE} seeds.`);
	if (pairwise) {
		write(io, `\nPairwise ${slice} differences of 3H (b − a), seed-cluster bootstrap intervals, permutation p-values Holm-adjusted over all ${pairwise.comparisons} comparisons in this table:`);
		write(io, renderTable(pairwise.rows, [
			...(keys.length > 0 ? cellColumns(keys) : []),
			{header: 'A', value: (row) => row.a, max: 30},
			{header: 'B', value: (row) => row.b, max: 30},
			{header: 'SEEDS A', value: (row) => counted(row.seeds.a, row.seeds.a < SMALL_SLICE), align: 'right'},
			{header: 'SEEDS B', value: (row) => counted(row.seeds.b, row.seeds.b < SMALL_SLICE), align: 'right'},
			{header: 'Δ 3H [95% CI]', value: (row) => signedWithInterval(row.delta)},
			{header: 'p', value: (row) => pValue(row.p), align: 'right'},
			{header: 'p(Holm)', value: (row) => pValue(row.pHolm), align: 'right'},
		]));
	}
	return ExitCode.ok;
}
