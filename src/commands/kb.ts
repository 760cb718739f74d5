import path from 'node:path';
import {summaryOf} from './registry.js';
import {seedFromFlags} from './episodeOptions.js';
import {CulturalEntry, Evidence, type EvidenceHit, TabooEntry} from '../domain/kb.js';
import {registerSchema} from '../domain/registry.js';
import {DOMAIN_IDS, type DomainId, REGION_CODES, type RegionCode, Tag} from '../domain/universe.js';
import {IMPORT_FORMATS, type ImportFormat, type ImportSummary, importKb} from '../kb/importers/index.js';
import {type KbFilter, KnowledgeBase, type SearchMode, resolveKbLocation} from '../kb/knowledgeBase.js';
import {progressReporter} from '../kb/progress.js';
import {RETRIEVAL_RANKINGS, type RetrievalRanking, retrieveEvidence} from '../kb/retrieve.js';
import {KB_KINDS, type KbKind} from '../kb/sources.js';
import {type PaperComparison, comparePaper} from '../kb/stats.js';
import {ExitCode, UserError} from '../util/errors.js';
import {unknownMessage} from '../util/suggest.js';
import {renderTable, truncate} from '../util/table.js';
import {type Command, type CommandContext, type Flags, write, writeJson} from './types.js';
import {regionCode} from './flagValues.js';

const SUBCOMMANDS = ['import', 'build', 'search', 'stats', 'evidence'] as const;

// So `npx cultureconverse schema taboo-entry` documents the lines `kb import --format jsonl` accepts.
registerSchema('cultural-entry', CulturalEntry, 'a cultural KB passage (one line of kb/cultural/*.jsonl)');
registerSchema('taboo-entry', TabooEntry, 'a taboo KB entry (one line of kb/taboo/*.jsonl)');
registerSchema('evidence', Evidence, 'K_W and K_T retrieved for one seed (`kb evidence <seed-id> --json`)');

export const kbCommand: Command = {
	name: 'kb',
	summary: summaryOf('kb'),
	usage: [
		'kb import FILE --format jsonl|normad|wikipedia|blend [--kind cultural|taboo] [--name N] [--region R,R] [--domain D] [--questions CSV] [--dry-run] [--json]',
		'kb build [--kind K] [--region R] [--force] [--embedder E] [--json]',
		'kb search "query" [--region R] [--kind cultural|taboo] [--category C] [--domain D] [--tag T] [--persona ID] [--k N] [--mode dense|hybrid] [--json]',
		'kb stats [--json]',
		'kb evidence <seed-id> [--tier T] [--k N] [--ranking topic-first|identity-boost] [--json]',
	].join('\n    $ cultureconverse '),
	flags: {
		kind: {type: 'string', description: 'cultural or taboo'},
		format: {type: 'string', description: 'import: jsonl, normad (NormAd-Eti CSV), wikipedia (JSONL of {title, text, url, categories}) or blend (BLEnD <Region>_data.json)'},
		questions: {type: 'string', description: 'import --format blend: the questions CSV with each question\'s Topic (default: ../questions/<Region>_questions.csv next to the file)'},
		name: {type: 'string', description: 'import: name of the user KB file to write (re-importing under one name replaces it)'},
		region: {type: 'string', description: 'Region code (BN CN ID JP KR MY PH SG TH VN); import: comma-separated regions for every article'},
		domain: {type: 'string', description: 'Domain id, e.g. culinary'},
		category: {type: 'string', description: 'Taboo category (a domain id)'},
		tag: {type: 'string', isMultiple: true, description: 'search: keep entries with this tag (repeatable; any of them)'},
		persona: {type: 'string', description: 'search: re-rank by this persona\'s tags, e.g. my-tamil-hindu-a55-f'},
		k: {type: 'number', description: 'How many hits (search default 5; evidence: size of K_W)'},
		mode: {type: 'string', description: 'search: dense or hybrid (dense + BM25, rank-fused)'},
		embedder: {type: 'string', description: 'hash, hf:<model-id> or local:<folder> (default: env CULTURECONVERSE_EMBEDDER, else hf:Xenova/multilingual-e5-small)'},
		force: {type: 'boolean', description: 'build: rebuild indexes that are up to date'},
		tier: {type: 'string', description: 'evidence: override the seed\'s tier (standard, contextual, normative), as `run --tier` does'},
		ranking: {type: 'string', description: 'evidence: topic-first (default) or identity-boost (the ranking before issue 13, for comparison)'},
		dryRun: {type: 'boolean', description: 'import: report what would be imported, write nothing'},
		json: {type: 'boolean', description: 'Print JSON'},
	},
	async run(context) {
		const sub = context.args[0];
		if (!sub) {
			context.io.stderr.write(context.help);
			return ExitCode.badInput;
		}
		switch (sub) {
			case 'import':
				return runImport(context);
			case 'build':
				return runBuild(context);
			case 'search':
				return runSearch(context);
			case 'stats':
				return runStats(context);
			case 'evidence':
				return runEvidence(context);
			default:
				throw new UserError(unknownMessage('kb subcommand', sub, SUBCOMMANDS, 'See `npx cultureconverse kb --help`.'));
		}
	},
};

