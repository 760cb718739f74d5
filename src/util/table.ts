import chalk from 'chalk';
import {displayWidth, truncate as cutToWidth} from './textWidth.js';
import {safeText} from './terminalText.js';

export type Column<T> = {
	header: string;
	value: (row: T) => string | number;
	/** Truncate cells to this width. */
	max?: number;
	align?: 'left' | 'right';
};

/** A plain aligned text table; header in bold when the stream supports colour. */
export function renderTable<T>(rows: readonly T[], columns: ReadonlyArray<Column<T>>): string {
	// Cells show outside text (file names, rater names, model names a server listed): no control sequence
	// in them reaches the terminal; only the colour (SGR) of cells this program coloured itself stays.
	const cells = rows.map((row) => columns.map((column) => truncate(withoutControls(String(column.value(row))), column.max)));
	// A loop, not Math.max(...cells): spreading 125k rows as arguments overflowed the stack.
	const widths = columns.map((column, index) => cells.reduce((widest, row) => Math.max(widest, displayWidth(row[index]!)), displayWidth(column.header)));
	const line = (values: string[]) =>
		values
			.map((value, index) => {
				const pad = ' '.repeat(Math.max(0, widths[index]! - displayWidth(value)));
				return columns[index]!.align === 'right' ? pad + value : value + pad;
			})
			.join('  ')
			.trimEnd();
	const header = chalk.bold(line(columns.map((column) => column.header)));
	return [header, ...cells.map((row) => line(row))].join('\n');
}

/** A cell on one line, cut to `max` display columns (grapheme-aware: a cut never splits a character from its marks). */
export function truncate(text: string, max?: number): string {
	const flat = text.replace(/\s+/g, ' ');
	if (!max) return flat;
	return cutToWidth(flat, max);
}

/** Terminal width of a string: the program's one measure (util/textWidth.ts), re-exported for the tables' callers. */
export {displayWidth} from './textWidth.js';
/** SGR colour sequences (what chalk writes) kept, every other control sequence and character removed. */
function withoutControls(text: string): string {
	if (!/[\u0000-\u001f\u007f-\u009f]/.test(text)) return text;
	const colours: string[] = [];
	const marked = text.replace(/\u001b\[[0-9;]*m/g, (sequence) => `\u{F0000}${colours.push(sequence) - 1}\u{F0001}`);
	return safeText(marked).replace(/\u{F0000}(\d+)\u{F0001}/gu, (_, index: string) => colours[Number(index)]!);
}
