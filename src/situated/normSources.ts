import {readFileSync} from 'node:fs';
import path from 'node:path';
import {Norm, type NormCategory} from '../domain/situated.js';
import {statesAvoidance} from '../kb/importers/normad.js';
import {parseCsv} from '../kb/importers/csv.js';
import {UserError, zodProblems} from '../util/errors.js';
import {shortHash} from '../util/hash.js';
import {countryCode, cultureLabel, regionOfCountry} from './cultures.js';

/*
 * The rows `crisp norms extract` reads, one per source row (CRISP A.1). CulturalBench and FORK hold
 * questions with a keyed answer: a model turns each into one norm sentence (extract rows). NormAd
 * states its norms already (the rule of thumb), so they are adopted as they are, as the paper does
 * (direct rows); so are full Norm objects in a JSONL file. A row that cannot be read is a rejected
 * row, named with its line and why.
 */

export const SOURCE_FORMATS = ['fork', 'normad', 'culturalbench', 'jsonl'] as const;
export type SourceFormat = (typeof SOURCE_FORMATS)[number];

/** A question (or statement) for the extractor, with the culture it is about. */
export type ExtractRow = {
	readonly kind: 'extract';
	readonly row: string;
	readonly line: number;
	readonly format: SourceFormat;
	/** The norm id the extracted norm will have (stable per source row, so a rerun skips it). */
	readonly normId: string;
	readonly source: string;
	readonly culture: string;
	readonly question: string | null;
	readonly options: readonly string[];
	readonly answer: string | null;
	readonly statement: string | null;
	/** What the data set says about the row that helps read it (FORK's dimension, an underspecified question). */
	readonly hint: string | null;
};
export type DirectRow = {readonly kind: 'direct'; readonly row: string; readonly line: number; readonly norm: Norm};
export type RejectedSourceRow = {readonly kind: 'rejected'; readonly row: string; readonly line: number; readonly reason: string};
export type SourceRow = ExtractRow | DirectRow | RejectedSourceRow;

export type SourceRead = {
	readonly rows: SourceRow[];
	/** Rows that are not norms by the data set's own design, counted (CulturalBench-Hard's wrong options). */
	readonly skipped: Readonly<Record<string, number>>;
};

/** One row of either file kind; `raw` is the JSON object of a JSONL row (a full Norm is taken from it as it is). */
type Record_ = {readonly line: number; readonly get: (column: string) => string | undefined; readonly columns: ReadonlySet<string>; readonly raw?: Readonly<Record<string, unknown>>};

/** CSV (by extension) or JSONL rows as uniform records; a line that is not a JSON object is rejected. */
function readRecords(file: string): {records: Record_[]; rejected: RejectedSourceRow[]} {
	let text: string;
	try {
		text = readFileSync(file, 'utf8');
	} catch (error) {
		throw new UserError(`Cannot read ${file}: ${(error as NodeJS.ErrnoException).code ?? (error as Error).message}.`);
	}
	const records: Record_[] = [];
	const rejected: RejectedSourceRow[] = [];
	if (file.toLowerCase().endsWith('.csv')) {
		const parsed = parseCsv(text);
		const header = parsed.shift()?.fields.map((field) => field.trim()) ?? [];
		const columns = new Set(header);
		for (const record of parsed) {
			if (record.error) rejected.push({kind: 'rejected', row: `line ${record.line}`, line: record.line, reason: record.error});
			else if (record.fields.length !== header.length) rejected.push({kind: 'rejected', row: `line ${record.line}`, line: record.line, reason: `expected ${header.length} fields, got ${record.fields.length}`});
			else records.push({line: record.line, columns, get: (column) => record.fields[header.indexOf(column)]});
		}
		return {records, rejected};
	}
	text.split('\n').forEach((line, index) => {
		if (line.trim() === '') return;
		let raw: unknown;
		try {
			raw = JSON.parse(line);
		} catch {
			rejected.push({kind: 'rejected', row: `line ${index + 1}`, line: index + 1, reason: 'not valid JSON'});
			return;
		}
		if (!raw || typeof raw !== 'object' || Array.isArray(raw)) {
			rejected.push({kind: 'rejected', row: `line ${index + 1}`, line: index + 1, reason: 'not a JSON object'});
			return;
		}
		const object = raw as Record<string, unknown>;
		const value = (column: string) => (object[column] === undefined || object[column] === null ? undefined : typeof object[column] === 'string' ? (object[column] as string) : JSON.stringify(object[column]));
		records.push({line: index + 1, columns: new Set(Object.keys(object)), get: value, raw: object});
	});
	return {records, rejected};
}

function requireColumns(file: string, records: readonly Record_[], format: SourceFormat, columns: readonly string[], hint: string): void {
	const first = records[0];
	if (!first) return;
	const missing = columns.filter((column) => !first.columns.has(column));
	if (missing.length > 0) throw new UserError(`${path.basename(file)} is not a ${format} file: missing column(s) ${missing.join(', ')} (${hint}).`);
}

