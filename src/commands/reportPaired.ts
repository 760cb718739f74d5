import {signed} from '../present/numbers.js';
import {pairedTable, setupLegend} from '../present/report.js';
import {reportable, type Slice, SLICES, sliceValue} from '../report/aggregate.js';
import {CONTRASTS, type Contrast, pairedDeltas} from '../report/paired.js';
import {residualKey, setupGroups} from '../report/setups.js';
import {ExitCode, UserError} from '../util/errors.js';
import {unknownMessage} from '../util/suggest.js';
import {bootstrapSeed, chooseSessions} from './reportSelection.js';
import {type Flags, type IO, write, writeJson} from './types.js';

function contrastFlag(value: unknown): Contrast {
	if (typeof value !== 'string') throw new UserError(`report paired needs --by ${Object.keys(CONTRASTS).join('|')} (native − English per seed, gold − eval per seed, trap − standard by region and domain).`);
	if (!(value in CONTRASTS)) throw new UserError(unknownMessage('contrast', value, Object.keys(CONTRASTS)));
	return value as Contrast;
}

function sliceFlag(value: unknown, contrast: Contrast): Array<Exclude<Slice, 'setup'>> {
	if (value === undefined) return ['model'];
	if (typeof value !== 'string') throw new UserError('--slice takes a comma-separated list of slices.');
	const parts = value.split(',').map((part) => part.trim()).filter(Boolean);
	for (const part of parts) {
		if (!(SLICES as readonly string[]).includes(part) || part === 'setup') throw new UserError(unknownMessage('slice', part, SLICES.filter((slice) => slice !== 'setup')));
		if (part === contrast || (contrast === 'tier' && part === 'template')) throw new UserError(`--slice ${part} cannot be used with --by ${contrast}: it is what the pairs differ in.`);
	}
	return [...new Set(parts)] as Array<Exclude<Slice, 'setup'>>;
}

/** The paired rows of `report paired`, for the text table, --json and the HTML report. */
export function pairedData(flags: Flags, io: IO, contrast: Contrast, options: {quiet?: boolean} = {}) {
	const slices = sliceFlag(flags['slice'], contrast);
	const {sessions, notes} = reportable(chooseSessions(flags, io), {includeMock: Boolean(flags['includeMock'])});
	if (!options.quiet) for (const note of notes) io.stderr.write(`Note: ${note}\n`);
	const compared = {assistant: slices.includes('model')};
	const groups = setupGroups(sessions, compared);
	const labels = new Map(groups.map((group) => [group.key, group.label]));
	const withSetup = groups.length > 1;
	// A language delta is taken within one mode and a mode delta within one language: a 2 x 2 batch
	// (--lang english,native --mode eval,gold) would otherwise average gold and eval into each side.
	const other = contrast === 'language' ? 'mode' : contrast === 'mode' ? 'language' : null;
	const withOther = other !== null && !slices.includes(other) && new Set(sessions.map((s) => s[other])).size > 1;
	const columns = [...(withSetup ? ['setup'] : []), ...(withOther ? [other!] : []), ...slices];
	const rows = pairedDeltas(
		sessions,
		contrast,
		(s) => ({...(withSetup ? {setup: labels.get(residualKey(s.setup, compared))!} : {}), ...(withOther ? {[other!]: s[other!]} : {}), ...Object.fromEntries(slices.map((slice) => [slice, sliceValue[slice](s)]))}),
		{seed: bootstrapSeed(flags), resamples: typeof flags['resamples'] === 'number' ? flags['resamples'] : undefined},
	);
	return {contrast, label: CONTRASTS[contrast].label, unit: CONTRASTS[contrast].unit, columns, setups: groups, rows};
}

/** `report paired --by language|mode|tier`: per-seed (or per-stratum) deltas with paired bootstrap intervals. */
export function paired(flags: Flags, io: IO): number {
	const contrast = contrastFlag(flags['by']);
	const data = pairedData(flags, io, contrast);
	if (data.rows.every((row) => row.pairs === 0)) throw new UserError(`No ${data.unit} among the chosen sessions has both ${CONTRASTS[contrast].a} and ${CONTRASTS[contrast].b} episodes${contrast === 'language' ? ': run a batch with --lang english,native' : contrast === 'mode' ? ': run a batch with --mode eval,gold' : ''}.`);
	if (flags['json']) {
		writeJson(io, data);
		return ExitCode.ok;
	}
	const {a, b} = CONTRASTS[contrast];
	write(io, `Paired ${data.label}: per ${data.unit}, the mean of the ${b} episodes minus the mean of the ${a} episodes, averaged over the ${data.unit === 'seed' ? 'seeds' : 'strata'} that have both; 95% paired bootstrap intervals (the ${data.unit === 'seed' ? 'seeds' : 'strata'} resampled). SAME BP: pairs whose variants ran from one blueprint.${contrast === 'tier' ? ' Tier is fixed by the seed, so traps are matched to standard seeds of the same region and domain.' : ''}`);
	write(io, pairedTable(data.rows, data.columns));
	if (data.rows.some((row) => row.small)) write(io, '* fewer than 10 pairs: the interval is unreliable.');
	if (data.setups.length > 1) write(io, `\nSetups:\n${setupLegend(data.setups).map((line) => `  ${line}`).join('\n')}`);
	if (flags['perSeed']) {
		for (const row of data.rows) {
			write(io, `\n${Object.entries(row.slice).map(([key, value]) => `${key} ${value}`).join(', ') || 'all'}:`);
			for (const unit of row.units) write(io, `  ${unit.unit}  Δ3H ${signed(unit.delta.threeH)}  ΔTDQ ${signed(unit.delta.tdq)}  Δclean ${signed(unit.delta.clean)}${unit.sharedBlueprint ? '' : contrast === 'tier' ? '' : '  (different blueprints)'}`);
		}
	}
	return ExitCode.ok;
}