function openKb(context: CommandContext): Promise<KnowledgeBase> {
	const {io, flags, universe} = context;
	return KnowledgeBase.open({
		universe: universe(),
		env: io.env,
		cwd: io.cwd,
		embedder: stringFlag(flags, 'embedder'),
		log: (message) => io.stderr.write(message),
		onProgress: progressReporter(io.stderr),
	});
}

async function runImport(context: CommandContext): Promise<number> {
	const {args, flags, io, universe} = context;
	const file = args[1];
	if (!file) throw new UserError(`Usage: npx cultureconverse kb import FILE --format ${IMPORT_FORMATS.join('|')} [--kind cultural|taboo]`);
	const format = stringFlag(flags, 'format');
	if (!format) throw new UserError(`kb import needs --format: one of ${IMPORT_FORMATS.join(', ')}.`);
	if (!IMPORT_FORMATS.includes(format as ImportFormat)) throw new UserError(unknownMessage('import format', format, IMPORT_FORMATS));
	const location = resolveKbLocation({env: io.env, cwd: io.cwd});
	const summary = importKb({
		file: path.resolve(io.cwd, file),
		format: format as ImportFormat,
		kind: kindFlag(flags),
		location,
		name: stringFlag(flags, 'name'),
		regions: stringFlag(flags, 'region') ? stringFlag(flags, 'region')!.split(',').map((region) => regionCode(region.trim())) : undefined,
		domain: domainFlag(stringFlag(flags, 'domain')),
		questionsFile: stringFlag(flags, 'questions') ? path.resolve(io.cwd, stringFlag(flags, 'questions')!) : undefined,
		universe: universe(),
		dryRun: Boolean(flags['dryRun']),
	});
	if (flags['json']) writeJson(io, summary);
	else write(io, importReport(summary, Boolean(flags['dryRun'])));
	return summary.imported === 0 && summary.byKind.invalid > 0 ? ExitCode.badInput : ExitCode.ok;
}

