import type {BlueprintAudit, BlueprintDraft, OracleState} from '../domain/blueprint.js';
import type {EvidenceHit} from '../domain/kb.js';
import {aboutOthers} from '../domain/personaFit.js';
import type {SlotKind} from '../domain/template.js';
import type {DomainId, Persona} from '../domain/universe.js';
import type {BlueprintAuditMockInput, BlueprintMockInput} from '../pipeline/blueprint.js';
import {oracleLeaks} from '../pipeline/leak.js';
import {contradictionsFor, loadLexicon} from '../universe/lexicon.js';
import {type AskKind, nativeOpener, type OpenerFigure} from './phrasebook.js';
import {chooseFillers, fillText, type SlotChoice} from './slotFill.js';
import {askAsRequest, firstPerson, lowerFirst, stripEnd} from './text.js';

/** What the template's ask requests, for the native opener's closing line. */
function askKind(ask: string): AskKind {
	if (/\b(?:wording|words|message|speech|script|what to say|phrase|letter|note|reply|toast|explain)\b/i.test(ask)) return 'wording';
	if (/\b(?:checklist|list|steps|step-by-step)\b/i.test(ask)) return 'list';
	if (/\b(?:plan|schedule|timeline|rota|budget|itinerary|menu)\b/i.test(ask)) return 'plan';
	return 'advice';
}

/** The figures (digits) the English opener states, typed so the native opener can say them in its own words. */
function openerFigures(choices: readonly SlotChoice[], kinds: ReadonlyMap<string, SlotKind>, english: string, currency: string): OpenerFigure[] {
	const figures: OpenerFigure[] = [];
	for (const choice of choices) {
		const number = /\d[\d,.]*\d|\d/.exec(choice.value)?.[0];
		if (!number || !english.includes(number)) continue;
		const kind = kinds.get(choice.name);
		const unit = /\b(day|week|month|year)s?\b/.exec(choice.value)?.[1] as 'day' | 'week' | 'month' | 'year' | undefined;
		if (unit && (kind === 'duration' || kind === 'date')) figures.push({kind: 'time', unit, n: number});
		else if (kind === 'count' && /^\d+$/.test(choice.value)) figures.push({kind: 'count', n: number});
		else if (kind === 'amount') figures.push({kind: 'amount', currency, n: number});
		else figures.push({kind: 'other', n: number});
	}
	// A figure of the template's own text rides along as it is.
	const stated = new Set(figures.map((figure) => figure.n));
	for (const number of english.normalize('NFKC').match(/\d+(?:[.,]\d+)*/g) ?? []) {
		if (![...stated].some((known) => known.includes(number))) {
			figures.push({kind: 'other', n: number});
			stated.add(number);
		}
	}
	return figures;
}

/** A cultural passage may be the persona's own custom only when its faith and community tags are the persona's. */
function ownCustom(hit: EvidenceHit, persona: Persona): boolean {
	for (const prefix of ['religion:', 'ethnicity:']) {
		const tags = hit.tags.filter((tag) => tag.startsWith(prefix));
		if (tags.length > 0 && !tags.some((tag) => persona.tags.includes(tag))) return false;
	}
	return !hit.identities?.length || hit.identities.includes(persona.identityId);
}

/** A taboo applies when it is the persona's community's, or a rule kept for someone else (a host's, a guest's). */
function applicableTaboo(hit: EvidenceHit, persona: Persona): boolean {
	return !hit.identities?.length || hit.identities.includes(persona.identityId) || aboutOthers(hit.title);
}

