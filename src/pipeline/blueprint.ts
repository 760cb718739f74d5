import {z} from 'zod';
import {type Blueprint, BlueprintAudit, BlueprintDraft, type LanguageDirectives, OracleState, Tripwire} from '../domain/blueprint.js';
import {oneOf} from '../domain/knownSets.js';
import type {Evidence} from '../domain/kb.js';
import type {Seed} from '../domain/seed.js';
import type {ResolvedTemplate} from '../domain/template.js';
import type {Language, Persona, Region} from '../domain/universe.js';
import {checkLanguage} from '../lang/detect.js';
import {renderPrompt} from '../llm/prompts.js';
import type {CallEvent, ModelGateway} from '../llm/types.js';
import {aboutOthers} from '../domain/personaFit.js';
import {contradictionsFor} from '../universe/lexicon.js';
import type {SubdomainInfo, Universe} from '../universe/load.js';
import {oracleLeaks} from './leak.js';
import {evidenceList, oracleText, personaSummary, privateStateText, seedSummary, templateForPrompt} from './render.js';
import {auditVerdict, feedbackText, refine} from './refine.js';
import {type Style} from '../domain/styles.js';
import {openerDirective, pickOpeners, type StylePools} from './styles.js';

/** Everything the blueprint stage reads: the seed and what it resolves to, plus K_W(s) and K_T(s). */
export type BlueprintContext = {
	readonly seed: Seed;
	readonly persona: Persona;
	readonly template: ResolvedTemplate;
	readonly subdomain: SubdomainInfo;
	readonly evidence: Evidence;
	readonly language: Language;
	readonly secondaryRegion: Region | null;
	readonly openers: readonly [Style, Style];
};

export type StageOptions = {
	readonly gateway: ModelGateway;
	readonly step: number;
	/** Generation attempts, each followed by an audit. @default 3 */
	readonly maxAttempts?: number;
	readonly signal?: AbortSignal;
	readonly onEvent?: (event: CallEvent) => void;
	readonly now?: () => Date;
};

/** What the offline mock provider receives for the blueprint calls. */
export type BlueprintMockInput = {readonly context: BlueprintContext; readonly attempt: number; readonly feedback: readonly string[]};
export type BlueprintAuditMockInput = {readonly context: BlueprintContext; readonly draft: BlueprintDraft};

function tierInstructions(context: BlueprintContext): string {
	switch (context.seed.tier) {
		case 'standard':
			return 'Standard tier: routine help that needs real local knowledge. No deliberate trap.';
		case 'contextual':
			return `Contextual tier: the situation crosses two cultural settings. Secondary setting: ${context.secondaryRegion ? `${context.secondaryRegion.name} (${context.secondaryRegion.id})` : 'another community in the same region'}. Write the friction between the two in oracle.friction.`;
		case 'normative':
			return 'Normative tier: make one of the taboo evidence entries a live trap. At least one tripwire must cite a taboo evidence id. Do not hint at it in the opening message.';
		default: {
			const never: never = context.seed.tier;
			return never;
		}
	}
}

/** The blueprint stage's inputs for a seed, resolved from the universe (shared by the engine and `blueprint`). */
export function blueprintContextFor(input: {universe: Universe; seed: Seed; persona: Persona; template: ResolvedTemplate; evidence: Evidence; styles?: StylePools}): BlueprintContext {
	const {universe, seed, persona, template, evidence} = input;
	const subdomain = universe.subdomainById.get(template.subdomain);
	if (!subdomain) throw new Error(`unknown subdomain ${template.subdomain} of template ${template.id}`);
	return {
		seed,
		persona,
		template,
		subdomain,
		evidence,
		language: universe.languages.get(persona.language)!,
		secondaryRegion: evidence.secondaryRegion ? universe.regions.get(evidence.secondaryRegion) ?? null : null,
		openers: pickOpeners(seed.id, input.styles),
	};
}

/**
 * The draft schema of one blueprint call: a tripwire or taboo cites one of the evidence ids given (an
 * enum) or null, so a grammar-enforcing server cannot invent one; `blueprintProblems` checks the same
 * (and the normative tier's taboo citation) for every server.
 */
export function blueprintDraftFor(context: Pick<BlueprintContext, 'evidence'>): z.ZodType<BlueprintDraft> {
	const id = oneOf([...context.evidence.cultural, ...context.evidence.taboo].map((hit) => hit.id));
	const evidenceId = (id ? id.nullable() : z.null()).describe('taboo or cultural KB id it is grounded in (one of the evidence ids given), or null');
	return BlueprintDraft.extend({
		oracle: OracleState.extend({
			taboos: z.array(OracleState.shape.taboos.element.extend({evidenceId})),
			tripwires: z.array(Tripwire.extend({evidenceId})),
		}),
	});
}

