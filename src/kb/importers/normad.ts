import path from 'node:path';
import type {DomainId, RegionCode} from '../../domain/universe.js';
import {UserError} from '../../util/errors.js';
import {parseCsv} from './csv.js';
import type {Conversion, Converted, Skip} from './types.js';

/** NormAd-Eti's 10 columns (see ../shared/data/normad/SOURCE.md). */
export const NORMAD_COLUMNS = ['ID', 'Country', 'Background', 'Axis', 'Subaxis', 'Value', 'Rule-of-Thumb', 'Story', 'Explanation', 'Gold Label'] as const;
type Column = (typeof NORMAD_COLUMNS)[number];

/** NormAd country keys of our regions. Brunei is not in NormAd; hong_kong and taiwan are kept apart, as NormAd keeps them. */
export const NORMAD_COUNTRIES: Readonly<Record<string, RegionCode>> = {
	china: 'CN',
	indonesia: 'ID',
	japan: 'JP',
	south_korea: 'KR',
	malaysia: 'MY',
	philippines: 'PH',
	singapore: 'SG',
	thailand: 'TH',
	vietnam: 'VN',
};

/**
 * Does the rule of thumb itself name something to avoid? Prohibitions and judgements of rudeness
 * ("It is rude to ...", "Avoid ...", "should not ...") do; prescriptions ("It is respectful to ...") do not.
 */
