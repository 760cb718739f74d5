import {existsSync} from 'node:fs';
import path from 'node:path';
import chalk from 'chalk';
import {type Norm, RejectedRow} from '../domain/situated.js';
import {resolveKbLocation} from '../kb/knowledgeBase.js';
import {loadKbSources} from '../kb/sources.js';
import {formatUsage} from '../present/text.js';
import {cultureKey} from '../situated/cultures.js';
import {extractNorms, rejectedKey} from '../situated/extract.js';
import {jsonlAppender, readJsonl} from '../situated/jsonl.js';
import {SOURCE_FORMATS, type SourceFormat, readSourceRows} from '../situated/normSources.js';
import {dedupe, normFromTaboo, normIdentityProblems, readNormFile} from '../situated/norms.js';
import {summarizeCalls} from '../llm/usage.js';
import {DataError, ExitCode, UserError} from '../util/errors.js';
import {unknownMessage} from '../util/suggest.js';
import {renderTable} from '../util/table.js';
import {cultureFilter, files, spreadNorms} from './crispFiles.js';
import {regionNamer} from '../situated/legacy.js';
import {callContext, reportStop} from './crispRuntime.js';
import {wholeFlag} from './flagValues.js';
import {type CommandContext, write, writeJson} from './types.js';

/* `crisp norms`: which norms there are, and `crisp norms extract`: norms from a data set file. */

export type NormSelection = {
	readonly norms: Norm[];
	/** How many of them are taboo KB entries: the norms CultureConverse's normative tier sets its traps with. */
	readonly trapNorms: number;
	readonly isTrap: (norm: Norm) => boolean;
};

/**
 * The norms a build works from: the taboo KB (default), or `--norms FILE`, narrowed by --region,
 * --culture, --norm and --limit. Counts the ones that are taboo KB entries, since items built from
 * those share their norms with CultureConverse's normative traps.
 */
export function selectNorms(context: CommandContext): NormSelection {
	const {flags, io} = context;
	const universe = context.universe();
	const file = typeof flags['norms'] === 'string' ? path.resolve(io.cwd, flags['norms']) : null;
	const taboo = loadKbSources(resolveKbLocation({env: io.env, cwd: io.cwd}), {universe}).taboo;
	const tabooIds = new Set(taboo.map(({entry}) => entry.id));
	const all = dedupe(file ? readNormFile(file, regionNamer(universe)) : taboo.map(({entry}) => normFromTaboo(entry, regionNamer(universe)(entry.region))));
	if (file) {
		const problems = normIdentityProblems(all, universe);
		if (problems.length > 0) throw new DataError(path.basename(file), problems.slice(0, 20));
	}
	const matches = cultureFilter(flags);
	const ids = (flags['norm'] as string[] | undefined) ?? [];
	for (const id of ids) if (!all.some((norm) => norm.id === id)) throw new UserError(unknownMessage('norm', id, all.map((norm) => norm.id)));
	let chosen = all.filter((norm) => (!matches || matches(norm)) && (ids.length === 0 || ids.includes(norm.id)));
	if (flags['limit'] !== undefined) chosen = spreadNorms(chosen, (norm) => norm.id, (norm) => norm).slice(0, wholeFlag(flags, 'limit', {min: 1}, 0));
	const isTrap = (norm: Norm) => tabooIds.has(norm.source);
	return {norms: chosen, trapNorms: chosen.filter(isTrap).length, isTrap};
}

/** The note `crisp build` (and the data exports) print when norms come from the taboo KB. */
export const trapNote = (count: number, total: number) =>
	`Note: ${count} of ${total} norm(s) are taboo KB entries, the same ones that set CultureConverse's normative traps: training on items built from them leaks into that tier. For training data, build from another source (crisp norms extract, then --norms FILE).`;

export function listNorms(context: CommandContext): number {
	const {norms, trapNorms} = selectNorms(context);
	if (context.flags['json']) writeJson(context.io, norms);
	else {
		write(context.io, renderTable(norms, [{header: 'ID', value: (norm) => norm.id}, {header: 'CULTURE', value: (norm) => norm.culture, max: 18}, {header: 'ISO', value: (norm) => norm.country ?? '–'}, {header: 'CATEGORY', value: (norm) => norm.category}, {header: 'TYPE', value: (norm) => norm.type}, {header: 'NORM', value: (norm) => norm.text, max: 80}]));
		const cultures = new Set(norms.map(cultureKey)).size;
		context.io.stderr.write(`${norms.length} norm(s), ${cultures} culture(s)${trapNorms > 0 ? ` (${trapNorms} from the taboo KB)` : ''}.\n`);
	}
	return ExitCode.ok;
}

const sidecar = (out: string) => out.replace(/\.jsonl$/i, '') + '.rejected.jsonl';

