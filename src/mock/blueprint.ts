import type {BlueprintAudit, BlueprintDraft, OracleState} from '../domain/blueprint.js';
import {oracleLeaks} from '../pipeline/leak.js';
import type {EvidenceHit} from '../domain/kb.js';
import type {Persona} from '../domain/universe.js';
import type {BlueprintAuditMockInput, BlueprintMockInput} from '../pipeline/blueprint.js';
import {fillSlots} from '../universe/templates.js';
import {phrases} from './phrasebook.js';
import {askAsRequest, contentWords, firstPerson, lowerFirst, pick, stripEnd} from './text.js';

/**
 * Everyday fillers by the words in a slot's name, so offline blueprints read naturally. Order
 * matters: the first pattern that matches wins (SENIOR_COLLEAGUE_TITLE is a work title, not kin).
 */
const FILLERS: ReadonlyArray<[RegExp, readonly string[]]> = [
	[/LENGTH|DURATION|PERIOD_OF|HOW_LONG/, ['two weeks', 'ten days', 'a month']],
	[/TIME_LIMIT|TIME_LEFT|DUE|TIMING|CARE_PERIOD/, ['within three days', 'in about two weeks', 'before the end of the month']],
	[/DATE|DAY|DEADLINE|WHEN/, ['the first weekend of next month', 'next Saturday', 'the end of the month']],
	[/BUDGET|AMOUNT|PRICE|COST|SUM/, ['a modest budget', 'about half of one month\'s pay', 'a tight budget']],
	[/COUNT|SIZE|NUMBER|GUESTS_N/, ['about twenty people', 'a dozen people', 'forty guests']],
	[/(BOSS|MANAGER|SENIOR|COLLEAGUE|SUPERVISOR)_?(TITLE|TERM)?/, ['my team leader', 'the department head', 'a senior colleague']],
	[/RELIGIOUS_LEADER|OFFICIANT/, ['the officiant at our place of worship', 'the religious teacher our family knows']],
	[/TEAM_EVENT|WORK_EVENT|OFFICE_EVENT/, ['a year-end team dinner', 'a team lunch', 'the office anniversary party']],
	[/CATERER|RESTAURANT|VENDOR|SHOP|STORE/, ['a catering company near the office', 'a popular restaurant nearby', 'the usual lunch caterer']],
	[/TERM|TITLE|ADDRESS/, ['the aunt on my mother\'s side', 'my eldest uncle', 'my grandmother']],
	[/ELDER|PARENT|GRAND|IN_LAW|RELATIVE|KIN|FAMILY/, ['my mother-in-law', 'my grandmother', 'my eldest uncle']],
	[/FRIEND|NEIGHBOU?R/, ['my neighbour', 'an old school friend', 'the family next door']],
	[/VENUE|PLACE|LOCATION|HALL|DESTINATION|TOWN|CITY/, ['the family home', 'a community hall nearby', 'my hometown']],
	[/EVENT|OCCASION|GATHERING|CELEBRATION|CEREMONY/, ['a family gathering', 'a small celebration at home', 'an office party']],
	[/INGREDIENT|DISH|FOOD|MENU|MEAL/, ['the usual festive dishes', 'a rich meat curry', 'home-cooked family dishes']],
];

function filler(name: string, key: string): string | undefined {
	for (const [pattern, options] of FILLERS) if (pattern.test(name)) return pick(options, key);
	return undefined;
}

/** Food rules and faith as the persona's own religion tag suggests, for the slots that ask for them. */
const FOOD_RULES: ReadonlyArray<[string, string]> = [
	['islam', 'halal food rules'],
	['sunni-shafii', 'halal food rules'],
	['hinduism', 'a no-beef rule'],
	['buddhism', 'a vegetarian diet on the first and fifteenth of the lunar month'],
	['theravada', 'no meat on Buddhist holy days'],
	['tibetan-buddhism', 'a vegetarian diet on holy days'],
	['catholicism', 'no meat on Fridays in Lent'],
	['iglesia-ni-cristo', 'a rule against eating blood'],
	['evangelical', 'no alcohol'],
	['taoism', 'a vegetarian diet on festival days'],
];
const FAITH_NAMES: Readonly<Record<string, string>> = {
	islam: 'Islam', 'sunni-shafii': 'Islam', hinduism: 'Hinduism', buddhism: 'Buddhism', theravada: 'Theravada Buddhism', 'tibetan-buddhism': 'Tibetan Buddhism',
	catholicism: 'the Catholic faith', christianity: 'Christianity', protestantism: 'the Protestant church', evangelical: 'an evangelical church', 'iglesia-ni-cristo': 'Iglesia ni Cristo',
	taoism: 'Taoist practice', confucianism: 'Confucian family rites', 'ancestor-worship': 'ancestor veneration', shinto: 'Shinto', shamanism: 'shamanic tradition', kejawen: 'Kejawen', folk: 'folk religion', secular: 'no particular faith',
};

function personaValue(slotName: string, persona: Persona): string | undefined {
	const religions = persona.tags.filter((tag) => tag.startsWith('religion:')).map((tag) => tag.slice('religion:'.length));
	if (/DIET(ARY)?_(RULE|OR_RITUAL_NEED)|FOOD_RULE/.test(slotName)) {
		const rule = FOOD_RULES.find(([religion]) => religions.includes(religion));
		return rule ? rule[1] : 'a mostly vegetarian diet';
	}
	if (/^FAITH(_A)?$|^MY_FAITH$/.test(slotName) && religions[0]) return FAITH_NAMES[religions[0]];
	return undefined;
}