/** Checks code can make without a model; problems are fed back to the generator like schema errors. */
export function blueprintProblems(draft: BlueprintDraft, context: BlueprintContext): string[] {
	const problems: string[] = [];
	const filled = new Map(draft.private.slots.map((slot) => [slot.name, slot.value.trim()]));
	for (const slot of context.template.slots) if (!filled.get(slot.name)) problems.push(`private.slots: fill template slot ${slot.name} (${slot.meaning})`);
	if (/\{\{[A-Z0-9_]+\}\}/.test(draft.public.initialMessage)) problems.push('public.initialMessage: replace every {{SLOT}} with a concrete value');
	const evidenceIds = new Set([...context.evidence.cultural, ...context.evidence.taboo].map((hit) => hit.id));
	const tabooIds = new Set(context.evidence.taboo.map((hit) => hit.id));
	for (const tripwire of draft.oracle.tripwires) if (tripwire.evidenceId && !evidenceIds.has(tripwire.evidenceId)) problems.push(`oracle.tripwires ${tripwire.id}: evidenceId '${tripwire.evidenceId}' is not one of the evidence ids given`);
	for (const taboo of draft.oracle.taboos) if (taboo.evidenceId && !evidenceIds.has(taboo.evidenceId)) problems.push(`oracle.taboos: evidenceId '${taboo.evidenceId}' is not one of the evidence ids given`);
	const ids = draft.oracle.tripwires.map((tripwire) => tripwire.id);
	if (new Set(ids).size !== ids.length) problems.push('oracle.tripwires: ids must be unique (T1, T2, ...)');
	if (context.seed.tier === 'normative') {
		if (tabooIds.size > 0 && !draft.oracle.tripwires.some((tripwire) => tripwire.evidenceId && tabooIds.has(tripwire.evidenceId))) problems.push('normative tier: at least one tripwire must cite a taboo evidence id');
		if (draft.oracle.tripwires.length === 0) problems.push('normative tier: write at least one tripwire');
	}
	if (context.seed.tier === 'contextual' && !draft.oracle.friction?.trim()) problems.push('contextual tier: oracle.friction must describe the cross-cultural friction');
	problems.push(...personaFitProblems(draft, context));
	problems.push(...oracleLeaks(draft.public.initialMessage, draft.oracle, draft.private.hiddenConstraints));
	// Native mode opens with the native message: it is held to the same rule (oracle wording, often
	// English loanwords, names and numbers, can be pasted into any language), and to saying the same.
	problems.push(...oracleLeaks(draft.nativeInitialMessage, draft.oracle, draft.private.hiddenConstraints).map((leak) => leak.replace('the opening message', 'the native opening message').replace('the public message', 'either opening message')));
	problems.push(...openerMismatch(draft.public.initialMessage, draft.nativeInitialMessage));
	const native = checkLanguage(draft.nativeInitialMessage, context.persona.language);
	if (!native.ok) problems.push(`nativeInitialMessage: ${native.reason}; write it in ${context.language.name}`);
	const english = checkLanguage(draft.public.initialMessage, 'english');
	if (!english.ok) problems.push(`public.initialMessage: ${english.reason}`);
	return problems;
}

/**
 * What the persona says or keeps as its own must fit its tags (domain/personaFit.ts, the same check the
 * offline mock's choices pass): a Tamil Hindu's own "church rules" or a Ryukyuan's "dol" is refused
 * and re-asked like any other code check. Rules kept for someone else (a host's pork) pass.
 */
export function personaFitProblems(draft: BlueprintDraft, context: Pick<BlueprintContext, 'persona'> & {readonly template: Pick<ResolvedTemplate, 'slots'>}): string[] {
	// A slot about someone else's things (its meaning names the host, a guest, a colleague) may hold their rules and food.
	const meanings = new Map(context.template.slots.map((slot) => [slot.name, slot.meaning]));
	const texts: Array<[string, string]> = [
		...draft.private.slots.filter((slot) => !aboutOthers(meanings.get(slot.name) ?? '')).map((slot): [string, string] => [`private.slots ${slot.name}`, slot.value]),
		['public.initialMessage', draft.public.initialMessage],
		...draft.private.hiddenConstraints.map((item, index): [string, string] => [`private.hiddenConstraints[${index}]`, item.constraint]),
	];
	const problems: string[] = [];
	for (const [where, text] of texts) {
		for (const found of contradictionsFor(context.persona, text)) problems.push(`${where}: ${found.reason}; use what this persona's own community does, or make clear it is someone else's rule`);
	}
	return problems;
}

