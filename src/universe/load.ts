import path from 'node:path';
import {
	type AgeCohort,
	type Domain,
	DomainsFile,
	type Gender,
	IdentitiesFile,
	type Identity,
	type Language,
	type LanguageId,
	type Persona,
	type Region,
	type RegionCode,
	RegionsFile,
	type Subdomain,
} from '../domain/universe.js';
import {type ResolvedTemplate, TemplatesFile, UserTemplatesFile} from '../domain/template.js';
import {DataError} from '../util/errors.js';
import {packageRoot} from '../util/paths.js';
import {findCultureWord} from './cultureWords.js';
import {listDataFiles, readJsonFile} from './readData.js';
import {slotProblems} from './templates.js';

export type SubdomainInfo = Subdomain & {domain: Domain['id']};

/** Everything seeds are made of, loaded once from kb/ and validated across files. */
export type Universe = {
	readonly root: string;
	readonly languages: ReadonlyMap<LanguageId, Language>;
	readonly regions: ReadonlyMap<RegionCode, Region>;
	readonly identities: readonly Identity[];
	readonly identityById: ReadonlyMap<string, Identity>;
	readonly personas: readonly Persona[];
	readonly personaById: ReadonlyMap<string, Persona>;
	readonly domains: readonly Domain[];
	readonly subdomainById: ReadonlyMap<string, SubdomainInfo>;
	readonly dimensions: ReadonlySet<string>;
	readonly templates: readonly ResolvedTemplate[];
	readonly templateById: ReadonlyMap<string, ResolvedTemplate>;
};

export type LoadUniverseOptions = {
	/** Folder holding `universe/` and `templates/`. @default the shipped kb/ folder */
	kbDir?: string;
	/** Extra template folder (generated or user-written templates), validated like shipped ones. */
	userTemplatesDir?: string;
};

const AGE_CODE: Record<AgeCohort, string> = {'18-34': 'a18', '35-54': 'a35', '55+': 'a55'};
const GENDER_CODE: Record<Gender, string> = {female: 'f', male: 'm'};

export function personaId(identityId: string, age: AgeCohort, gender: Gender): string {
	return `${identityId}-${AGE_CODE[age]}-${GENDER_CODE[gender]}`;
}

