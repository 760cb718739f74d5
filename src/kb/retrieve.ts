import type {Evidence, EvidenceHit} from '../domain/kb.js';
import type {Seed} from '../domain/seed.js';
import type {ResolvedTemplate} from '../domain/template.js';
import type {Persona, RegionCode} from '../domain/universe.js';
import type {Universe} from '../universe/load.js';
import {UserError} from '../util/errors.js';
import {fnv1a} from '../util/hash.js';
import {unknownMessage} from '../util/suggest.js';
import type {KnowledgeBase} from './knowledgeBase.js';
import {culturalQueryText, queryContext, tabooQueryText, topicalQueryText, topicalTabooQueryText} from './queries.js';

/**
 * Evidence sizes. The paper gives K_T "a small top-k"; K_W is larger because it feeds slot filling
 * and multi-hop inference in the blueprint.
 */
export const DEFAULT_K = {cultural: 6, taboo: 3} as const;

/**
 * How K_W and K_T are ranked. `topic-first` is the default (see retrieveEvidence). `identity-boost`
 * is the ranking before issue 13 (a query naming the persona, and per-list identity boosts over the
 * whole region), kept so `npm run bench:retrieval` can measure against it.
 */
export const RETRIEVAL_RANKINGS = ['identity-boost', 'topic-first'] as const;
export type RetrievalRanking = (typeof RETRIEVAL_RANKINGS)[number];

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
	/** @default 'topic-first' */
	ranking?: RetrievalRanking;
};

/**
 * K_W(s) and K_T(s) for one seed, exactly as the blueprint stage receives them (paper section 3.5).
 *
 * Topic first (the default, issue 13): the queries describe the template's situation (domain,
 * subdomain, title, the sketch with its slots filled by their meanings) and name no identity; the
 * template's domain and subdomain weight the candidates (`TOPIC_WEIGHTS`), and the persona's tags
 * re-rank only within the topical head, so an identity's passages move up among on-topic ones
 * without being pulled in for every template.
 * - K_W: cultural passages written about the persona's region, near-duplicates removed; for a
 *   contextual seed a third of the slots go to the secondary region, and passages that list the
 *   persona's region as a secondary region (written about a neighbour) become eligible too.
 * - K_T: for normative seeds only, taboo entries of the region that apply to the persona, in the
 *   template's category first (its subdomain weighted up, entries for the persona's identity moved
 *   up), topped up from the region's other categories when that one is thin.
 * @example const evidence = await retrieveEvidence({universe, seed, kb});
 */
export async function retrieveEvidence(options: RetrieveEvidenceOptions): Promise<Evidence> {
	const {universe, seed, kb} = options;
	const persona = options.persona ?? universe.personaById.get(seed.personaId);
	if (!persona) throw new UserError(unknownMessage('persona', seed.personaId, universe.personaById.keys()));
	const template = options.template ?? universe.templateById.get(seed.templateId);
	if (!template) throw new UserError(unknownMessage('template', seed.templateId, universe.templateById.keys()));
	const k = typeof options.k === 'number' ? {cultural: options.k, taboo: DEFAULT_K.taboo} : {...DEFAULT_K, ...options.k};
	const ranking = options.ranking ?? 'topic-first';
	const legacy = ranking === 'identity-boost';
	const context = queryContext(universe, persona, template);
	const topic = legacy ? undefined : {domain: template.domain, subdomain: template.subdomain};

	const secondary = seed.tier === 'contextual' ? secondaryRegion(seed.id, universe.regions.get(persona.region)?.neighbours ?? []) : null;
	const culturalQuery = legacy ? culturalQueryText(context) : topicalQueryText(context);
	let cultural: EvidenceHit[];
	if (secondary) {
		// A third of K_W (at least one) for the second culture: enough to ground the friction.
		const kSecondary = Math.max(1, Math.floor(k.cultural / 3));
		const primary = await kb.search(culturalQuery, {kind: 'cultural', topK: k.cultural - kSecondary, filter: {region: persona.region}, persona, topic});
		const secondaryName = universe.regions.get(secondary)?.name ?? secondary;
		// The topical query names no region, so the secondary search can use it as it is.
		const otherQuery = legacy ? culturalQueryText({...context, regionName: secondaryName}) : culturalQuery;
		const other = await kb.search(otherQuery, {kind: 'cultural', topK: k.cultural, filter: {region: secondary}, persona, topic});
		const seen = new Set(primary.map((hit) => hit.id));
		cultural = renumber([...primary, ...other.filter((hit) => !seen.has(hit.id)).slice(0, k.cultural - primary.length)]);
	} else {
		// A passage about a neighbour that also lists this region (a Zainichi Korean rite tagged JP and KR)
		// belongs to contextual seeds, not to every seed of the secondary region.
		cultural = await kb.search(culturalQuery, {kind: 'cultural', topK: k.cultural, filter: {region: persona.region}, persona, topic, primaryOnly: !legacy});
	}

	let taboo: EvidenceHit[] = [];
	let tabooQuery: string | null = null;
	if (seed.tier === 'normative' && k.taboo > 0) {
		tabooQuery = legacy ? tabooQueryText(context) : topicalTabooQueryText(context);
		const filter = {region: persona.region, identity: persona.identityId};
		taboo = await kb.search(tabooQuery, {kind: 'taboo', topK: k.taboo, filter: {...filter, category: template.domain as never}, persona, topic});
		if (taboo.length < k.taboo) {
			const seen = new Set(taboo.map((hit) => hit.id));
			const more = await kb.search(tabooQuery, {kind: 'taboo', topK: k.taboo * 2, filter, persona, topic});
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

function renumber(hits: EvidenceHit[]): EvidenceHit[] {
	return hits.map((hit, index) => ({...hit, rank: index + 1}));
}