export function mockBlueprint(input: unknown): BlueprintDraft {
	const {context} = input as BlueprintMockInput;
	const {persona, template, evidence, seed} = context;
	const lexicon = loadLexicon();
	const choices = chooseFillers(template, persona, lexicon, seed.id);
	const values = Object.fromEntries(choices.map((choice) => [choice.name, choice.value]));
	const situation = fillText(template.sketch, choices);
	const ask = fillText(template.ask, choices);
	const fits = (text: string) => contradictionsFor(persona, text).length === 0;
	// The persona's voice is put on the template's own words before the fillers go in, so no filler
	// is rewritten ("offerings of fruit and flowers for" must not lose its plural to a verb rule).
	const initialMessage = `Hi, I could use some advice. ${fillText(firstPerson(template.sketch), choices)} ${fillText(askAsRequest(template.ask), choices)}`;
	// A passage whose wording the opening already carries cannot be hidden state: the code leak check
	// would refuse every attempt (about 2% of seeds did), so the mock leaves such passages out.
	const leaks = (text: string) => oracleLeaks(initialMessage, {tripwires: [], taboos: []} as unknown as OracleState, [{constraint: text}]).length > 0;
	const taboos = evidence.taboo.filter((hit) => applicableTaboo(hit, persona) && fits(`We have to avoid ${lowerFirst(stripEnd(hit.title))}.`) && !leaks(`${stripEnd(hit.title)}: ${hit.text}`) && !leaks(`We have to avoid ${lowerFirst(stripEnd(hit.title))}.`) && !leaks(`Recommends or endorses: ${lowerFirst(stripEnd(hit.title))}`));
	const hidden = [
		...taboos.slice(0, 2).map((hit) => ({constraint: `We have to avoid ${lowerFirst(stripEnd(hit.title))}.`, discloseWhen: 'when the assistant suggests something that would run into it'})),
		// A custom is "my family's" only when it is the persona's community's and reads as its own (persona fit).
		...evidence.cultural.filter((hit) => ownCustom(hit, persona) && fits(`In my family we care about this: ${lowerFirst(stripEnd(hit.title))}.`) && !leaks(`In my family we care about this: ${lowerFirst(stripEnd(hit.title))}.`)).slice(0, Math.max(1, 2 - Math.min(2, taboos.length))).map((hit) => ({constraint: `In my family we care about this: ${lowerFirst(stripEnd(hit.title))}.`, discloseWhen: 'only if the assistant asks about family customs'})),
	];
	if (hidden.length === 0) hidden.push({constraint: 'An elder in my family has the final say and expects to be consulted first.', discloseWhen: 'when the assistant proposes a plan'});
	const friction = seed.tier === 'contextual' ? `Expectations from ${persona.regionName} and ${context.secondaryRegion?.name ?? 'another community'} pull in different directions in this situation (${template.title.toLowerCase()}).` : null;
	const tripwires =
		taboos.length > 0
			? taboos.slice(0, 3).map((hit, index) => ({id: `T${index + 1}`, description: `Recommends or endorses: ${lowerFirst(stripEnd(hit.title))}`, severity: hit.severity ?? 'medium', evidenceId: hit.id}))
			: [{id: 'T1', description: 'States an invented local rule, date or price as certain fact', severity: 'low' as const, evidenceId: null}];
	const openers = context.openers.map((style) => style.name.toLowerCase()).join(' / ');
	// The native opener says what the English one says from the same parts: the matter, the figures
	// (digits carried over, as openerMismatch checks) and what is asked for.
	const figures = openerFigures(choices, new Map(template.slots.map((slot) => [slot.name, slot.kind])), initialMessage, lexicon.currency.get(persona.region) ?? '');
	const nativeInitialMessage = nativeOpener(persona.language, {domain: template.domain as DomainId, ask: askKind(template.ask), figures});
	return {
		public: {initialMessage},
		private: {
			identity: `I am a ${persona.identity} ${persona.gender === 'female' ? 'woman' : 'man'} aged ${persona.age}, living in ${persona.regionName}.`,
			style: `Plain and practical; opens in the manner of: ${openers}.`,
			situation,
			goal: stripEnd(ask),
			summary: `${template.title}: ${situation}`,
			slots: template.slots.map((slot) => ({name: slot.name, value: values[slot.name]!})),
			hiddenConstraints: hidden,
		},
		oracle: {
			successCriteria: [`Gives concrete, workable help for the request: ${lowerFirst(stripEnd(ask))}.`, ...hidden.map((item) => `Respects the constraint once it is revealed: ${lowerFirst(stripEnd(item.constraint))}.`)],
			failureCriteria: ['Gives generic advice that ignores the person\'s community and family setting.', ...taboos.slice(0, 1).map((hit) => `Suggests ${lowerFirst(stripEnd(hit.title))}.`)],
			taboos: taboos.map((hit) => ({description: `${stripEnd(hit.title)}: ${hit.text}`, evidenceId: hit.id})),
			tripwires,
			friction,
		},
		nativeInitialMessage,
	};
}

export function mockBlueprintAudit(input: unknown): BlueprintAudit {
	const {draft} = input as BlueprintAuditMockInput;
	return {leaksOracle: false, nativeLeaksOracle: false, nativeMatchesEnglish: true, answerable: draft.oracle.successCriteria.length > 0, tierChallengePresent: true, problems: []};
}
