import {type Seed, type Split, Tier} from '../domain/seed.js';
import type {ResolvedTemplate} from '../domain/template.js';
import type {Persona} from '../domain/universe.js';
import {UserError} from '../util/errors.js';
import {unitHash} from '../util/hash.js';
import {unknownMessage} from '../util/suggest.js';
import type {Universe} from './load.js';

/** Share of seeds in the test split (the paper's 7,305 of 146,160). */
export const TEST_SHARE = 0.05;

/**
 * Tier from a stable hash of the seed id alone: 50 / 25 / 25 for standard / contextual / normative.
 * Because it depends on nothing but the id, adding templates or personas never reshuffles a seed.
 */
export function tierOf(seedId: string): Tier {
	const u = unitHash(`${seedId}#tier`);
	if (u < 0.5) return 'standard';
	return u < 0.75 ? 'contextual' : 'normative';
}

/** A `--tier` flag value: undefined when absent, a UserError naming the choices when unknown. */
export function tierFlag(value: unknown): Tier | undefined {
	if (value === undefined) return undefined;
	const tier = Tier.safeParse(value);
	if (!tier.success) throw new UserError(`Unknown tier '${String(value)}'. Use one of: ${Tier.options.join(', ')}.`);
	return tier.data;
}

/** Split from an independent stable hash of the seed id. */
export function splitOf(seedId: string): Split {
	return unitHash(`${seedId}#split`) < TEST_SHARE ? 'test' : 'train';
}

export function seedId(personaId: string, templateId: string): string {
	return `${personaId}:${templateId}`;
}

export function makeSeed(persona: Pick<Persona, 'id'>, template: Pick<ResolvedTemplate, 'id'>): Seed {
	const id = seedId(persona.id, template.id);
	return {id, personaId: persona.id, templateId: template.id, tier: tierOf(id), split: splitOf(id)};
}

export type SeedFilter = {
	region?: string;
	identity?: string;
	domain?: string;
	subdomain?: string;
	tier?: Tier;
	split?: Split;
	personaId?: string;
	templateId?: string;
};

/**
 * The seed space: personas x templates, addressed lazily. Nothing here materialises the 146k-seed
 * cross product; listing walks the filtered factors and hashes as it goes.
 */
export class SeedSpace {
	constructor(private readonly universe: Universe) {}

	/** Number of seeds before tier/split filters: personas x templates. */
	get size(): number {
		return this.universe.personas.length * this.universe.templates.length;
	}

	/**
	 * Seed ids of the selection, without building seeds (a tier or split filter hashes each id; no
	 * other work is done), for sampling from the whole space quickly.
	 */
	*ids(filter: SeedFilter = {}): Generator<string> {
		const personas = this.personas(filter);
		const templates = this.templates(filter);
		for (const persona of personas) {
			for (const template of templates) {
				const id = seedId(persona.id, template.id);
				if (filter.tier && tierOf(id) !== filter.tier) continue;
				if (filter.split && splitOf(id) !== filter.split) continue;
				yield id;
			}
		}
	}

	*iterate(filter: SeedFilter = {}): Generator<Seed> {
		const personas = this.personas(filter);
		const templates = this.templates(filter);
		for (const persona of personas) {
			for (const template of templates) {
				const seed = makeSeed(persona, template);
				if (filter.tier && seed.tier !== filter.tier) continue;
				if (filter.split && seed.split !== filter.split) continue;
				yield seed;
			}
		}
	}

	list(filter: SeedFilter = {}, page: {offset?: number; limit?: number} = {}): Seed[] {
		const offset = page.offset ?? 0;
		const limit = page.limit ?? Number.POSITIVE_INFINITY;
		const out: Seed[] = [];
		let index = 0;
		for (const seed of this.iterate(filter)) {
			if (index++ < offset) continue;
			if (out.length >= limit) break;
			out.push(seed);
		}
		return out;
	}

	count(filter: SeedFilter = {}): number {
		if (!filter.tier && !filter.split) return this.personas(filter).length * this.templates(filter).length;
		let n = 0;
		for (const _ of this.iterate(filter)) n++;
		return n;
	}

	/** Resolves a seed id; unknown or malformed ids raise a UserError with near matches. */
	get(id: string): Seed {
		const colon = id.indexOf(':');
		// Quoted cut: an id may come from a file line of any length.
		if (colon < 0) throw new UserError(`Malformed seed id '${id.length > 120 ? `${id.slice(0, 120)}…` : id}': expected '<persona id>:<template id>', e.g. '${this.example()}'.`);
		const persona = this.persona(id.slice(0, colon));
		const template = this.template(id.slice(colon + 1));
		return makeSeed(persona, template);
	}

