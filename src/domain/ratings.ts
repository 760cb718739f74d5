import {parse as parseCsv} from 'csv-parse/sync';
import {z} from 'zod';
import {registerSchema} from './registry.js';
import {Metric} from './session.js';

/*
 * Human ratings: the shape (one schema for JSONL lines and CSV rows) and the one parser of a ratings
 * text, used by `report agreement`, the HTML report and the TUI's rating store. Names are trimmed in
 * every format (" A" and "A" are one rater), a CSV row with more fields than the header is refused, and
 * every problem names file and line.
 */

/** One human rating, as a JSONL line or a CSV row with the header session,metric,score,rater. */
export const HumanRating = z.strictObject({
	session: z.string().trim().min(1).describe('session id'),
	metric: Metric,
	// A number, never coerced: `true` or "0x4" are mistakes to report, not scores of 1 and 4.
	score: z.number().int().min(1).max(5),
	rater: z.string().trim().min(1).describe('who rated: any stable name or code'),
});
registerSchema('human-rating', HumanRating, 'one human rating for `report agreement --ratings FILE` (JSONL line, or CSV with header session,metric,score,rater)');

/** One human score for one session and metric (names trimmed). */
export type Rating = {readonly session: string; readonly metric: Metric; readonly score: number; readonly rater: string};

const COLUMNS = ['session', 'metric', 'score', 'rater'] as const;

/** A problem in a ratings file, with where it is. */
export class RatingsError extends Error {}

/**
 * The ratings of a file's text (`name` is how problems name the file; a `.csv` name reads CSV, any
 * other JSONL). A rater rating the same metric of the same session twice is refused.
 */
export function parseRatings(text: string, name: string): Rating[] {
	const rows: Array<{line: number; value: unknown}> = /\.csv$/i.test(name) ? csvRows(text, name) : jsonlRows(text, name);
	const seen = new Map<string, number>();
	return rows.map(({line, value}) => {
		const parsed = HumanRating.safeParse(value);
		if (!parsed.success) throw new RatingsError(`${name}:${line}: ${parsed.error.issues.map((issue) => `${issue.path.join('.') || 'line'}: ${issue.message}`).join('; ')}`);
		const key = `${parsed.data.session}\u0000${parsed.data.metric}\u0000${parsed.data.rater}`;
		const earlier = seen.get(key);
		if (earlier !== undefined) throw new RatingsError(`${name}:${line}: ${parsed.data.rater} already rated ${parsed.data.metric} of ${parsed.data.session} on line ${earlier}.`);
		seen.set(key, line);
		return parsed.data;
	});
}

function jsonlRows(text: string, name: string): Array<{line: number; value: unknown}> {
	const rows: Array<{line: number; value: unknown}> = [];
	text.split('\n').forEach((raw, index) => {
		if (raw.trim() === '') return;
		try {
			rows.push({line: index + 1, value: JSON.parse(raw)});
		} catch (error) {
			throw new RatingsError(`${name}:${index + 1}: not valid JSON (${(error as Error).message})`);
		}
	});
	return rows;
}

/** CSV rows through csv-parse: a header naming the four columns, no row wider than the header. */
function csvRows(text: string, name: string): Array<{line: number; value: unknown}> {
	let records: Array<{record: string[]; info: {lines: number}}>;
	try {
		records = parseCsv(text, {bom: true, info: true, skip_empty_lines: true, relax_column_count_less: true}) as unknown as Array<{record: string[]; info: {lines: number}}>;
	} catch (error) {
		const problem = error as Error & {lines?: number; code?: string};
		const why = problem.code === 'CSV_RECORD_INCONSISTENT_FIELDS_LENGTH' ? 'more fields than the header names (a comma inside a value needs quotes)' : problem.message.replace(/^Invalid[^:]*:\s*/, '');
		throw new RatingsError(`${name}:${problem.lines ?? '?'}: ${why}`);
	}
	const header = records[0]?.record.map((field) => field.trim()) ?? [];
	for (const column of COLUMNS) if (!header.includes(column)) throw new RatingsError(`${name}:1: the header needs the columns session, metric, score, rater (found ${header.join(', ') || 'nothing'}).`);
	return records.slice(1).flatMap(({record, info}) => {
		if (record.every((field) => field.trim() === '')) return [];
		const value: Record<string, unknown> = Object.fromEntries(header.map((column, index) => [column, record[index]?.trim()]).filter(([column]) => (COLUMNS as readonly string[]).includes(column!)));
		// CSV cells are text: a plain decimal integer becomes a number, anything else stays text and fails validation.
		if (typeof value['score'] === 'string' && /^[0-9]+$/.test(value['score'])) value['score'] = Number(value['score']);
		return [{line: info.lines, value}];
	});
}