/**
 * `crisp norms extract --from FILE --format F`: one norm per source row, appended to --out (default
 * <sessions>/crisp/norms.jsonl) as it is made; rejected rows go to <out>.rejected.jsonl with their
 * line and reason. A rerun continues after what both files hold.
 */
export async function extract(context: CommandContext): Promise<number> {
	const {flags, io} = context;
	const from = flags['from'];
	const format = flags['format'];
	if (typeof from !== 'string') throw new UserError(`Usage: npx cultureconverse crisp norms extract --from FILE --format ${SOURCE_FORMATS.join('|')} [--out FILE]`);
	if (typeof format !== 'string' || !(SOURCE_FORMATS as readonly string[]).includes(format)) throw new UserError(format === undefined ? `--format is needed: one of ${SOURCE_FORMATS.join(', ')}.` : unknownMessage('source format', String(format), SOURCE_FORMATS));
	const source = path.resolve(io.cwd, from);
	const out = typeof flags['out'] === 'string' ? path.resolve(io.cwd, flags['out']) : path.join(files(flags, io).base, 'norms.jsonl');
	const rejectedFile = sidecar(out);
	const read = readSourceRows(source, format as SourceFormat);
	let rows = read.rows;
	if (flags['limit'] !== undefined) rows = rows.slice(0, wholeFlag(flags, 'limit', {min: 1}, 0));
	// What earlier runs wrote (both files are checked like any input: a damaged line is named, never skipped).
	const done = new Set(existsSync(out) ? readNormFile(out, regionNamer(context.universe())).map((norm) => norm.id) : []);
	const rejectedBefore = new Set(readJsonl(rejectedFile, RejectedRow).records.map(rejectedKey));
	const {runtime, call, calls, breaker, parallel} = await callContext(context, ['generator']);
	const norms = jsonlAppender(out);
	const rejected = jsonlAppender(rejectedFile);
	const result = await extractNorms({
		rows,
		done,
		rejectedBefore,
		parallel,
		context: call,
		saveNorm: (norm) => norms.append(norm),
		saveRejected: (row) => {
			rejected.append(row);
			if (!flags['json']) io.stderr.write(chalk.yellow(`rejected ${path.basename(source)} line ${row.line} (${row.row}): ${row.reason}\n`));
		},
		breaker,
	});
	const written = [...result.extracted, ...result.adopted];
	const summary = {
		from: source,
		format,
		out,
		rejectedFile,
		rows: rows.length,
		extracted: result.extracted.length,
		adopted: result.adopted.length,
		rejected: result.rejected.length,
		skipped: result.skipped,
		notNorms: read.skipped,
		errors: result.errors,
		cultures: Object.fromEntries([...groupCount(written)].sort((a, b) => b[1] - a[1])),
		usage: summarizeCalls(calls),
		generator: runtime.gateway.settings('generator').model,
		interrupted: Boolean(io.signal?.aborted),
	};
	if (flags['json']) writeJson(io, summary);
	else {
		for (const failure of result.errors) io.stderr.write(chalk.red(`line ${failure.line} (${failure.row}): ${failure.error}\n`));
		const skippedNote = Object.entries(read.skipped).map(([what, n]) => `${n} ${what}`).join(', ');
		write(io, `${rows.length} row(s) of ${path.basename(source)}: ${result.extracted.length} norm(s) extracted by ${summary.generator}, ${result.adopted.length} adopted as written, ${result.rejected.length} rejected${result.skipped ? `, ${result.skipped} done before` : ''}${result.errors.length ? `, ${chalk.red(`${result.errors.length} failed (run again to retry)`)}` : ''}${skippedNote ? `; not norms by design: ${skippedNote}` : ''}.`);
		if (written.length > 0) write(io, `Cultures: ${Object.entries(summary.cultures).map(([culture, n]) => `${culture} ${n}`).join(', ')}`);
		write(io, `Spent: ${formatUsage(calls)}`);
		write(io, `Norms: ${out}${result.rejected.length || rejectedBefore.size ? `  Rejected rows: ${rejectedFile}` : ''}${summary.interrupted ? ' (interrupted: run the same command again to continue)' : ''}`);
		write(io, `Build items from them: npx cultureconverse crisp build --norms ${path.relative(io.cwd, out) || out}`);
	}
	if (reportStop(io, runtime, breaker, 'rows')) return ExitCode.badInput;
	if (summary.interrupted) return ExitCode.interrupted;
	return result.errors.length > 0 ? ExitCode.episodeError : ExitCode.ok;
}

/** Norms per culture label ("USA 58, China 66"). */
function groupCount(norms: readonly Norm[]): Map<string, number> {
	const counts = new Map<string, number>();
	for (const norm of norms) counts.set(norm.culture, (counts.get(norm.culture) ?? 0) + 1);
	return counts;
}