const slug = (text: string) => text.toLowerCase().replace(/[^a-z0-9]+/g, '-').replace(/^-|-$/g, '').slice(0, 40) || 'row';

const FORK_DIMENSION: Readonly<Record<string, NormCategory>> = {'eating utensils': 'eating_utensils', tipping: 'tipping'};

/** FORK: two options and a key; `Country` names the culture (for underspecified rows, the one whose answer is keyed). */
function forkRows(file: string, records: readonly Record_[]): SourceRow[] {
	requireColumns(file, records, 'fork', ['ID', 'Question', 'Option A', 'Option B', 'Answer Key', 'Country'], "FORK's columns are ID, Question, Option A, Option B, Answer Key, Country, Type, Dimension");
	return records.map((record): SourceRow => {
		const id = (record.get('ID') ?? '').trim() || `line ${record.line}`;
		const key = (record.get('Answer Key') ?? '').trim().toUpperCase();
		const options = [record.get('Option A') ?? '', record.get('Option B') ?? ''].map((option) => option.trim());
		const answer = key === 'A' ? options[0] : key === 'B' ? options[1] : undefined;
		const question = (record.get('Question') ?? '').trim();
		const country = (record.get('Country') ?? '').trim();
		if (!answer) return {kind: 'rejected', row: id, line: record.line, reason: `Answer Key '${key}' is not A or B with a non-empty option`};
		if (!question || !country) return {kind: 'rejected', row: id, line: record.line, reason: !question ? 'empty Question' : 'empty Country'};
		const dimension = (record.get('Dimension') ?? '').trim();
		const underspecified = (record.get('Type') ?? '').trim() === 'Underspecified';
		const hint = [dimension ? `FORK dimension: ${dimension}` : '', underspecified ? `the question names no country; the keyed answer is the one expected in ${cultureLabel(country)}` : ''].filter(Boolean).join('; ');
		return {kind: 'extract', row: id, line: record.line, format: 'fork', normId: `norm.fork-${shortHash(id)}`, source: `FORK ${id}`, culture: cultureLabel(country), question, options, answer, statement: null, hint: hint || null};
	});
}

/** FORK's dimension as a category hint for the offline extractor (a model chooses its own). */
export const forkCategory = (hint: string | null): NormCategory | null => {
	const dimension = /FORK dimension: ([^;]+)/.exec(hint ?? '')?.[1]?.toLowerCase();
	return dimension ? (FORK_DIMENSION[dimension] ?? null) : null;
};

/**
 * CulturalBench: Easy rows (four options, `answer` a letter) or Hard rows (one option, `answer`
 * true/false; only the true option of a question states its norm, the false ones are skipped).
 */
function culturalBenchRows(file: string, records: readonly Record_[], skipped: Record<string, number>): SourceRow[] {
	requireColumns(file, records, 'culturalbench', ['prompt_question', 'answer', 'country'], 'CulturalBench rows have prompt_question, prompt_option_a..d (Easy) or prompt_option (Hard), answer and country');
	const rows: SourceRow[] = [];
	const hardSeen = new Set<string>();
	for (const record of records) {
		const id = (record.get('question_idx') ?? record.get('data_idx') ?? '').trim() || `line ${record.line}`;
		const question = (record.get('prompt_question') ?? '').trim();
		const country = (record.get('country') ?? '').trim();
		const answerField = (record.get('answer') ?? '').trim();
		const base = {kind: 'extract' as const, row: id, line: record.line, format: 'culturalbench' as const, normId: `norm.cb-${shortHash(id)}`, source: `CulturalBench ${id}`, culture: cultureLabel(country), question, statement: null, hint: null};
		if (!question || !country) {
			rows.push({kind: 'rejected', row: id, line: record.line, reason: !question ? 'empty prompt_question' : 'empty country'});
			continue;
		}
		if (record.columns.has('prompt_option')) {
			if (!/^true$/i.test(answerField)) {
				skipped['CulturalBench-Hard rows whose option is false'] = (skipped['CulturalBench-Hard rows whose option is false'] ?? 0) + 1;
				continue;
			}
			if (hardSeen.has(id)) continue;
			hardSeen.add(id);
			const option = (record.get('prompt_option') ?? '').trim();
			rows.push({...base, options: [option], answer: option});
			continue;
		}
		const options = ['a', 'b', 'c', 'd'].map((letter) => (record.get(`prompt_option_${letter}`) ?? '').trim());
		const index = 'ABCD'.indexOf(answerField.toUpperCase());
		if (answerField.length !== 1 || index < 0 || !options[index]) rows.push({kind: 'rejected', row: id, line: record.line, reason: `answer '${answerField}' is not a letter A-D with a non-empty option`});
		else rows.push({...base, options, answer: options[index]!});
	}
	return rows;
}

