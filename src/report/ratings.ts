import {existsSync} from 'node:fs';
import {readBoundedText} from '../util/boundedRead.js';
import {z} from 'zod';
import {registerSchema} from '../domain/registry.js';
import {Metric} from '../domain/session.js';
import {parseCsv} from '../kb/importers/csv.js';
import {UserError, zodProblems} from '../util/errors.js';
import type {Rating} from './agreement.js';

/** One human rating, as a JSONL line or a CSV row with the header session,metric,score,rater. */
export const HumanRating = z.strictObject({
	session: z.string().min(1).describe('session id'),
	metric: Metric,
	// A number, never coerced: `true` or "0x4" are mistakes to report, not scores of 1 and 4.
	score: z.number().int().min(1).max(5),
	rater: z.string().min(1).describe('who rated: any stable name or code'),
});
registerSchema('human-rating', HumanRating, 'one human rating for `report agreement --ratings FILE` (JSONL line, or CSV with header session,metric,score,rater)');

/** Reads ratings, naming the file and line of anything malformed; a rater rating twice is an error too. */
export function readRatings(file: string): Rating[] {
	if (!existsSync(file)) throw new UserError(`File not found: ${file}`);
	// Bounded and type-checked: a folder, a FIFO or /dev/zero named as the ratings file is a clear error.
	const text = readBoundedText(file, {what: 'ratings file', maxBytes: 256 * 1024 * 1024, followLinks: true});
	const rows: Array<{line: number; value: unknown}> = [];
	if (/\.csv$/i.test(file)) {
		const records = parseCsv(text);
		const header = records[0]?.fields.map((field) => field.trim()) ?? [];
		for (const name of ['session', 'metric', 'score', 'rater']) if (!header.includes(name)) throw new UserError(`${file}:1: the header needs the columns session, metric, score, rater (found ${header.join(', ') || 'nothing'}).`);
		for (const record of records.slice(1)) {
			if (record.error) throw new UserError(`${file}:${record.line}: ${record.error}`);
			if (record.fields.every((field) => field.trim() === '')) continue;
			const value: Record<string, unknown> = Object.fromEntries(header.map((name, index) => [name, record.fields[index]?.trim()]).filter(([name]) => ['session', 'metric', 'score', 'rater'].includes(name!)));
			// CSV cells are text: a plain decimal integer becomes a number, anything else stays text and fails validation.
			if (typeof value['score'] === 'string' && /^[0-9]+$/.test(value['score'])) value['score'] = Number(value['score']);
			rows.push({line: record.line, value});
		}
	} else {
		text.split('\n').forEach((raw, index) => {
			if (raw.trim() === '') return;
			try {
				rows.push({line: index + 1, value: JSON.parse(raw)});
			} catch (error) {
				throw new UserError(`${file}:${index + 1}: not valid JSON (${(error as Error).message})`);
			}
		});
	}
	const seen = new Map<string, number>();
	return rows.map(({line, value}) => {
		const parsed = HumanRating.safeParse(value);
		if (!parsed.success) throw new UserError(`${file}:${line}: ${zodProblems(parsed.error).join('; ')}`);
		const key = `${parsed.data.session}|${parsed.data.metric}|${parsed.data.rater}`;
		const earlier = seen.get(key);
		if (earlier !== undefined) throw new UserError(`${file}:${line}: ${parsed.data.rater} already rated ${parsed.data.metric} of ${parsed.data.session} on line ${earlier}.`);
		seen.set(key, line);
		return parsed.data;
	});
}
