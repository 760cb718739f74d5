import {readFileSync} from 'node:fs';
import path from 'node:path';
import type {TabooEntry} from '../domain/kb.js';
import {Norm, type NormCategory} from '../domain/situated.js';
import type {DomainId, RegionCode} from '../domain/universe.js';
import {DataError, UserError, zodProblems} from '../util/errors.js';
import type {Universe} from '../universe/load.js';
import {cultureKey} from './cultures.js';
import {upgradeNorm} from './legacy.js';

/*
 * Where norms come from. The taboo KB holds normalised constraints for the ten regions, so each entry
 * is a proscriptive norm (the default source). A norms file adds any culture: JSONL of Norm objects,
 * written by hand or by `crisp norms extract` from FORK, NormAd or CulturalBench.
 */

const lowerFirst = (text: string) => (/^[A-Z][a-z]/.test(text) ? text[0]!.toLowerCase() + text.slice(1) : text);

/** The taboo KB's domains as norm categories (the nearest of the paper's; economic and health have none). */
const CATEGORY_OF_DOMAIN: Readonly<Record<DomainId, NormCategory>> = {
	culinary: 'dining_etiquette',
	ritual: 'religion',
	interpersonal: 'communication',
	domestic: 'family',
	lifestyle: 'public_behavior',
	economic: 'other',
	health: 'other',
};

/** A taboo entry read as a norm: avoid the action, for the stated reason. */
export function normFromTaboo(entry: TabooEntry, regionName: string): Norm {
	return {
		id: `norm.${entry.id}`,
		culture: regionName,
		country: entry.region,
		region: entry.region,
		identities: [...entry.identities],
		text: `Avoid ${lowerFirst(entry.action.replace(/\.$/, ''))}. ${entry.explanation}`,
		type: 'proscriptive',
		category: CATEGORY_OF_DOMAIN[entry.category] ?? 'other',
		source: entry.id,
	};
}

/**
 * Reads a norms file: JSONL of Norm objects (`npx cultureconverse schema norm`). Files of an earlier
 * version (a region code and no culture) are read with the region's name as the culture. A data set
 * file given here (FORK's CSV, say) is refused with the command that turns it into norms.
 */
export function readNormFile(file: string, regionName: (code: RegionCode) => string): Norm[] {
	let text: string;
	try {
		text = readFileSync(file, 'utf8');
	} catch (error) {
		throw new UserError(`Cannot read the norms file ${file}: ${(error as NodeJS.ErrnoException).code ?? (error as Error).message}.`);
	}
	const shown = path.basename(file);
	const extract = `turn it into norms first: npx cultureconverse crisp norms extract --from ${shown} --format fork|normad|culturalbench`;
	if (file.endsWith('.csv')) throw new UserError(`${shown} is a CSV file; --norms takes JSONL of norm objects (npx cultureconverse schema norm): ${extract}.`);
	const problems: string[] = [];
	const norms: Norm[] = [];
	text.split('\n').forEach((line, index) => {
		if (line.trim() === '') return;
		let raw: unknown;
		try {
			raw = JSON.parse(line);
		} catch {
			problems.push(`line ${index + 1}: not valid JSON`);
			return;
		}
		if (raw && typeof raw === 'object' && ('Answer Key' in raw || 'prompt_question' in raw || 'Rule-of-Thumb' in raw)) {
			problems.push(`line ${index + 1}: a data set row, not a norm (${extract})`);
			return;
		}
		const parsed = Norm.safeParse(upgradeNorm(raw, regionName));
		if (parsed.success) norms.push(parsed.data);
		else problems.push(...zodProblems(parsed.error, `line ${index + 1}: `));
	});
	if (problems.length > 0) throw new DataError(shown, problems.slice(0, 20));
	return norms;
}

/** The same norm text for the same culture once (sources overlap, as the paper found), and each id once. */
export function dedupe(norms: readonly Norm[]): Norm[] {
	const seen = new Set<string>();
	const ids = new Set<string>();
	return norms.filter((norm) => {
		const key = `${cultureKey(norm)}\0${norm.text.toLowerCase().replace(/\s+/g, ' ')}`;
		if (seen.has(key) || ids.has(norm.id)) return false;
		seen.add(key);
		ids.add(norm.id);
		return true;
	});
}

/**
 * The culture every agent and the policy are told: the culture, and the communities a norm of one of
 * the ten regions is specific to ("Malaysia (Tamil Hindu)"), since a norm of one community cannot be
 * inferred from the country.
 */
export function cultureLine(universe: Universe, norm: Norm): string {
	if (!norm.region) return norm.culture;
	const region = universe.regions.get(norm.region)?.name ?? norm.culture;
	const groups = norm.identities.map((id) => universe.identityById.get(id)?.label).filter((label): label is string => Boolean(label));
	return groups.length > 0 ? `${region} (${groups.join(', ')})` : region;
}

/** Identity ids a norm names must exist and live in the norm's region (the culture line is built from them). */
export function normIdentityProblems(norms: readonly Norm[], universe: Universe): string[] {
	const problems: string[] = [];
	for (const norm of norms) {
		for (const id of norm.identities) {
			const identity = universe.identityById.get(id);
			if (!norm.region) problems.push(`${norm.id}: identity '${id}' needs the norm to be of one of the ten regions (region is null)`);
			else if (!identity) problems.push(`${norm.id}: unknown identity '${id}' (see \`npx cultureconverse personas --region ${norm.region}\`)`);
			else if (identity.region !== norm.region) problems.push(`${norm.id}: identity '${id}' belongs to ${identity.region}, not ${norm.region}`);
		}
		if (norm.region && norm.country !== norm.region) problems.push(`${norm.id}: region ${norm.region} is the country ${norm.region}, but country is ${norm.country ?? 'null'}`);
	}
	return problems;
}