export function importReport(summary: ImportSummary, dryRun: boolean): string {
	const lines: string[] = [];
	const what = summary.kind === 'taboo' ? 'taboo entries' : 'cultural passages';
	if (summary.imported > 0) {
		lines.push(`${dryRun ? 'Would import' : 'Imported'} ${summary.imported} ${what} from ${summary.rows} rows of ${summary.file}`);
		lines.push(`  ${dryRun ? 'into' : 'written to'} ${summary.output}${summary.replaced ? ' (replacing the previous import of that name)' : ''}`);
		lines.push(`  by region: ${REGION_CODES.filter((region) => summary.byRegion[region] > 0).map((region) => `${region} ${summary.byRegion[region]}`).join('  ') || '(none)'}`);
	} else {
		lines.push(`Imported nothing from ${summary.rows} rows of ${summary.file}`);
	}
	if (summary.skipped > 0) {
		lines.push(`Skipped ${summary.skipped} rows: ${summary.byKind.invalid} invalid, ${summary.byKind.filtered} out of scope, ${summary.byKind.duplicate} duplicate`);
		lines.push(`  reasons: ${Object.entries(summary.byReason).map(([code, n]) => `${code} ${n}`).join(', ')}`);
		for (const skip of summary.skips.filter((s) => s.kind !== 'filtered')) lines.push(`  ${skip.file}:${skip.line}: ${skip.reason}`);
		const filtered = summary.skips.filter((s) => s.kind === 'filtered');
		if (filtered.length > 0) lines.push(`  (${filtered.length} out-of-scope rows are listed one by one with --json)`);
	}
	for (const note of summary.notes) lines.push(`Note: ${note}`);
	if (summary.imported > 0 && !dryRun) lines.push('Run `npx cultureconverse kb build` to index them now (searches also build stale indexes on demand).');
	return lines.join('\n');
}

async function runBuild(context: CommandContext): Promise<number> {
	const {flags, io} = context;
	const kind = kindFlag(flags);
	const region = stringFlag(flags, 'region') ? regionCode(stringFlag(flags, 'region')!) : undefined;
	const kb = await openKb(context);
	const report = await kb.build({force: Boolean(flags['force']), kinds: kind ? [kind] : undefined, regions: region ? [region] : undefined, onProgress: progressReporter(io.stderr)});
	if (flags['json']) writeJson(io, report);
	else write(io, `Embedder ${report.embedder}: built ${report.built.length} index(es), ${report.upToDate} already up to date, ${report.empty} empty, in ${(report.ms / 1000).toFixed(1)} s\n  index folder: ${kb.indexDir}`);
	return ExitCode.ok;
}

async function runSearch(context: CommandContext): Promise<number> {
	const {args, flags, io, universe} = context;
	const query = args.slice(1).join(' ').trim();
	if (!query) throw new UserError('Usage: npx cultureconverse kb search "query" [--region R] [--kind cultural|taboo] [--k N] [--json]');
	const category = domainFlag(stringFlag(flags, 'category'), 'category');
	const kind = kindFlag(flags) ?? (category ? 'taboo' : undefined);
	const k = positiveInt(flags['k'], 5, '--k');
	const mode = stringFlag(flags, 'mode');
	if (mode && mode !== 'dense' && mode !== 'hybrid') throw new UserError(`--mode must be dense or hybrid, got '${mode}'.`);
	const tags = (flags['tag'] as string[] | undefined) ?? [];
	for (const tag of tags) if (!Tag.safeParse(tag).success) throw new UserError(`--tag '${tag}' is not a tag: use religion:*, ethnicity:*, lang:*, locality:*, identity:<id> or indigenous.`);
	let persona;
	const personaId = stringFlag(flags, 'persona');
	if (personaId) {
		persona = universe().personaById.get(personaId);
		if (!persona) throw new UserError(unknownMessage('persona', personaId, universe().personaById.keys(), 'List them with `npx cultureconverse personas`.'));
	}
	const filter: KbFilter = {
		region: stringFlag(flags, 'region') ? regionCode(stringFlag(flags, 'region')!) : undefined,
		domain: domainFlag(stringFlag(flags, 'domain')),
		category,
		tags: tags.length > 0 ? tags : undefined,
	};
	const kb = await openKb(context);
	const kinds = kind ? [kind] : KB_KINDS;
	const hits: EvidenceHit[] = [];
	for (const one of kinds) hits.push(...(await kb.search(query, {kind: one, topK: k, filter, persona, mode: mode as SearchMode | undefined})));
	// Within a kind, hybrid scores are rank fusions (each kind's best reads ~1.0 however weak it is),
	// so two kinds are merged on the scale they share: cosine similarity to the query.
	const key = (hit: EvidenceHit) => (kinds.length > 1 ? hit.similarity : hit.score);
	const merged = hits.sort((a, b) => key(b) - key(a)).slice(0, k).map((hit, index) => ({...hit, rank: index + 1}));
	if (flags['json']) {
		writeJson(io, merged);
		return ExitCode.ok;
	}
	write(io, hitsTable(merged));
	write(io, `${merged.length} hit(s) for "${truncate(query, 60)}" (embedder ${kb.embedderId}${kinds.length > 1 ? '; cultural and taboo merged by cosine similarity' : ''})`);
	return ExitCode.ok;
}

