import chalk from 'chalk';
import {displayWidth, truncate as cutToWidth} from './textWidth.js';

export type Column<T> = {
	header: string;
	value: (row: T) => string | number;
	/** Truncate cells to this width. */
	max?: number;
	align?: 'left' | 'right';
};

/** A plain aligned text table; header in bold when the stream supports colour. */
export function renderTable<T>(rows: readonly T[], columns: ReadonlyArray<Column<T>>): string {
	const cells = rows.map((row) => columns.map((column) => truncate(String(column.value(row)), column.max)));
	const widths = columns.map((column, index) => Math.max(displayWidth(column.header), ...cells.map((row) => displayWidth(row[index]!))));
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
