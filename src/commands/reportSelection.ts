import type {SessionSummary} from '../domain/sessionSummary.js';
import {DEFAULT_RESAMPLES, DEFAULT_SEED, type BootstrapOptions} from '../report/bootstrap.js';
import {CELL_KEYS, type CellKey, type Selection, selectCells, singleCellProblem} from '../report/cells.js';
import {UserError} from '../util/errors.js';
import {unknownMessage} from '../util/suggest.js';
import {wholeFlag} from './flagValues.js';
import {type LostSession, selectSessions} from './sessions.js';
import type {FlagSpec, Flags, IO} from './types.js';

/** The saved sessions a report is about: the filters, then the batch (with its re-judged copies). Never empty. */
export function chooseSessions(flags: Flags, io: IO): SessionSummary[] {
	return chooseWithLost(flags, io).chosen;
}

/** chooseSessions, and the batch's sessions that are missing or unreadable (see LostSession). */
export function chooseWithLost(flags: Flags, io: IO): {chosen: SessionSummary[]; lost: LostSession[]} {
	const {store, chosen, total, lost} = selectSessions(flags, io);
	if (chosen.length === 0) throw new UserError(total === 0 ? `No sessions in ${store.dir}. Run some with \`npx cultureconverse batch\` or \`run\`.` : `No saved session matches the filters.${lost.length > 0 ? ` ${lostLine(lost, flags)}` : ''}`);
	return {chosen, lost};
}

/** One sentence on a batch's lost sessions, for a report's text. */
export function lostLine(lost: readonly LostSession[], flags: Flags): string {
	const shown = lost.slice(0, 5).map((session) => `${session.id} (${session.reason})`).join(', ');
	return `${lost.length} session(s) of batch ${String(flags['batch'])} are missing or unreadable and not counted: ${shown}${lost.length > 5 ? `, and ${lost.length - 5} more (--json lists all)` : ''}. \`npx cultureconverse batch --name ${String(flags['batch'])}\` sets them aside and runs them again.`;
}

export const bootstrapSeed = (flags: Flags) => (typeof flags['seed'] === 'string' ? flags['seed'] : undefined);

/** The interval options of every view: --seed and --resamples, the documented defaults otherwise. */
export function intervalOptions(flags: Flags): Required<Pick<BootstrapOptions, 'seed' | 'resamples'>> {
	return {seed: bootstrapSeed(flags) ?? DEFAULT_SEED, resamples: wholeFlag(flags, 'resamples', {min: 100, max: 100_000}, DEFAULT_RESAMPLES)};
}

/** The cell keys of `--pool` (and `--pool-setups`, which is `--pool setup`). */
export function poolFlag(flags: Flags): CellKey[] {
	const value = flags['pool'];
	const parts = value === undefined ? [] : typeof value === 'string' ? value.split(',').map((part) => part.trim()).filter(Boolean) : null;
	if (parts === null) throw new UserError(`--pool takes a comma-separated list of ${CELL_KEYS.join(', ')}.`);
	for (const part of parts) if (!(CELL_KEYS as readonly string[]).includes(part)) throw new UserError(unknownMessage('pool key', part, CELL_KEYS, `--pool takes ${CELL_KEYS.join(', ')}.`));
	if (flags['poolSetups']) parts.push('setup');
	return CELL_KEYS.filter((key) => parts.includes(key));
}

/** Flags that choose one value of a cell key (every report view takes them). */
export const cellFilterFlags = {
	setup: {type: 'string', description: 'Only this setup (S1, S2, ... as `report setups` labels them)'},
	lang: {type: 'string', description: 'Only this language: english or native'},
	mode: {type: 'string', description: 'Only this interaction mode: eval or gold'},
	model: {type: 'string', description: 'Only this assistant model (as the MODEL column names it)'},
	judge: {type: 'string', description: 'Only this judge (as the JUDGE column names it, or its model)'},
	pool: {type: 'string', description: `Average over these cell keys on purpose (${CELL_KEYS.join(', ')}); the rows are labelled with what was pooled`},
} as const satisfies Record<string, FlagSpec>;

const onlyOf = (flags: Flags): Partial<Record<CellKey, string>> => {
	const pick = (name: string) => (typeof flags[name] === 'string' ? (flags[name] as string) : undefined);
	const out: Partial<Record<CellKey, string>> = {};
	for (const [key, flag] of [['setup', 'setup'], ['language', 'lang'], ['mode', 'mode'], ['model', 'model'], ['judge', 'judge']] as const) {
		const value = pick(flag);
		if (value !== undefined) out[key] = value;
	}
	return out;
};

/** The chosen sessions in cells, for the views (`judges`: re-judged copies as their own judge cells). */
export function selectionFor(flags: Flags, io: IO, options: {judges?: boolean; chosen?: readonly SessionSummary[]} = {}): Selection {
	const selection = selectCells(options.chosen ?? chooseSessions(flags, io), {includeMock: Boolean(flags['includeMock']), pool: poolFlag(flags), judges: options.judges, only: onlyOf(flags)});
	if (selection.sessions.length === 0) throw new UserError(`No session to report on: ${selection.notes.at(-1) ?? 'every chosen session was left out'}`);
	return selection;
}

/** A view's notes on stderr. */
export function sayNotes(io: IO, selection: Pick<Selection, 'notes'>): void {
	for (const note of selection.notes) io.stderr.write(`Note: ${note}\n`);
}

/** Refuses a view that holds one cell only when the selection has several, naming what differs and how to choose. */
export function requireOneCell(selection: Selection, what: string, allowed: readonly CellKey[] = []): void {
	const problem = singleCellProblem(selection, allowed);
	if (problem) throw new UserError(`${what} holds one cell of setup, assistant, language, mode and judge, but these sessions differ in ${problem}. Choose one with --batch or the filters, or pool on purpose with --pool ${selection.varying.filter((key) => !allowed.includes(key)).join(',')} (the figures are then labelled pooled).`);
}