	persona(id: string): Persona {
		const persona = this.universe.personaById.get(id);
		if (!persona) throw new UserError(unknownMessage('persona', id, this.universe.personaById.keys(), 'List them with `npx cultureconverse personas`.'));
		return persona;
	}

	template(id: string): ResolvedTemplate {
		const template = this.universe.templateById.get(id);
		if (!template) throw new UserError(unknownMessage('template', id, this.universe.templateById.keys(), 'List them with `npx cultureconverse templates`.'));
		return template;
	}

	private example(): string {
		const persona = this.universe.personas[0];
		const template = this.universe.templates[0];
		return persona && template ? seedId(persona.id, template.id) : 'my-malay-muslim-a18-f:culinary.dietary-rules.01';
	}

	private personas(filter: SeedFilter): readonly Persona[] {
		return filterPersonas(this.universe, {region: filter.region, identity: filter.identity, id: filter.personaId});
	}

	private templates(filter: SeedFilter): readonly ResolvedTemplate[] {
		return filterTemplates(this.universe, {domain: filter.domain, subdomain: filter.subdomain, id: filter.templateId});
	}
}

export type PersonaFilter = {region?: string; identity?: string; age?: string; gender?: string; language?: string; id?: string};

/** Personas matching every given filter; unknown filter values are errors with near matches, never empty lists. */
export function filterPersonas(universe: Universe, filter: PersonaFilter): Persona[] {
	const region = filter.region?.toUpperCase();
	if (region && !universe.regions.has(region as never)) throw new UserError(unknownMessage('region', filter.region!, universe.regions.keys()));
	let identityIds: Set<string> | undefined;
	if (filter.identity) {
		const needle = filter.identity.toLowerCase();
		const matches = universe.identities.filter((identity) => identity.id === needle || identity.label.toLowerCase() === needle || identity.id.includes(needle) || identity.label.toLowerCase().includes(needle));
		if (matches.length === 0) throw new UserError(unknownMessage('identity', filter.identity, [...universe.identities.map((identity) => identity.id)]));
		identityIds = new Set(matches.map((identity) => identity.id));
	}
	if (filter.age && !['18-34', '35-54', '55+'].includes(filter.age)) throw new UserError(`Unknown age cohort '${filter.age}'. Use one of: 18-34, 35-54, 55+.`);
	const gender = filter.gender ? normaliseGender(filter.gender) : undefined;
	if (filter.id && !universe.personaById.has(filter.id)) throw new UserError(unknownMessage('persona', filter.id, universe.personaById.keys()));
	return universe.personas.filter(
		(persona) =>
			(!region || persona.region === region) &&
			(!identityIds || identityIds.has(persona.identityId)) &&
			(!filter.age || persona.age === filter.age) &&
			(!gender || persona.gender === gender) &&
			(!filter.language || persona.language === filter.language.toLowerCase()) &&
			(!filter.id || persona.id === filter.id),
	);
}

function normaliseGender(value: string): 'female' | 'male' {
	const lower = value.toLowerCase();
	if (lower === 'f' || lower === 'female') return 'female';
	if (lower === 'm' || lower === 'male') return 'male';
	throw new UserError(`Unknown gender '${value}'. Use female or male.`);
}

export type TemplateFilter = {domain?: string; subdomain?: string; id?: string};

export function filterTemplates(universe: Universe, filter: TemplateFilter): ResolvedTemplate[] {
	if (filter.domain && !universe.domains.some((domain) => domain.id === filter.domain)) throw new UserError(unknownMessage('domain', filter.domain, universe.domains.map((domain) => domain.id)));
	if (filter.subdomain && !universe.subdomainById.has(filter.subdomain)) {
		// Accept the short name after the dot ("dietary-rules") when it is unambiguous.
		const short = [...universe.subdomainById.keys()].filter((id) => id.endsWith(`.${filter.subdomain}`));
		if (short.length === 1) filter = {...filter, subdomain: short[0]};
		else throw new UserError(unknownMessage('subdomain', filter.subdomain, universe.subdomainById.keys()));
	}
	if (filter.id && !universe.templateById.has(filter.id)) throw new UserError(unknownMessage('template', filter.id, universe.templateById.keys()));
	return universe.templates.filter(
		(template) =>
			(!filter.domain || template.domain === filter.domain) &&
			(!filter.subdomain || template.subdomain === filter.subdomain) &&
			(!filter.id || template.id === filter.id),
	);
}
