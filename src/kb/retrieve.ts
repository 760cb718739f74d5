import type {Evidence, EvidenceHit} from '../domain/kb.js';
import type {Seed} from '../domain/seed.js';
import type {ResolvedTemplate} from '../domain/template.js';
import type {Persona, RegionCode} from '../domain/universe.js';
import type {Universe} from '../universe/load.js';
import {UserError} from '../util/errors.js';
import {fnv1a} from '../util/hash.js';
import {unknownMessage} from '../util/suggest.js';
import type {KnowledgeBase} from './knowledgeBase.js';

/**
 * Evidence sizes. The paper gives K_T "a small top-k"; K_W is larger because it feeds slot filling
 * and multi-hop inference in the blueprint.
 */
export const DEFAULT_K = {cultural: 6, taboo: 3} as const;

export type RetrieveEvidenceOptions = {
	universe: Universe;
	seed: Seed;
	kb: KnowledgeBase;
	/** Top-k of K_W and K_T (a number sets K_W only). @default {cultural: 6, taboo: 3} */
	k?: number | {cultural?: number; taboo?: number};
	/** The seed's persona, when the caller already holds it (e.g. from a stored session). @default looked up by seed.personaId */
	persona?: Persona;
	/** The seed's template, when the caller already holds it. @default looked up by seed.templateId */
	template?: ResolvedTemplate;
};

/**
 * K_W(s) and K_T(s) for one seed, exactly as the blueprint stage receives them (paper section 3.5):
 * - K_W: cultural passages of the persona's region, re-ranked by persona tags, near-duplicates removed;
 *   for a contextual seed a third of the slots go to the secondary region.
 * - K_T: for normative seeds only, taboo entries of the region that apply to the persona, in the
 *   template's category first, topped up from the region's other categories when that one is thin.
 * @example const evidence = await retrieveEvidence({universe, seed, kb});
 */
export async function retrieveEvidence(options: RetrieveEvidenceOptions): Promise<Evidence> {
	const {universe, seed, kb} = options;
	const persona = options.persona ?? universe.personaById.get(seed.personaId);
	if (!persona) throw new UserError(unknownMessage('persona', seed.personaId, universe.personaById.keys()));
	const template = options.template ?? universe.templateById.get(seed.templateId);
	if (!template) throw new UserError(unknownMessage('template', seed.templateId, universe.templateById.keys()));
	const k = typeof options.k === 'number' ? {cultural: options.k, taboo: DEFAULT_K.taboo} : {...DEFAULT_K, ...options.k};
	const context = queryContext(universe, persona, template);

	const secondary = seed.tier === 'contextual' ? secondaryRegion(seed.id, universe.regions.get(persona.region)?.neighbours ?? []) : null;
	const culturalQuery = culturalQueryText(context);
	let cultural: EvidenceHit[];
	if (secondary) {
		// A third of K_W (at least one) for the second culture: enough to ground the friction.
		const kSecondary = Math.max(1, Math.floor(k.cultural / 3));
		const primary = await kb.search(culturalQuery, {kind: 'cultural', topK: k.cultural - kSecondary, filter: {region: persona.region}, persona});
		const secondaryName = universe.regions.get(secondary)?.name ?? secondary;
		const other = await kb.search(culturalQueryText({...context, regionName: secondaryName}), {kind: 'cultural', topK: k.cultural, filter: {region: secondary}, persona});
		const seen = new Set(primary.map((hit) => hit.id));
		cultural = renumber([...primary, ...other.filter((hit) => !seen.has(hit.id)).slice(0, k.cultural - primary.length)]);
	} else {
		cultural = await kb.search(culturalQuery, {kind: 'cultural', topK: k.cultural, filter: {region: persona.region}, persona});
	}

	let taboo: EvidenceHit[] = [];
	let tabooQuery: string | null = null;
	if (seed.tier === 'normative' && k.taboo > 0) {
		tabooQuery = tabooQueryText(context);
		const filter = {region: persona.region, identity: persona.identityId};
		taboo = await kb.search(tabooQuery, {kind: 'taboo', topK: k.taboo, filter: {...filter, category: template.domain as never}, persona});
		if (taboo.length < k.taboo) {
			const seen = new Set(taboo.map((hit) => hit.id));
			const more = await kb.search(tabooQuery, {kind: 'taboo', topK: k.taboo * 2, filter, persona});
			taboo = renumber([...taboo, ...more.filter((hit) => !seen.has(hit.id))].slice(0, k.taboo));
		}
	}

	return {cultural, taboo, queries: {cultural: culturalQuery, taboo: tabooQuery}, secondaryRegion: secondary, embedder: kb.embedderId};
}

/**
 * The second culture of a contextual seed: one of the region's `neighbours`, picked by a stable hash
 * of the seed id so a rerun of the seed meets the same friction.
 */
export function secondaryRegion(seedId: string, neighbours: readonly RegionCode[]): RegionCode | null {
	if (neighbours.length === 0) return null;
	return neighbours[fnv1a(`${seedId}#secondary-region`) % neighbours.length]!;
}

export type QueryContext = {
	identity: string;
	person: string;
	regionName: string;
	domainName: string;
	subdomainName: string;
	title: string;
	details: string;
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
		title: template.title,
		// Slot meanings name what the blueprint must fill in with local detail: the best retrieval cues.
		details: template.slots.map((slot) => slot.meaning).join('; '),
	};
}

/**
 * A natural-language query from template and persona (no LLM call, as in the paper's Appendix G.2.2).
 * @example "Dietary rules in shared settings for a Tamil Hindu woman aged 55+ in Malaysia: Catered team event ..."
 */
export function culturalQueryText(context: QueryContext): string {
	return `${context.subdomainName} for ${article(context.person)} ${context.person} in ${context.regionName}: ${context.title}. Local details needed: ${context.details}.`;
}

export function tabooQueryText(context: QueryContext): string {
	return `What ${article(context.identity)} ${context.identity} person in ${context.regionName} must avoid in ${context.domainName.toLowerCase()}, ${context.subdomainName.toLowerCase()}: ${context.title}. ${context.details}.`;
}

/** "an" before a vowel sound in the labels we have ("an Indian Muslim", "an Ainu"), "a" otherwise. */
function article(word: string): 'a' | 'an' {
	return /^[AEIOU]/i.test(word) && !/^(?:Uy|Eu|One)/i.test(word) ? 'an' : 'a';
}

function renumber(hits: EvidenceHit[]): EvidenceHit[] {
	return hits.map((hit, index) => ({...hit, rank: index + 1}));
}