export function loadUniverse(options: LoadUniverseOptions = {}): Universe {
	const root = packageRoot();
	const kbDir = options.kbDir ?? path.join(root, 'kb');
	const shown = path.dirname(kbDir);
	const rel = (...parts: string[]) => path.relative(shown, path.join(kbDir, ...parts));
	const regionsFile = readJsonFile(path.join(kbDir, 'universe', 'regions.json'), RegionsFile, shown);
	const identitiesFile = readJsonFile(path.join(kbDir, 'universe', 'identities.json'), IdentitiesFile, shown);
	const domainsFile = readJsonFile(path.join(kbDir, 'universe', 'domains.json'), DomainsFile, shown);

	const languages = uniqueMap<LanguageId, Language>(regionsFile.languages, rel('universe', 'regions.json'), 'languages');
	const regions = uniqueMap<RegionCode, Region>(regionsFile.regions, rel('universe', 'regions.json'), 'regions');
	const identityById = uniqueMap<string, Identity>(identitiesFile.identities, rel('universe', 'identities.json'), 'identities');

	const identityProblems: string[] = [];
	identitiesFile.identities.forEach((identity, index) => {
		if (!identity.id.startsWith(`${identity.region.toLowerCase()}-`)) identityProblems.push(`identities[${index}].id: '${identity.id}' must start with its region code '${identity.region.toLowerCase()}-'`);
		if (!identity.tags.includes(`lang:${identity.language}`)) identityProblems.push(`identities[${index}].tags: must include 'lang:${identity.language}'`);
	});
	if (identityProblems.length > 0) throw new DataError(rel('universe', 'identities.json'), identityProblems);

	const personas: Persona[] = [];
	for (const identity of identitiesFile.identities) {
		const language = languages.get(identity.language)!;
		for (const age of identitiesFile.ages) {
			for (const gender of identitiesFile.genders) {
				personas.push({
					id: personaId(identity.id, age, gender),
					region: identity.region,
					regionName: regions.get(identity.region)?.name ?? identity.region,
					identityId: identity.id,
					identity: identity.label,
					language: identity.language,
					languageName: language.name,
					age,
					gender,
					tags: [`identity:${identity.id}`, ...identity.tags],
				});
			}
		}
	}
	const personaById = new Map(personas.map((persona) => [persona.id, persona]));

	const subdomainById = new Map<string, SubdomainInfo>();
	const domainProblems: string[] = [];
	domainsFile.domains.forEach((domain, di) => {
		domain.subdomains.forEach((subdomain, si) => {
			if (!subdomain.id.startsWith(`${domain.id}.`)) domainProblems.push(`domains[${di}].subdomains[${si}].id: '${subdomain.id}' must start with '${domain.id}.'`);
			if (subdomainById.has(subdomain.id)) domainProblems.push(`domains[${di}].subdomains[${si}].id: duplicate id '${subdomain.id}'`);
			subdomainById.set(subdomain.id, {...subdomain, domain: domain.id});
		});
	});
	if (domainProblems.length > 0) throw new DataError(rel('universe', 'domains.json'), domainProblems);
	const dimensions = new Set(domainsFile.dimensions);

	const templates: ResolvedTemplate[] = [];
	const templateById = new Map<string, ResolvedTemplate>();
	const templateFiles = [
		...listDataFiles(path.join(kbDir, 'templates'), '.json').map((file) => ({file, shown: path.relative(shown, file), user: false})),
		...(options.userTemplatesDir ? listDataFiles(options.userTemplatesDir, '.json').map((file) => ({file, shown: file, user: true})) : []),
	];
	for (const {file, shown: name, user} of templateFiles) {
		const parsed = readJsonFile(file, user ? UserTemplatesFile : TemplatesFile, shown);
		const problems: string[] = [];
		parsed.templates.forEach((template, index) => {
			const where = `templates[${index}] (${template.id})`;
			const subdomain = subdomainById.get(template.subdomain);
			if (!subdomain) problems.push(`${where}.subdomain: unknown subdomain '${template.subdomain}'`);
			if (!template.id.startsWith(`${template.subdomain}.`)) problems.push(`${where}.id: must start with its subdomain '${template.subdomain}.'`);
			for (const problem of slotProblems(template)) problems.push(`${where}.slots: ${problem}`);
			for (const dimension of template.dimensions) if (!dimensions.has(dimension)) problems.push(`${where}.dimensions: unknown dimension '${dimension}'`);
			const word = findCultureWord(`${template.title}\n${template.sketch}\n${template.ask}`);
			if (word) problems.push(`${where}: culture-specific word '${word}' (templates must be culture-agnostic; use a slot)`);
			const existing = templateById.get(template.id);
			if (existing) problems.push(`${where}.id: duplicate id '${template.id}' (also in ${existing.source})`);
			if (problems.length === 0 && subdomain) {
				const resolved: ResolvedTemplate = {...template, domain: subdomain.domain, source: name};
				templates.push(resolved);
				templateById.set(template.id, resolved);
			}
		});
		if (problems.length > 0) throw new DataError(name, problems);
	}

	return {
		root,
		languages,
		regions,
		identities: identitiesFile.identities,
		identityById,
		personas,
		personaById,
		domains: domainsFile.domains,
		subdomainById,
		dimensions,
		templates,
		templateById,
	};
}

function uniqueMap<K extends string, T extends {id: K}>(items: readonly T[], file: string, field: string): Map<K, T> {
	const map = new Map<K, T>();
	const problems: string[] = [];
	items.forEach((item, index) => {
		if (map.has(item.id)) problems.push(`${field}[${index}].id: duplicate id '${item.id}'`);
		map.set(item.id, item);
	});
	if (problems.length > 0) throw new DataError(file, problems);
	return map;
}
