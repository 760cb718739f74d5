import {signed} from '../present/numbers.js';
import {pairedTable, setupLegend} from '../present/report.js';
import {SMALL_SLICE} from '../report/bootstrap.js';
import {CONTRASTS, type Contrast, type PairedTable, pairedDeltas} from '../report/paired.js';
import {SLICES, type SeedSlice, isCellKey} from '../report/slices.js';
import type {Selection} from '../report/cells.js';
import {ExitCode, UserError} from '../util/errors.js';
import {unknownMessage} from '../util/suggest.js';
import {intervalOptions, sayNotes, selectionFor} from './reportSelection.js';
import {type Flags, type IO, write, writeJson} from './types.js';

function contrastFlag(value: unknown): Contrast {
	if (typeof value !== 'string') throw new UserError(`report paired needs --by ${Object.keys(CONTRASTS).join('|')} (native − English per seed, gold − eval per seed, trap − standard by region and domain, a judge against the reference judge per dialogue).`);
	if (!(value in CONTRASTS)) throw new UserError(unknownMessage('contrast', value, Object.keys(CONTRASTS)));
	return value as Contrast;
}

/** --slice: seed slices to split the pairs by (the cell keys are columns whenever they vary). */
function sliceFlag(value: unknown, contrast: Contrast): SeedSlice[] {
	if (value === undefined) return [];
	if (typeof value !== 'string') throw new UserError('--slice takes a comma-separated list of slices.');
	const parts = value.split(',').map((part) => part.trim()).filter(Boolean);
	const allowed = SLICES.filter((slice): slice is SeedSlice => !isCellKey(slice));
	const kept: SeedSlice[] = [];
	for (const part of parts) {
		// A cell key is already a column whenever it varies: nothing to add.
		if ((SLICES as readonly string[]).includes(part) && isCellKey(part as (typeof SLICES)[number])) continue;
		if (!(allowed as readonly string[]).includes(part)) throw new UserError(unknownMessage('slice', part, allowed));
		if (contrast === 'tier' && (part === 'tier' || part === 'template' || part === 'domain' || part === 'region')) throw new UserError(`--slice ${part} cannot be used with --by tier: tier pairs are made within region and domain.`);
		kept.push(part as SeedSlice);
	}
	return [...new Set(kept)];
}

/** The paired table of `report paired`, for the text table, --json and the HTML report. */
export function pairedData(flags: Flags, io: IO, contrast: Contrast, options: {quiet?: boolean; selection?: Selection} = {}): PairedTable & {setups: Selection['registry']['groups']; notes: readonly string[]} {
	const slices = sliceFlag(flags['slice'], contrast);
	const selection = options.selection ?? selectionFor(flags, io, {judges: contrast === 'judge'});
	if (!options.quiet) sayNotes(io, selection);
	const table = pairedDeltas(selection, contrast, slices, intervalOptions(flags));
	return {...table, setups: selection.registry.groups, notes: selection.notes};
}

/** `report paired --by language|mode|tier|judge`: per-unit deltas with seed-cluster intervals and Holm-adjusted p-values. */
export function paired(flags: Flags, io: IO): number {
	const contrast = contrastFlag(flags['by']);
	const data = pairedData(flags, io, contrast);
	if (data.rows.every((row) => row.pairs === 0)) throw new UserError(`No ${data.unit} among the chosen sessions has both sides of ${CONTRASTS[contrast].label}${contrast === 'language' ? ': run a batch with --lang english,native' : contrast === 'mode' ? ': run a batch with --mode eval,gold' : contrast === 'judge' ? ': re-judge some sessions first (`npx cultureconverse rejudge`)' : ''}.`);
	if (flags['json']) {
		writeJson(io, data);
		return ExitCode.ok;
	}
	const units = data.unit === 'seed' ? 'seeds' : data.unit === 'dialogue' ? 'dialogues' : 'strata';
	write(io, `Paired ${data.label}: per ${data.unit}, the mean of one side's episodes minus the other's, averaged over the ${units} that have both (a ${data.unit} with more episodes on one side still counts once: UNBAL); pairs are made within every other cell key. 95% seed-cluster bootstrap intervals; p: sign-flip permutation, Holm-adjusted over the ${data.comparisons} comparison(s) in this table.${contrast === 'tier' ? ' Tier is fixed by the seed, so traps are matched to standard seeds of the same region and domain.' : ''}${contrast === 'language' || contrast === 'mode' ? ' SAME BP: pairs whose variants ran from one blueprint.' : ''}`);
	write(io, pairedTable(data));
	if (data.rows.some((row) => row.small)) write(io, `* fewer than ${SMALL_SLICE} pairs: the interval is unreliable.`);
	if (data.rows.some((row) => row.unbalanced > 0)) write(io, `UNBAL: pairs with more episodes on one side than the other (trials); each pair is weighted once, its sides averaged.`);
	if (data.setups.length > 1) write(io, `\nSetups:\n${setupLegend(data.setups).map((line) => `  ${line}`).join('\n')}`);
	if (flags['perSeed']) {
		for (const row of data.rows) {
			write(io, `\n${Object.entries(row.slice).map(([key, value]) => `${key} ${value}`).join(', ') || 'all'}:`);
			for (const unit of row.units) write(io, `  ${unit.unit}  Δ3H ${signed(unit.delta.threeH)}  ΔTDQ ${signed(unit.delta.tdq)}  Δclean ${signed(unit.delta.clean)}${unit.episodes.a !== unit.episodes.b ? `  (${unit.episodes.a} vs ${unit.episodes.b} episodes)` : ''}${unit.sharedBlueprint || contrast === 'tier' || contrast === 'judge' ? '' : '  (different blueprints)'}`);
		}
	}
	return ExitCode.ok;
}
