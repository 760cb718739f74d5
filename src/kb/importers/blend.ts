import {existsSync, readFileSync} from 'node:fs';
import path from 'node:path';
import {z} from 'zod';
import type {DomainId, RegionCode} from '../../domain/universe.js';
import {UserError, zodProblems} from '../../util/errors.js';
import {parseCsv} from './csv.js';
import type {Conversion, Converted, Skip} from './types.js';

/**
 * BLEnD (Myung, Lee et al., NeurIPS 2024 Datasets & Benchmarks; CC BY-SA 4.0): 500 everyday-life
 * questions per region, each answered by native annotators with vote counts. One annotations file
 * (`<Region>_data.json`) becomes cultural passages that say what most annotators answered.
 */
const Annotation = z.object({answers: z.array(z.string()), en_answers: z.array(z.string()), count: z.number().int().nonnegative()});
const Item = z.object({
	question: z.string(),
	en_question: z.string().min(1),
	annotations: z.array(Annotation),
	idks: z.record(z.string(), z.number()).optional(),
});

/** The BLEnD regions that are ours; West Java is Indonesia, told apart by Sundanese tags. */
const REGIONS: Readonly<Record<string, {region: RegionCode; name: string; tags: readonly string[]}>> = {
	China: {region: 'CN', name: 'China', tags: []},
	South_Korea: {region: 'KR', name: 'South Korea', tags: []},
	Indonesia: {region: 'ID', name: 'Indonesia', tags: []},
	West_Java: {region: 'ID', name: 'West Java (Sundanese)', tags: ['ethnicity:sundanese', 'locality:west-java']},
};

/** BLEnD's six topics; holidays and leisure share one, split by what the question is about. */
function domainOf(topic: string | undefined, question: string): DomainId | null {
	switch (topic) {
		case 'Food':
			return 'culinary';
		case 'Holidays/Celebration/Leisure':
			return /holiday|festival|celebrat|new year|ceremon|wedding|funeral|religio|worship|ancest|lunar|ramadan|eid|chuseok|seollal/i.test(question) ? 'ritual' : 'lifestyle';
		case 'Sport':
			return 'lifestyle';
		case 'Education':
			return 'domestic';
		case 'Work life':
			return 'economic';
		case 'Family':
			return 'interpersonal';
		default:
			return null;
	}
}

export type BlendOptions = {
	/** Override the region read from the file name (`South_Korea_data.json` -> KR). */
	regions?: readonly RegionCode[];
	/** Questions CSV with the Topic column; default: the dataset's own `../questions/<Region>_questions.csv`. */
	questionsFile?: string;
	/** Fewest votes the top answer needs before it counts as shared knowledge. @default 2 */
	minVotes?: number;
};