function hitsTable(hits: readonly EvidenceHit[]): string {
	if (hits.length === 0) return '(no hits)';
	return renderTable(hits, [
		{header: 'RANK', value: (hit) => hit.rank, align: 'right'},
		{header: 'SCORE', value: (hit) => hit.score.toFixed(3), align: 'right'},
		{header: 'COSINE', value: (hit) => hit.similarity.toFixed(3), align: 'right'},
		{header: 'KIND', value: (hit) => hit.kind},
		{header: 'ID', value: (hit) => hit.id},
		{header: 'REGION', value: (hit) => hit.regions.join(',')},
		{header: 'DOMAIN', value: (hit) => hit.domain},
		{header: 'TITLE / ACTION', value: (hit) => hit.title, max: 56},
		{header: 'SOURCE', value: (hit) => hit.source, max: 30},
	]);
}

async function runStats(context: CommandContext): Promise<number> {
	const {flags, io, universe} = context;
	const kb = await openKb(context);
	const stats = kb.stats();
	const index = kb.indexStatus();
	const paper = comparePaper(stats, universe().templates.length);
	if (flags['json']) {
		writeJson(io, {...stats, index, paper});
		return ExitCode.ok;
	}
	const statusOf = (kind: KbKind, region: RegionCode) => index.find((row) => row.kind === kind && row.region === region)!.status;
	write(io, renderTable(REGION_CODES as readonly RegionCode[], [
		{header: 'REGION', value: (region) => region},
		{header: 'CULTURAL', value: (region) => stats.cultural.byRegion[region], align: 'right'},
		{header: 'DOMAINS', value: (region) => DOMAIN_IDS.filter((domain) => stats.cultural.byRegionDomain[region][domain] > 0).length + '/7', align: 'right'},
		{header: 'TABOO', value: (region) => stats.taboo.byRegion[region], align: 'right'},
		{header: 'CATEGORIES', value: (region) => DOMAIN_IDS.filter((domain) => stats.taboo.byRegionCategory[region][domain] > 0).length + '/7', align: 'right'},
		{header: 'INDEX (cultural/taboo)', value: (region) => `${statusOf('cultural', region)}/${statusOf('taboo', region)}`},
	]));
	write(io, [
		`cultural: ${stats.cultural.total} passages; by domain: ${DOMAIN_IDS.map((domain) => `${domain} ${stats.cultural.byDomain[domain]}`).join(', ')}`,
		`taboo:    ${stats.taboo.total} entries (${stats.taboo.identitySpecific} identity-specific); by category: ${DOMAIN_IDS.map((domain) => `${domain} ${stats.taboo.byCategory[domain]}`).join(', ')}`,
		`          by severity: ${Object.entries(stats.taboo.bySeverity).map(([severity, n]) => `${severity} ${n}`).join(', ')}`,
		`named sources: ${stats.cultural.namedSource} of ${stats.cultural.total} passages and ${stats.taboo.namedSource} of ${stats.taboo.total} taboo entries name a public source (the rest say 'curated')`,
		...paperLines(paper),
		`embedder: ${stats.embedder.id}${stats.embedder.fallback ? ` (fallback: '${stats.embedder.requested}' could not be loaded)` : ''}`,
		`sources:  ${stats.sources.files} files under ${stats.sources.shipped} and ${stats.sources.user}`,
		`indexes:  ${stats.indexDir}`,
	].join('\n'));
	return ExitCode.ok;
}

