import type {ResolvedTemplate} from '../../domain/template.js';
import type {Persona} from '../../domain/universe.js';
import type {Universe} from '../../universe/load.js';
import {fuzzyFilter} from '../text/fuzzy.js';

/*
 * The pickers' lists as pure functions of the universe, the chosen filters and the typed query.
 */

export type PersonaFilters = {
	readonly region: string | null;
	readonly identity: string | null;
	readonly age: string | null;
	readonly gender: string | null;
};

export const NO_FILTERS: PersonaFilters = {region: null, identity: null, age: null, gender: null};
export const FILTER_FIELDS = ['region', 'identity', 'age', 'gender'] as const;
export type FilterField = (typeof FILTER_FIELDS)[number];

/** The values a filter can take (null = all), given the other filters (identities follow the region). */
export function filterOptions(universe: Universe, field: FilterField, filters: PersonaFilters): Array<string | null> {
	switch (field) {
		case 'region':
			return [null, ...universe.regions.keys()];
		case 'identity':
			return [null, ...universe.identities.filter((identity) => !filters.region || identity.region === filters.region).map((identity) => identity.id)];
		case 'age':
			return [null, '18-34', '35-54', '55+'];
		case 'gender':
			return [null, 'female', 'male'];
		default: {
			const never: never = field;
			return never;
		}
	}
}

/** The next (or previous) value of one filter; changing the region clears an identity of another region. */
export function cycleFilter(universe: Universe, filters: PersonaFilters, field: FilterField, delta: 1 | -1): PersonaFilters {
	const options = filterOptions(universe, field, filters);
	const index = options.indexOf(filters[field]);
	const value = options[(index + delta + options.length) % options.length] ?? null;
	const next = {...filters, [field]: value};
	if (field === 'region' && next.identity && !filterOptions(universe, 'identity', next).includes(next.identity)) return {...next, identity: null};
	return next;
}

export function personaText(persona: Persona): string {
	return `${persona.id} ${persona.identity} ${persona.regionName} ${persona.region} ${persona.age} ${persona.gender} ${persona.languageName}`;
}

export function visiblePersonas(universe: Universe, filters: PersonaFilters, query: string): Persona[] {
	const filtered = universe.personas.filter(
		(persona) =>
			(!filters.region || persona.region === filters.region) &&
			(!filters.identity || persona.identityId === filters.identity) &&
			(!filters.age || persona.age === filters.age) &&
			(!filters.gender || persona.gender === filters.gender),
	);
	return fuzzyFilter(filtered, query, personaText);
}

export function personaRow(persona: Persona): string {
	return `${persona.id.padEnd(34)} ${persona.identity} · ${persona.regionName} · ${persona.age} · ${persona.gender} · ${persona.languageName}`;
}

/** Domains, the subdomains of the chosen domain, and the templates of the chosen subdomain (or of a search). */
export type TemplateColumns = {
	readonly domains: ReadonlyArray<{readonly id: string; readonly name: string}>;
	readonly subdomains: ReadonlyArray<{readonly id: string; readonly name: string}>;
	readonly templates: readonly ResolvedTemplate[];
};

export function templateColumns(universe: Universe, domainIndex: number, subdomainIndex: number, query: string): TemplateColumns {
	const domains = universe.domains.map((domain) => ({id: domain.id, name: domain.name}));
	const domain = universe.domains[Math.min(domainIndex, universe.domains.length - 1)];
	const subdomains = (domain?.subdomains ?? []).map((subdomain) => ({id: subdomain.id, name: subdomain.name}));
	const subdomain = subdomains[Math.min(subdomainIndex, subdomains.length - 1)];
	const templates = query.trim()
		? fuzzyFilter(universe.templates, query, (template) => `${template.id} ${template.title} ${template.sketch}`)
		: universe.templates.filter((template) => template.subdomain === subdomain?.id);
	return {domains, subdomains, templates};
}