export function convertBlend(text: string, file: string, options: BlendOptions = {}): Conversion {
	const regionKey = /([A-Za-z_]+)_data\.json$/.exec(path.basename(file))?.[1];
	const known = regionKey ? REGIONS[regionKey] : undefined;
	if (!known && !options.regions?.length) {
		throw new UserError(`${file}: cannot tell the region from the file name${regionKey ? ` ('${regionKey}' is not one of ours)` : ''}. BLEnD files we import are ${Object.keys(REGIONS).map((key) => `${key}_data.json`).join(', ')}; or pass --region.`);
	}
	const regions = options.regions?.length ? [...options.regions] : [known!.region];
	const regionName = known?.name ?? regions.join('/');
	const tags = known?.tags ?? [];
	const minVotes = options.minVotes ?? 2;

	let data: Record<string, unknown>;
	try {
		data = JSON.parse(text) as Record<string, unknown>;
	} catch (error) {
		throw new UserError(`${file}: not valid JSON (${(error as Error).message}); a BLEnD annotations file is one JSON object keyed by question id.`);
	}
	if (!data || typeof data !== 'object' || Array.isArray(data)) throw new UserError(`${file}: expected one JSON object keyed by question id (BLEnD's <Region>_data.json).`);

	const notes: string[] = [];
	const topics = readTopics(file, regionKey, options.questionsFile, notes);
	const lineOf = lineFinder(text);
	const converted: Converted[] = [];
	const skips: Skip[] = [];
	let rows = 0;
	for (const [id, raw] of Object.entries(data)) {
		rows++;
		const line = lineOf(id);
		const skip = (kind: Skip['kind'], code: string, reason: string) => skips.push({file, line, kind, code, reason: `${id}: ${reason}`});
		const parsed = Item.safeParse(raw);
		if (!parsed.success) {
			skip('invalid', 'schema', zodProblems(parsed.error).join('; '));
			continue;
		}
		const item = parsed.data;
		const groups = item.annotations.filter((group) => group.en_answers.length > 0 && group.count > 0).sort((a, b) => b.count - a.count);
		const votes = groups.reduce((sum, group) => sum + group.count, 0);
		if (groups.length === 0) {
			skip('filtered', 'no-answer', 'no annotator gave an answer');
			continue;
		}
		if (groups[0]!.count < minVotes) {
			skip('filtered', 'no-consensus', `no answer was given by ${minVotes} or more annotators`);
			continue;
		}
		const topic = topics?.get(id);
		const domain = domainOf(topic ?? guessTopic(item.en_question), item.en_question);
		if (!domain) {
			skip('invalid', 'topic', `unknown topic '${topic}'`);
			continue;
		}
		const top = groups.slice(0, 4);
		const answers = top.map((group) => `${group.en_answers.slice(0, 2).join(' / ')} (${group.count} of ${votes})`).join('; ');
		const local = groups[0]!.answers[0];
		const unsure = Object.values(item.idks ?? {}).reduce((sum, count) => sum + count, 0);
		converted.push({
			line,
			entry: {
				id: `blend-${regions[0]!.toLowerCase()}-${(regionKey ?? 'x').toLowerCase().replace(/_/g, '-')}-${id.toLowerCase().replace(/[^a-z0-9]+/g, '-')}`,
				regions,
				tags: [...tags],
				domain,
				title: item.en_question.trim(),
				text: `Asked "${item.en_question.trim()}", native annotators from ${regionName} answered most often: ${answers}.${local && local !== groups[0]!.en_answers[0] ? ` In the local language the top answer is "${local}".` : ''}${unsure > 0 ? ` ${unsure} annotator(s) did not know or found it not applicable.` : ''} These are everyday majority views, not rules, and they vary by person and place.`,
				source: 'BLEnD everyday-knowledge annotations (Myung, Lee et al., NeurIPS 2024)',
				provenance: {dataset: 'BLEnD', file: path.basename(file), line, ref: id, license: 'CC BY-SA 4.0'},
			},
		});
	}
	if (topics === null) notes.push('Domains were guessed from question words (no questions CSV with the Topic column was found); pass --questions FILE for the dataset\'s own topics.');
	notes.push('BLEnD is CC BY-SA 4.0: passages derived from it keep that licence (see each entry\'s provenance) if you share them.');
	return {rows, converted, skips, notes};
}

/** Topic per question id from `<Region>_questions.csv`, or null when there is none to read. */
function readTopics(file: string, regionKey: string | undefined, explicit: string | undefined, notes: string[]): Map<string, string> | null {
	const candidate = explicit ?? (regionKey ? path.join(path.dirname(file), '..', 'questions', `${regionKey}_questions.csv`) : undefined);
	if (!candidate || !existsSync(candidate)) {
		if (explicit) throw new UserError(`File not found: ${explicit}`);
		return null;
	}
	const records = parseCsv(readFileSync(candidate, 'utf8'));
	const header = records[0]?.fields ?? [];
	const idAt = header.indexOf('ID');
	const topicAt = header.indexOf('Topic');
	if (idAt < 0 || topicAt < 0) throw new UserError(`${candidate}: expected BLEnD's questions CSV with ID and Topic columns, found ${header.join(', ') || 'no header'}.`);
	const topics = new Map<string, string>();
	for (const record of records.slice(1)) {
		const id = record.fields[idAt];
		if (id) topics.set(id, record.fields[topicAt] ?? '');
	}
	notes.push(`Topics from ${candidate} (${topics.size} questions).`);
	return topics;
}

function guessTopic(question: string): string {
	if (/food|dish|eat|drink|snack|cook|meal|fruit|breakfast|lunch|dinner|restaurant/i.test(question)) return 'Food';
	if (/sport|team|athlete|exercise|game|match/i.test(question)) return 'Sport';
	if (/school|student|university|exam|teacher|class/i.test(question)) return 'Education';
	if (/work|job|office|company|salary|employ|retire/i.test(question)) return 'Work life';
	if (/family|parent|child|grand|sibling|marri|wife|husband/i.test(question)) return 'Family';
	return 'Holidays/Celebration/Leisure';
}

/** 1-based line of a question id's key in the file (the files are pretty-printed, one key a line). */
function lineFinder(text: string): (id: string) => number {
	const lines = new Map<string, number>();
	let line = 1;
	const keyRe = /^\s*"([^"\\]+)"\s*:\s*\{/;
	for (const raw of text.split('\n')) {
		const match = keyRe.exec(raw);
		if (match && !lines.has(match[1]!)) lines.set(match[1]!, line);
		line++;
	}
	return (id) => lines.get(id) ?? 1;
}