/** The shipped (plus imported) sizes next to the paper's, and how to reach the paper's scale. */
export function paperLines(comparison: PaperComparison): string[] {
	const {paper, ours, share} = comparison;
	const percent = (x: number) => `${(x * 100).toFixed(x < 0.1 ? 1 : 0)}%`;
	const n = (x: number) => x.toLocaleString('en-US');
	return [
		`paper:    ${n(paper.wikipediaPassages)} Wikipedia passages; ${n(paper.taboo)} taboo entries (${paper.tabooFromNormad} from NormAd); ${paper.templates} templates (CultureConverse, section 3.5)`,
		`this KB:  ${n(ours.culturalPassages)} cultural passages (${percent(share.cultural)} of the paper's; ${n(ours.wikipediaPassages)} imported from Wikipedia); ${n(ours.taboo)} taboo entries (${percent(share.taboo)}; ${ours.tabooFromNormad} from NormAd); ${ours.templates} templates`,
		`          to reach the paper's scale: npx cultureconverse kb import FILE --format wikipedia (JSONL of {title, text, url, categories}); NormAd-Eti: --format normad`,
	];
}

async function runEvidence(context: CommandContext): Promise<number> {
	const {args, flags, io, universe} = context;
	const id = args[1];
	if (!id) throw new UserError('Usage: npx cultureconverse kb evidence <persona-id>:<template-id> [--json] (list seeds with `npx cultureconverse seeds`)');
	const seed = seedFromFlags({universe: universe()}, {...flags, seed: id});
	const ranking = stringFlag(flags, 'ranking');
	if (ranking !== undefined && !RETRIEVAL_RANKINGS.includes(ranking as RetrievalRanking)) throw new UserError(unknownMessage('ranking', ranking, RETRIEVAL_RANKINGS, `Use ${RETRIEVAL_RANKINGS.join(' or ')}.`));
	const kb = await openKb(context);
	const k = flags['k'] === undefined ? undefined : {cultural: positiveInt(flags['k'], 6, '--k')};
	const evidence = await retrieveEvidence({universe: universe(), seed, kb, k, ranking: ranking as RetrievalRanking | undefined});
	if (flags['json']) {
		writeJson(io, evidence);
		return ExitCode.ok;
	}
	write(io, [
		`Seed       ${seed.id} (${seed.tier}, ${seed.split})`,
		`Embedder   ${evidence.embedder}`,
		`Secondary  ${evidence.secondaryRegion ?? '(none: not a contextual seed)'}`,
		`K_W query  ${evidence.queries.cultural}`,
		`K_T query  ${evidence.queries.taboo ?? '(none: taboo evidence is retrieved for normative seeds only)'}`,
		'',
		'K_W (cultural)',
		hitsTable(evidence.cultural),
		'',
		'K_T (taboo)',
		evidence.taboo.length > 0 ? hitsTable(evidence.taboo) : '(none)',
	].join('\n'));
	return ExitCode.ok;
}

function stringFlag(flags: Flags, name: string): string | undefined {
	const value = flags[name];
	return typeof value === 'string' && value.trim() !== '' ? value.trim() : undefined;
}

function kindFlag(flags: Flags): KbKind | undefined {
	const kind = stringFlag(flags, 'kind');
	if (kind === undefined) return undefined;
	if (!(KB_KINDS as readonly string[]).includes(kind)) throw new UserError(unknownMessage('kind', kind, KB_KINDS));
	return kind as KbKind;
}


function domainFlag(value: string | undefined, what = 'domain'): DomainId | undefined {
	if (value === undefined) return undefined;
	if (!(DOMAIN_IDS as readonly string[]).includes(value)) throw new UserError(unknownMessage(what, value, DOMAIN_IDS));
	return value as DomainId;
}

function positiveInt(value: unknown, fallback: number, name: string): number {
	if (value === undefined) return fallback;
	const n = Number(value);
	if (!Number.isInteger(n) || n < 1 || n > 1000) throw new UserError(`${name} must be a whole number from 1 to 1000, got '${String(value)}'.`);
	return n;
}