export function statesAvoidance(rule: string): boolean {
	return /\b(avoid\w*|not|never|no|don't|doesn't|shouldn't|mustn't|can't|cannot|rude|impolite|disrespectful|offensive|offend\w*|inappropriate|taboo|frowned upon|unacceptable|bad luck|improper|forbidden|prohibited|refrain\w*|insult\w*)\b/i.test(rule);
}

const CATEGORY_KEYWORDS: ReadonlyArray<[DomainId, RegExp]> = [
	['ritual', /\b(funeral|mourning|wedding|temple|shrine|mosque|church|pray\w*|religio\w*|festival|monk\w*|altar|incense|ramadan|buddha\w*)\b/i],
	['economic', /\b(money|tip|tipping|pay\w*|bill|price|bargain\w*|business|workplace|colleague\w*|boss|salary)\b/i],
	['health', /\b(sick|ill|illness|hospital|medicine|health|pregnan\w*)\b/i],
	['lifestyle', /\b(cloth\w*|dress\w*|attire|outfit|shorts|hat|tattoo\w*|public transport|queue\w*)\b/i],
	['culinary', /\b(eat\w*|food|meal\w*|dish\w*|chopsticks|drink\w*|dining|dine|table|restaurant|cook\w*|alcohol|pork|rice)\b/i],
	['domestic', /\b(home|house|host\w*|shoes|footwear|household|neighbou?r\w*)\b/i],
];

const SUBAXIS_CATEGORY: ReadonlyArray<[RegExp, DomainId]> = [
	[/eat|dining|food|drink|table/, 'culinary'],
	[/gift/, 'interpersonal'],
	[/visit/, 'domestic'],
	[/tip|business|money/, 'economic'],
];

/**
 * One of the 7 domains for a NormAd norm: keywords of the rule itself first (most specific), then the
 * Cultural Atlas sub-heading (noisy: SOURCE.md saw France rows tagged Māori etiquette), else interpersonal,
 * where general etiquette belongs.
 */
export function normadCategory(rule: string, subaxis: string): DomainId {
	for (const [category, pattern] of CATEGORY_KEYWORDS) if (pattern.test(rule)) return category;
	for (const [pattern, category] of SUBAXIS_CATEGORY) if (pattern.test(subaxis.toLowerCase())) return category;
	return 'interpersonal';
}

function severityOf(text: string): 'medium' | 'high' {
	return /\b(offensive|offend\w*|deeply|serious\w*|taboo|insult\w*|grave|sacred|forbidden|prohibited)\b/i.test(text) ? 'high' : 'medium';
}

const sentence = (text: string) => {
	const trimmed = text.replace(/\s+/g, ' ').trim();
	return trimmed === '' || /[.!?]$/.test(trimmed) ? trimmed : `${trimmed}.`;
};

/**
 * Converts NormAd-Eti rows of our regions into taboo entries. Only rows that state a norm to avoid:
 * - Gold Label `no`: the story breaks the rule of thumb, so breaking it is the thing to avoid. A
 *   prohibitive rule is the action as written; a prescriptive one ("It is polite to X") becomes
 *   "Not following the expected practice: X". The explanation is why the story was unacceptable.
 * - Gold Label `yes`: the story conforms; kept only when the rule itself is a prohibition, with the
 *   abstract Value as the explanation (the row's Explanation is about the conforming story).
 * - Gold Label `neutral`: skipped. The rule does not apply to the story, so the row asserts nothing
 *   about it, and the authors are re-validating these items.
 * NormAd writes several stories per rule, so a rule seen once for a region is not imported again.
 */
export function convertNormad(text: string, file: string): Conversion {
	const records = parseCsv(text);
	const header = records.shift();
	if (!header) throw new UserError(`${file}: empty file; expected a NormAd CSV with the header ${NORMAD_COLUMNS.join(',')}`);
	const index = new Map(header.fields.map((name, i) => [name.trim(), i]));
	const missing = NORMAD_COLUMNS.filter((column) => !index.has(column));
	if (missing.length > 0) throw new UserError(`${file}:${header.line}: not a NormAd CSV: missing column(s) ${missing.join(', ')} (found: ${header.fields.join(', ')})`);
	const notes = header.fields.length > NORMAD_COLUMNS.length ? [`extra columns ignored: ${header.fields.filter((name) => !(NORMAD_COLUMNS as readonly string[]).includes(name.trim())).join(', ')}`] : [];
	const converted: Converted[] = [];
	const skips: Skip[] = [];
	const seenRules = new Map<string, number>();
	const seenIds = new Map<string, number>();
	const skip = (line: number, kind: Skip['kind'], code: string, reason: string) => skips.push({file, line, kind, code, reason});
	for (const record of records) {
		const {line} = record;
		if (record.error) {
			skip(line, 'invalid', 'malformed-csv', record.error);
			continue;
		}
		if (record.fields.length !== header.fields.length) {
			skip(line, 'invalid', 'field-count', `expected ${header.fields.length} fields, got ${record.fields.length}`);
			continue;
		}
		const get = (column: Column) => record.fields[index.get(column)!]!.trim();
		const id = get('ID');
		if (!/^\d+$/.test(id)) {
			skip(line, 'invalid', 'bad-id', `ID '${id}' is not a whole number`);
			continue;
		}
		const previousLine = seenIds.get(id);
		if (previousLine !== undefined) {
			skip(line, 'duplicate', 'duplicate-id', `ID ${id} already appears on line ${previousLine}`);
			continue;
		}
		seenIds.set(id, line);
		const country = get('Country').toLowerCase();
		const region = NORMAD_COUNTRIES[country];
		if (!region) {
			skip(line, 'filtered', 'other-country', `country '${country || '(empty)'}' is not one of the 10 regions`);
			continue;
		}
		const label = get('Gold Label').toLowerCase();
		if (label !== 'yes' && label !== 'no' && label !== 'neutral') {
			skip(line, 'invalid', 'bad-label', `Gold Label '${get('Gold Label')}' is not yes, no or neutral`);
			continue;
		}
		const rule = sentence(get('Rule-of-Thumb'));
		if (rule.length < 5) {
			skip(line, 'invalid', 'no-rule', 'Rule-of-Thumb is empty');
			continue;
		}
		if (label === 'neutral') {
			skip(line, 'filtered', 'neutral', 'neutral label: the rule of thumb does not apply to the story, so the row states no norm to avoid');
			continue;
		}
		const prohibitive = statesAvoidance(rule);
		if (label === 'yes' && !prohibitive) {
			skip(line, 'filtered', 'positive-norm', 'yes label with a prescriptive rule of thumb: it states what to do, not what to avoid');
			continue;
		}
		const ruleKey = `${region}\0${rule.toLowerCase().replace(/[^\p{L}\p{N}]+/gu, ' ').trim()}`;
		const ruleLine = seenRules.get(ruleKey);
		if (ruleLine !== undefined) {
			skip(line, 'duplicate', 'same-norm', `same rule of thumb as line ${ruleLine}`);
			continue;
		}
		seenRules.set(ruleKey, line);
		const value = sentence(get('Value'));
		const explanation = label === 'no' ? sentence([get('Explanation'), value ? `Underlying value: ${value}` : ''].filter(Boolean).join(' ')) : value || sentence(get('Explanation'));
		const subaxis = get('Subaxis');
		converted.push({
			line,
			entry: {
				id: `normad-${region.toLowerCase()}-${id}`,
				region,
				identities: [],
				category: normadCategory(rule, subaxis),
				action: prohibitive ? rule : `Not following the expected practice: ${rule}`,
				explanation,
				severity: severityOf(`${rule} ${explanation}`),
				source: 'NormAd-Eti (Cultural Atlas etiquette norms)',
				provenance: {dataset: 'NormAd-Eti', file: path.basename(file), line, ref: `ID ${id}; ${country}; ${subaxis || 'no subaxis'}; gold label ${label}`, license: 'CC BY 4.0'},
			},
		});
	}
	return {rows: records.length, converted, skips, notes};
}
