import type {TemplateBatch, TemplateGenMockInput} from '../pipeline/templateGen.js';

import type {SlotKind} from '../domain/template.js';

/** The kind of each slot the shapes use, so mock templates validate like shipped ones. */
const KINDS: Readonly<Record<string, SlotKind>> = {TASK: 'ritual', KEY_PERSON: 'relation', DEADLINE: 'date', OTHER_HOUSEHOLD: 'relation', POINT_OF_DIFFERENCE: 'free', BUDGET: 'amount', NEW_PLACE: 'venue'};

const SHAPES = [
	{title: 'first time handling it', sketch: 'For the first time, someone is responsible for {{TASK}} and {{KEY_PERSON}} expects it done the proper way by {{DEADLINE}}.', ask: 'They ask for a step-by-step plan they can follow.'},
	{title: 'two households disagree', sketch: 'Someone must agree on {{TASK}} with {{OTHER_HOUSEHOLD}}, whose expectations differ from their own on {{POINT_OF_DIFFERENCE}}.', ask: 'They ask how to raise the difference politely and find a compromise.'},
	{title: 'tight budget', sketch: 'Someone wants to handle {{TASK}} properly but has only {{BUDGET}} to spend, and {{KEY_PERSON}} will notice if corners are cut.', ask: 'They ask which parts matter most and where they can save.'},
	{title: 'newcomer to the community', sketch: 'Someone recently moved to {{NEW_PLACE}} and is invited to take part in {{TASK}}, but does not know what newcomers are expected to do.', ask: 'They ask what to prepare and how to behave.'},
	{title: 'message to an elder', sketch: 'Someone has to tell {{KEY_PERSON}} about a change to {{TASK}}, and the way it is said matters as much as the news.', ask: 'They ask for wording for the message.'},
];

/** Offline template writer: structural variations on the subdomain, clearly marked as mock. */
export function mockTemplates(input: unknown): TemplateBatch {
	const {subdomain, count, dimensions} = input as TemplateGenMockInput;
	const templates = Array.from({length: Math.min(count, SHAPES.length)}, (_, index) => {
		const shape = SHAPES[index]!;
		const slotNames = [...new Set([...shape.sketch.matchAll(/\{\{([A-Z_]+)\}\}/g)].map((match) => match[1]!))];
		return {
			title: `${subdomain.name}: ${shape.title} (mock)`,
			sketch: shape.sketch,
			ask: shape.ask,
			slots: slotNames.map((name) => ({name, meaning: `${name.toLowerCase().replace(/_/g, ' ')} for ${subdomain.name.toLowerCase()}`, kind: KINDS[name] ?? 'free', countable: null, plural: null, person: name === 'KEY_PERSON' || name === 'OTHER_HOUSEHOLD' ? true : null})),
			dimensions: [dimensions[index % dimensions.length]!],
		};
	});
	return {templates};
}
