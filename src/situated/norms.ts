import {readFileSync} from 'node:fs';
import path from 'node:path';
import type {TabooEntry} from '../domain/kb.js';
import {Norm} from '../domain/situated.js';
import type {RegionCode} from '../domain/universe.js';
import {parseCsv} from '../kb/importers/csv.js';
import {DataError, UserError, zodProblems} from '../util/errors.js';
import {shortHash} from '../util/hash.js';
import type {Universe} from '../universe/load.js';

/*
 * Where norms come from. The taboo KB already holds normalised constraints for every region, so each
 * entry is a proscriptive norm. A file adds more: JSONL of Norm objects, or the FORK data set
 * (CSV or JSONL with its own columns), whose questions about China, Japan and South Korea become
 * prescriptive norms.
 */

const lowerFirst = (text: string) => (/^[A-Z][a-z]/.test(text) ? text[0]!.toLowerCase() + text.slice(1) : text);

/** A taboo entry read as a norm: avoid the action, for the stated reason. */
export function normFromTaboo(entry: TabooEntry): Norm {
	return {
		id: `norm.${entry.id}`,
		region: entry.region,
		identities: [...entry.identities],
		text: `Avoid ${lowerFirst(entry.action.replace(/\.$/, ''))}. ${entry.explanation}`,
		type: 'proscriptive',
		source: entry.id,
	};
}

const FORK_COUNTRIES: Record<string, RegionCode> = {China: 'CN', Japan: 'JP', 'South Korea': 'KR', Korea: 'KR', Indonesia: 'ID', Malaysia: 'MY', Singapore: 'SG', Thailand: 'TH', Vietnam: 'VN', 'Viet Nam': 'VN', Philippines: 'PH', Brunei: 'BN'};
const FORK_COLUMNS = ['ID', 'Question', 'Option A', 'Option B', 'Answer Key', 'Country', 'Type'] as const;
type ForkRow = Record<(typeof FORK_COLUMNS)[number], string>;

/**
 * One FORK row as a norm: the question with its keyed answer. Underspecified rows name no country in
 * the question itself, so they are left out; rows of regions outside the ten are skipped.
 */
export function normFromFork(row: ForkRow): Norm | null {
	const region = FORK_COUNTRIES[row.Country.trim()];
	if (!region || row.Type.trim() === 'Underspecified') return null;
	const key = row['Answer Key'].trim().toUpperCase();
	const answer = (key === 'A' ? row['Option A'] : key === 'B' ? row['Option B'] : '').trim();
	if (!answer) return null;
	const question = row.Question.trim().replace(/\?$/, '');
	return {id: `norm.fork-${shortHash(row.ID)}`, region, identities: [], text: `${question}? The expected answer: ${answer}.`, type: 'prescriptive', source: `FORK ${row.ID}`};
}

/** Reads a norm file: JSONL of Norm objects, FORK as CSV, or FORK as JSONL. Every problem names file and line. */
export function readNormFile(file: string): Norm[] {
	let text: string;
	try {
		text = readFileSync(file, 'utf8');
	} catch (error) {
		throw new UserError(`Cannot read the norms file ${file}: ${(error as NodeJS.ErrnoException).code ?? (error as Error).message}.`);
	}
	const shown = path.basename(file);
	const problems: string[] = [];
	const norms: Norm[] = [];
	if (file.endsWith('.csv')) {
		const records = parseCsv(text);
		const header = records[0]?.fields.map((field) => field.trim()) ?? [];
		const missing = FORK_COLUMNS.filter((column) => !header.includes(column));
		if (missing.length > 0) throw new DataError(shown, [`not a FORK CSV: missing column(s) ${missing.join(', ')} (a norms file is JSONL of Norm objects, or FORK's CSV)`]);
		for (const record of records.slice(1)) {
			if (record.error) problems.push(`line ${record.line}: ${record.error}`);
			else norms.push(...keep(normFromFork(Object.fromEntries(header.map((name, index) => [name, record.fields[index] ?? ''])) as ForkRow)));
		}
	} else {
		text.split('\n').forEach((line, index) => {
			if (line.trim() === '') return;
			let raw: unknown;
			try {
				raw = JSON.parse(line);
			} catch {
				problems.push(`line ${index + 1}: not valid JSON`);
				return;
			}
			if (raw && typeof raw === 'object' && 'Answer Key' in raw) {
				const row = raw as Partial<ForkRow>;
				const absent = FORK_COLUMNS.filter((column) => typeof row[column] !== 'string');
				if (absent.length > 0) problems.push(`line ${index + 1}: FORK row without ${absent.join(', ')}`);
				else norms.push(...keep(normFromFork(row as ForkRow)));
				return;
			}
			const parsed = Norm.safeParse(raw);
			if (parsed.success) norms.push(parsed.data);
			else problems.push(...zodProblems(parsed.error, `line ${index + 1}: `));
		});
	}
	if (problems.length > 0) throw new DataError(shown, problems.slice(0, 20));
	return dedupe(norms);
}

const keep = (norm: Norm | null): Norm[] => (norm ? [norm] : []);

/** The same norm text for the same region once (sources overlap, as the paper found). */
export function dedupe(norms: readonly Norm[]): Norm[] {
	const seen = new Set<string>();
	const ids = new Set<string>();
	return norms.filter((norm) => {
		const key = `${norm.region}\0${norm.text.toLowerCase().replace(/\s+/g, ' ')}`;
		if (seen.has(key) || ids.has(norm.id)) return false;
		seen.add(key);
		ids.add(norm.id);
		return true;
	});
}

/**
 * The culture every agent and the policy are told: the region, and the communities a norm is specific
 * to ("Malaysia (Tamil Hindu)"), since a norm of one community cannot be inferred from the country.
 */
export function cultureLine(universe: Universe, norm: Norm): string {
	const region = universe.regions.get(norm.region)?.name ?? norm.region;
	const groups = norm.identities.map((id) => universe.identityById.get(id)?.label).filter((label): label is string => Boolean(label));
	return groups.length > 0 ? `${region} (${groups.join(', ')})` : region;
}

/** Identity ids a norm names must exist and live in the norm's region (the culture line is built from them). */
export function normIdentityProblems(norms: readonly Norm[], universe: Universe): string[] {
	const problems: string[] = [];
	for (const norm of norms) {
		for (const id of norm.identities) {
			const identity = universe.identityById.get(id);
			if (!identity) problems.push(`${norm.id}: unknown identity '${id}' (see \`cultureconverse personas --region ${norm.region}\`)`);
			else if (identity.region !== norm.region) problems.push(`${norm.id}: identity '${id}' belongs to ${identity.region}, not ${norm.region}`);
		}
	}
	return problems;
}