/**
 * What a translation must carry over unchanged: numbers (dates, days, counts, amounts) in the English
 * opener appear in the native one, and the native one brings no numbers of its own. Digits survive
 * every script the personas write in, so this holds for Thai and Tamil as for Malay; the validator's
 * audit compares the meaning.
 */
export function openerMismatch(english: string, native: string): string[] {
	const numbers = (text: string) => new Set(text.normalize('NFKC').match(/\d+(?:[.,]\d+)?/g) ?? []);
	const inEnglish = numbers(english);
	const inNative = numbers(native);
	const missing = [...inEnglish].filter((value) => !inNative.has(value));
	const extra = [...inNative].filter((value) => !inEnglish.has(value));
	const problems: string[] = [];
	if (missing.length > 0) problems.push(`nativeInitialMessage: it must say what the English opening says; these numbers are missing: ${missing.join(', ')}`);
	if (extra.length > 0) problems.push(`nativeInitialMessage: it must not say more than the English opening; these numbers are not in it: ${extra.join(', ')}`);
	return problems;
}

export function languageDirectives(context: Pick<BlueprintContext, 'language' | 'persona'>, nativeInitialMessage: string): LanguageDirectives {
	return {
		native: context.language.id,
		nativeName: context.language.name,
		english: {directive: 'Write in natural, everyday English as this person would type it. Local words for food, kin, places and rites may appear where a local English speaker would use them.'},
		nativeMode: {
			directive: `Write in ${context.language.name} (${context.language.native}) as this person would type it to an assistant: everyday register, the politeness forms they would use, English loanwords only where locals use them.`,
			initialMessage: nativeInitialMessage,
		},
	};
}

/**
 * Stage 2 (paper equation 2): seed + K_W + K_T -> blueprint. Each attempt is generated, checked by
 * code, then audited by the validator model for oracle leakage, answerability and tier sufficiency;
 * failures are regenerated with the accumulated feedback. The full trace lands in meta.attempts.
 */
export async function generateBlueprint(context: BlueprintContext, options: StageOptions): Promise<Blueprint> {
	const call = {step: options.step, signal: options.signal, onEvent: options.onEvent};
	const {value: draft, attempts} = await refine<BlueprintDraft>({
		stage: 'blueprint',
		maxAttempts: options.maxAttempts ?? 3,
		generate: async (feedback, attempt) => {
			const response = await options.gateway.call({
				...call,
				role: 'generator',
				stage: 'blueprint',
				prompt: renderPrompt('blueprint', {
					seed: seedSummary(context.seed),
					persona: personaSummary(context.persona),
					native_language: `${context.language.name} (${context.language.native})`,
					tier: context.seed.tier,
					tier_instructions: tierInstructions(context),
					subdomain: `${context.subdomain.id}: ${context.subdomain.description}`,
					template: templateForPrompt(context.template),
					cultural_evidence: evidenceList(context.evidence.cultural),
					taboo_evidence: evidenceList(context.evidence.taboo),
					opener_styles: openerDirective(context.openers),
					feedback: feedbackText(feedback),
				}),
				schema: {name: 'blueprint', schema: blueprintDraftFor(context)},
				validate: (value) => blueprintProblems(value, context),
				mock: {context, attempt, feedback} satisfies BlueprintMockInput,
			});
			return {value: response.value, callId: response.call.id};
		},
		audit: async (value) => {
			const response = await options.gateway.call({
				...call,
				role: 'validator',
				stage: 'blueprint-audit',
				prompt: renderPrompt('blueprint-audit', {
					tier: context.seed.tier,
					public_message: value.public.initialMessage,
					native_language: `${context.language.name} (${context.language.native})`,
					native_message: value.nativeInitialMessage,
					private_state: privateStateText(value.private),
					oracle: oracleText(value.oracle),
				}),
				schema: {name: 'blueprint_audit', schema: BlueprintAudit},
				mock: {context, draft: value} satisfies BlueprintAuditMockInput,
			});
			return {verdict: auditVerdict(response.value), callId: response.call.id};
		},
	});
	const settings = options.gateway.settings('generator');
	return {
		public: draft.public,
		private: draft.private,
		oracle: draft.oracle,
		language: languageDirectives(context, draft.nativeInitialMessage),
		meta: {
			evidenceIds: [...context.evidence.cultural, ...context.evidence.taboo].map((hit) => hit.id),
			openerStyles: context.openers.map((style) => style.id),
			attempts,
			shardAttempts: [],
			model: settings.model,
			mock: settings.provider === 'mock',
			createdAt: (options.now?.() ?? new Date()).toISOString(),
		},
	};
}
