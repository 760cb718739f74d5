import type {Template} from '../domain/template.js';

const PLACEHOLDER = /\{\{\s*([^{}]*?)\s*\}\}/g;

/** Every `{{NAME}}` in a text, in order of first appearance (malformed names included, for reporting). */
export function placeholders(text: string): string[] {
	const names: string[] = [];
	for (const match of text.matchAll(PLACEHOLDER)) {
		const name = match[1]!;
		if (!names.includes(name)) names.push(name);
	}
	return names;
}

/** Problems with a template's slots: undeclared placeholders, unused or duplicate declarations. */
export function slotProblems(template: Pick<Template, 'sketch' | 'ask' | 'title' | 'slots'>): string[] {
	const problems: string[] = [];
	const used = placeholders(`${template.title}\n${template.sketch}\n${template.ask}`);
	const declared = template.slots.map((slot) => slot.name);
	for (const name of used) {
		if (!/^[A-Z][A-Z0-9_]*$/.test(name)) problems.push(`placeholder {{${name}}} is not an UPPER_SNAKE_CASE slot name`);
		else if (!declared.includes(name)) problems.push(`placeholder {{${name}}} is used but not declared in slots`);
	}
	// A person is a relation or a title; a person-marked date would be filled with "my aunt".
	for (const slot of template.slots) if (slot.person && slot.kind !== 'relation' && slot.kind !== 'title') problems.push(`slot ${slot.name} is marked person but its kind is '${slot.kind}' (use relation or title)`);
	const seen = new Set<string>();
	for (const name of declared) {
		if (seen.has(name)) problems.push(`slot ${name} is declared twice`);
		seen.add(name);
		if (!used.includes(name)) problems.push(`slot ${name} is declared but never used in the sketch or ask`);
	}
	return problems;
}

/** Replaces `{{NAME}}` with values; unknown names are left visible so a missing fill is never silent. */
export function fillSlots(text: string, values: Readonly<Record<string, string>>): string {
	return text.replace(PLACEHOLDER, (whole, name: string) => values[name] ?? whole);
}