/**
 * A slot value: an everyday filler for generic slots (dates, budgets, relatives), else the evidence
 * passage whose text best matches the slot's meaning, else a plain description.
 */
function slotValue(slot: {name: string; meaning: string}, hits: readonly EvidenceHit[], domain: string, key: string, used: Set<string>): string {
	const meaning = new Set(contentWords(`${slot.meaning} ${slot.name.replace(/_/g, ' ')}`));
	let best: {hit: EvidenceHit; score: number} | undefined;
	for (const hit of hits) {
		if (used.has(hit.id)) continue;
		const words = new Set(contentWords(`${hit.title} ${hit.text}`));
		// Two shared words, or one within the template's own domain, before a passage may fill a slot.
		const score = [...meaning].filter((word) => words.has(word)).length + (hit.domain === domain ? 0.5 : 0);
		if (score >= 1.5 && (!best || score > best.score)) best = {hit, score};
	}
	const generic = filler(slot.name, key);
	if (generic && (!best || best.score < 2.5)) return generic;
	if (best) {
		used.add(best.hit.id);
		return lowerFirst(stripEnd(best.hit.title));
	}
	return stripEnd(slot.meaning).replace(/^(?:a|an|the) /i, 'a ');
}

export function mockBlueprint(input: unknown): BlueprintDraft {
	const {context} = input as BlueprintMockInput;
	const {persona, template, evidence, seed} = context;
	const used = new Set<string>();
	const values = Object.fromEntries(template.slots.map((slot) => [slot.name, personaValue(slot.name, persona) ?? slotValue(slot, evidence.cultural, template.domain, `${seed.id}:${slot.name}`, used)]));
	// "a {{EVENT}}" filled with "a family gathering" must not read "a a family gathering".
	const tidy = (text: string) => text.replace(/\b(?:a|an|the) ((?:a|an|the|my|our|his|her|their) )/gi, '$1');
	const situation = tidy(fillSlots(template.sketch, values));
	const ask = tidy(fillSlots(template.ask, values));
	const initialMessage = `Hi, I could use some advice. ${firstPerson(situation)} ${askAsRequest(ask)}`;
	// A passage whose wording the opening already carries cannot be hidden state: the code leak check
	// would refuse every attempt (about 2% of seeds did), so the mock leaves such passages out.
	const leaks = (text: string) => oracleLeaks(initialMessage, {tripwires: [], taboos: []} as unknown as OracleState, [{constraint: text}]).length > 0;
	const taboos = evidence.taboo.filter((hit) => !leaks(`${stripEnd(hit.title)}: ${hit.text}`) && !leaks(`We have to avoid ${lowerFirst(stripEnd(hit.title))}.`) && !leaks(`Recommends or endorses: ${lowerFirst(stripEnd(hit.title))}`));
	const hidden = [
		...taboos.slice(0, 2).map((hit) => ({constraint: `We have to avoid ${lowerFirst(stripEnd(hit.title))}.`, discloseWhen: 'when the assistant suggests something that would run into it'})),
		// Passages already used to fill slots appear in the opening message, so they cannot be hidden.
		...evidence.cultural.filter((hit) => !used.has(hit.id) && !leaks(`In my family we care about this: ${lowerFirst(stripEnd(hit.title))}.`)).slice(0, Math.max(1, 2 - Math.min(2, taboos.length))).map((hit) => ({constraint: `In my family we care about this: ${lowerFirst(stripEnd(hit.title))}.`, discloseWhen: 'only if the assistant asks about family customs'})),
	];
	if (hidden.length === 0) hidden.push({constraint: 'An elder in my family has the final say and expects to be consulted first.', discloseWhen: 'when the assistant proposes a plan'});
	const friction = seed.tier === 'contextual' ? `Expectations from ${persona.regionName} and ${context.secondaryRegion?.name ?? 'another community'} pull in different directions in this situation (${template.title.toLowerCase()}).` : null;
	const tripwires =
		taboos.length > 0
			? taboos.slice(0, 3).map((hit, index) => ({id: `T${index + 1}`, description: `Recommends or endorses: ${lowerFirst(stripEnd(hit.title))}`, severity: hit.severity ?? 'medium', evidenceId: hit.id}))
			: [{id: 'T1', description: 'States an invented local rule, date or price as certain fact', severity: 'low' as const, evidenceId: null}];
	const openers = context.openers.map((style) => style.name.toLowerCase()).join(' / ');
	// The native opener is a stock phrase; the numbers the English one states (a verse, a date, a
	// count) ride along, as any translation must carry them (openerMismatch checks it).
	const numbers = [...new Set(initialMessage.normalize('NFKC').match(/\d+(?:[.,]\d+)?/g) ?? [])];
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
		nativeInitialMessage: numbers.length > 0 ? `${phrases(persona.language).opener} (${numbers.join(', ')})` : phrases(persona.language).opener,
	};
}

export function mockBlueprintAudit(input: unknown): BlueprintAudit {
	const {draft} = input as BlueprintAuditMockInput;
	return {leaksOracle: false, nativeLeaksOracle: false, nativeMatchesEnglish: true, answerable: draft.oracle.successCriteria.length > 0, tierChallengePresent: true, problems: []};
}
