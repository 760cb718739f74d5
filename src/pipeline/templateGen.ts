import {mkdirSync, writeFileSync, renameSync} from 'node:fs';
import path from 'node:path';
import {z} from 'zod';
import {Slot, SLOT_KIND_HELP, type Template} from '../domain/template.js';
import {renderPrompt} from '../llm/prompts.js';
import type {CallEvent, ModelGateway} from '../llm/types.js';
import {findCultureWord} from '../universe/cultureWords.js';
import type {SubdomainInfo, Universe} from '../universe/load.js';
import {slotProblems} from '../universe/templates.js';

/**
 * A slot as the generator writes it: structured outputs want every field present, so the optional
 * constraints are nullable there (null: does not apply) and dropped when the template is saved.
 */
const DraftSlot = Slot.extend({countable: z.boolean().nullable(), plural: z.boolean().nullable(), person: z.boolean().nullable()});

/** What the generator model writes; ids are assigned by code so they stay unique and stable. */
export const TemplateDraft = z.strictObject({
	title: z.string().min(3),
	sketch: z.string().min(20),
	ask: z.string().min(10),
	slots: z.array(DraftSlot).min(1).max(8),
	dimensions: z.array(z.string()).min(1).max(3),
});
export type TemplateDraft = z.infer<typeof TemplateDraft>;
export const TemplateBatch = z.strictObject({templates: z.array(TemplateDraft).min(1)});
export type TemplateBatch = z.infer<typeof TemplateBatch>;

export type TemplateGenMockInput = {readonly subdomain: SubdomainInfo; readonly count: number; readonly existing: readonly string[]; readonly dimensions: readonly string[]};

function words(text: string): Set<string> {
	return new Set((text.toLowerCase().match(/[a-z]+/g) ?? []).filter((word) => word.length > 3));
}

/** Jaccard similarity of the longer words of two sketches: near-duplicates score high. */
export function sketchSimilarity(a: string, b: string): number {
	const x = words(a);
	const y = words(b);
	let shared = 0;
	for (const word of x) if (y.has(word)) shared++;
	const union = x.size + y.size - shared;
	return union === 0 ? 0 : shared / union;
}

/** The kinds a slot may take, one per line, as the prompt lists them. */
export function slotKindList(): string {
	return Object.entries(SLOT_KIND_HELP).map(([kind, help]) => `  - ${kind}: ${help}`).join('\n');
}

export function draftProblems(draft: TemplateDraft, dimensions: ReadonlySet<string>): string[] {
	const problems = slotProblems({...draft, slots: draft.slots.map(savedSlot)}).map((problem) => `"${draft.title}": ${problem}`);
	const word = findCultureWord(`${draft.title}\n${draft.sketch}\n${draft.ask}`);
	if (word) problems.push(`"${draft.title}": culture-specific word '${word}'; move it into a slot`);
	for (const dimension of draft.dimensions) if (!dimensions.has(dimension)) problems.push(`"${draft.title}": unknown dimension '${dimension}'`);
	return problems;
}

/** A draft's slot as the templates file holds it: constraints that do not apply are left out. */
function savedSlot(slot: z.infer<typeof DraftSlot>): Slot {
	const {countable, plural, person, ...rest} = slot;
	return {...rest, ...(countable === null ? {} : {countable}), ...(plural === null ? {} : {plural}), ...(person === null ? {} : {person})};
}

export type GeneratedTemplates = {accepted: Template[]; rejected: Array<{title: string; reason: string}>; file: string | null};

/**
 * Stage 1: new culture-agnostic templates for one subdomain, validated like shipped ones and
 * deduplicated against every existing template of the subdomain (and each other).
 */
export async function generateTemplates(input: {universe: Universe; subdomain: SubdomainInfo; count: number; outDir: string; gateway: ModelGateway; onEvent?: (event: CallEvent) => void; now?: () => Date}): Promise<GeneratedTemplates> {
	const {universe, subdomain} = input;
	const existing = universe.templates.filter((template) => template.subdomain === subdomain.id);
	const dimensions = [...universe.dimensions];
	const response = await input.gateway.call({
		role: 'generator',
		stage: 'templates',
		prompt: renderPrompt('templates', {
			domain: subdomain.domain,
			subdomain: `${subdomain.id} (${subdomain.name})`,
			subdomain_description: subdomain.description,
			dimensions: dimensions.join(', '),
			existing_titles: existing.length > 0 ? existing.map((template) => `- ${template.title}: ${template.sketch}`).join('\n') : '(none yet)',
			count: String(input.count),
			slot_kinds: slotKindList(),
		}),
		schema: {name: 'templates', schema: TemplateBatch},
		validate: (batch) => batch.templates.flatMap((draft) => draftProblems(draft, universe.dimensions)),
		mock: {subdomain, count: input.count, existing: existing.map((template) => template.sketch), dimensions} satisfies TemplateGenMockInput,
		step: 0,
		onEvent: input.onEvent,
	});
	const accepted: Template[] = [];
	const rejected: Array<{title: string; reason: string}> = [];
	const taken = new Set(universe.templates.map((template) => template.id));
	let next = 1;
	const nextId = () => {
		while (taken.has(`${subdomain.id}.${String(next).padStart(2, '0')}`)) next++;
		const id = `${subdomain.id}.${String(next).padStart(2, '0')}`;
		taken.add(id);
		return id;
	};
	for (const draft of response.value.templates) {
		const problems = draftProblems(draft, universe.dimensions);
		if (problems.length > 0) {
			rejected.push({title: draft.title, reason: problems.join('; ')});
			continue;
		}
		const twin = [...existing, ...accepted].find((template) => sketchSimilarity(template.sketch, draft.sketch) >= 0.5 || template.title.toLowerCase() === draft.title.toLowerCase());
		if (twin) {
			rejected.push({title: draft.title, reason: `too close to ${twin.id} ("${twin.title}")`});
			continue;
		}
		accepted.push({id: nextId(), subdomain: subdomain.id, ...draft, slots: draft.slots.map(savedSlot)});
	}
	if (accepted.length === 0) return {accepted, rejected, file: null};
	mkdirSync(input.outDir, {recursive: true});
	const stamp = (input.now?.() ?? new Date()).toISOString().replace(/[-:.]/g, '').slice(0, 15);
	const file = path.join(input.outDir, `${subdomain.id}-${stamp}.json`);
	const tmp = `${file}.tmp`;
	writeFileSync(tmp, `${JSON.stringify({version: 1, templates: accepted}, null, 2)}\n`);
	renameSync(tmp, file);
	return {accepted, rejected, file};
}