/** NormAd sub-headings as categories; the rest ("basic_etiquette", country-specific ones) have none of the paper's. */
const NORMAD_SUBAXIS: ReadonlyArray<[RegExp, NormCategory]> = [
	[/gift/, 'gift_giving'],
	[/eat|dining|food|drink|table/, 'dining_etiquette'],
	[/visit/, 'hospitality'],
	[/tip/, 'tipping'],
	[/greet/, 'greetings'],
	[/business|work/, 'workplace'],
];

/** NormAd: the rule of thumb is the norm (adopted without a model, as the paper does); stories sharing a rule share its norm. */
function normadRows(file: string, records: readonly Record_[]): SourceRow[] {
	requireColumns(file, records, 'normad', ['ID', 'Country', 'Subaxis', 'Rule-of-Thumb'], "NormAd-Eti's columns are ID, Country, Background, Axis, Subaxis, Value, Rule-of-Thumb, Story, Explanation, Gold Label");
	return records.map((record): SourceRow => {
		const id = (record.get('ID') ?? '').trim() || `line ${record.line}`;
		const rule = (record.get('Rule-of-Thumb') ?? '').replace(/\s+/g, ' ').trim();
		const key = (record.get('Country') ?? '').trim();
		if (rule.length < 10) return {kind: 'rejected', row: id, line: record.line, reason: 'Rule-of-Thumb is empty or too short to be a norm'};
		if (!key) return {kind: 'rejected', row: id, line: record.line, reason: 'empty Country'};
		const culture = cultureLabel(key);
		const country = countryCode(key);
		const subaxis = (record.get('Subaxis') ?? '').toLowerCase();
		const text = /[.!?]$/.test(rule) ? rule : `${rule}.`;
		const norm: Norm = {
			// The rule, not the story, is the norm: rows that share a rule share an id.
			id: `norm.normad-${shortHash(`${key.toLowerCase()}|${rule.toLowerCase()}`)}`,
			culture,
			country,
			region: regionOfCountry(country),
			identities: [],
			text,
			type: statesAvoidance(rule) ? 'proscriptive' : 'prescriptive',
			category: NORMAD_SUBAXIS.find(([pattern]) => pattern.test(subaxis))?.[1] ?? 'other',
			source: `NormAd-Eti ${id}`,
		};
		return {kind: 'direct', row: id, line: record.line, norm};
	});
}

/**
 * JSONL: a full Norm object is adopted as it is; a lighter row `{"culture": ..., "text": ...}` (optional
 * `id`, `country`) is a statement the extractor rewrites as one norm sentence with a type and category.
 */
function jsonlRows(file: string, records: readonly Record_[]): SourceRow[] {
	const name = path.basename(file);
	return records.map((record): SourceRow => {
		const row = (record.get('id') ?? '').trim() || `line ${record.line}`;
		if (record.columns.has('category') && record.columns.has('type')) {
			const parsed = Norm.safeParse({identities: [], country: null, region: null, ...record.raw});
			return parsed.success ? {kind: 'direct', row, line: record.line, norm: parsed.data} : {kind: 'rejected', row, line: record.line, reason: zodProblems(parsed.error, '').join('; ')};
		}
		const culture = (record.get('culture') ?? '').trim();
		const text = (record.get('text') ?? '').trim();
		if (!culture || text.length < 10) return {kind: 'rejected', row, line: record.line, reason: !culture ? 'no "culture"' : 'no "text" of at least 10 characters'};
		return {kind: 'extract', row, line: record.line, format: 'jsonl', normId: record.get('id') ? `norm.${slug(row)}` : `norm.jsonl-${shortHash(`${culture}|${text}`)}`, source: `${name} ${row}`, culture: cultureLabel(culture), question: null, options: [], answer: null, statement: text, hint: null};
	});
}

/** Every row of a source file, as extract, direct or rejected rows (a wrong layout is one clear error). */
export function readSourceRows(file: string, format: SourceFormat): SourceRead {
	const {records, rejected} = readRecords(file);
	const skipped: Record<string, number> = {};
	const rows = format === 'fork' ? forkRows(file, records) : format === 'normad' ? normadRows(file, records) : format === 'culturalbench' ? culturalBenchRows(file, records, skipped) : jsonlRows(file, records);
	return {rows: [...rejected, ...rows].sort((a, b) => a.line - b.line), skipped};
}

/** An extracted norm sentence as a Norm of its source row. */
export function normFromExtraction(row: ExtractRow, extracted: {norm: string; type: Norm['type']; category: NormCategory}): Norm {
	const country = countryCode(row.culture);
	return {id: row.normId, culture: row.culture, country, region: regionOfCountry(country), identities: [], text: extracted.norm.trim(), type: extracted.type, category: extracted.category, source: row.source};
}
