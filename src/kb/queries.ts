import type {ResolvedTemplate} from '../domain/template.js';
import type {Persona} from '../domain/universe.js';
import type {Universe} from '../universe/load.js';

/**
 * Plain-language retrieval queries built from a template and a persona (no LLM call, as in the
 * paper's Appendix G.2.2).
 */
export type QueryContext = {
	identity: string;
	person: string;
	regionName: string;
	domainName: string;
	subdomainName: string;
	/** The subdomain's culture-agnostic description (kb/universe/domains.json). */
	subdomainDescription: string;
	title: string;
	/** Slot meanings, joined: what the blueprint must fill in with local detail. */
	details: string;
	/** The sketch with each {{SLOT}} replaced by what it stands for, then the ask. */
	situation: string;
};

export function queryContext(universe: Universe, persona: Persona, template: ResolvedTemplate): QueryContext {
	const subdomain = universe.subdomainById.get(template.subdomain);
	const domain = universe.domains.find((candidate) => candidate.id === template.domain);
	return {
		identity: persona.identity,
		person: `${persona.identity} ${persona.gender === 'female' ? 'woman' : 'man'} aged ${persona.age}`,
		regionName: persona.regionName,
		domainName: domain?.name ?? template.domain,
		subdomainName: subdomain?.name ?? template.subdomain,
		subdomainDescription: subdomain?.description ?? '',
		title: template.title,
		// Slot meanings name what the blueprint must fill in with local detail: the best retrieval cues.
		details: template.slots.map((slot) => slot.meaning).join('; '),
		situation: `${filledSketch(template)} ${template.ask}`,
	};
}

/**
 * The sketch with its slots filled by their meanings ("hosting {{GUESTS}}" -> "hosting the guests
 * expected"): the situation in words, without the persona's culture, which the blueprint adds later.
 */
export function filledSketch(template: Pick<ResolvedTemplate, 'sketch' | 'slots'>): string {
	const meanings = new Map(template.slots.map((slot) => [slot.name, slot.meaning]));
	return template.sketch.replace(/\{\{([A-Z][A-Z0-9_]*)\}\}/g, (whole, name: string) => meanings.get(name) ?? whole);
}

/**
 * The topical K_W query of the topic-first ranking: domain, subdomain (name and description), title
 * and the filled sketch with its ask. It names no identity on purpose: words such as "Tamil Hindu"
 * matched every passage about that identity whatever its topic; the persona now re-ranks within the
 * topical candidates instead. On test/fixtures/kb-retrieval the subdomain description raised nDCG@6
 * from 0.498 to 0.508 (hash embedder); replacing the sketch by the slot meanings alone lost 0.03.
 * @example "Culinary, dietary rules in shared settings: Catered team event with unclear ingredients. A person's food rules (religious, ethical, ancestral or medical) meet a setting ... A person's workplace is holding a workplace celebration or team meal, ..."
 */
export function topicalQueryText(context: QueryContext): string {
	return `${context.domainName}, ${context.subdomainName.toLowerCase()}: ${context.title}. ${context.subdomainDescription} ${context.situation}`;
}

/** The topical K_T query: what to avoid in the template's domain and situation. */
export function topicalTabooQueryText(context: QueryContext): string {
	return `What to avoid in ${context.domainName.toLowerCase()}, ${context.subdomainName.toLowerCase()}: ${context.title}. ${context.subdomainDescription} ${context.situation}`;
}

/**
 * The K_W query of the `identity-boost` ranking (before issue 13): persona, subdomain, title and slot meanings.
 * @example "Dietary rules in shared settings for a Tamil Hindu woman aged 55+ in Malaysia: Catered team event ..."
 */
export function culturalQueryText(context: QueryContext): string {
	return `${context.subdomainName} for ${article(context.person)} ${context.person} in ${context.regionName}: ${context.title}. Local details needed: ${context.details}.`;
}

/** The K_T query of the `identity-boost` ranking. */
export function tabooQueryText(context: QueryContext): string {
	return `What ${article(context.identity)} ${context.identity} person in ${context.regionName} must avoid in ${context.domainName.toLowerCase()}, ${context.subdomainName.toLowerCase()}: ${context.title}. ${context.details}.`;
}

/** "an" before a vowel sound in the labels we have ("an Indian Muslim", "an Ainu"), "a" otherwise. */
function article(word: string): 'a' | 'an' {
	return /^[AEIOU]/i.test(word) && !/^(?:Uy|Eu|One)/i.test(word) ? 'an' : 'a';
}
