import {zodResponseFormat} from 'openai/helpers/zod';
import type {z} from 'zod';
import type {ChatMessage} from '../domain/session.js';
import type {StructuredMode} from './presets.js';
import {zodProblems} from '../util/errors.js';
import type {WireFormat} from './provider.js';
import {splitReasoning} from './reasoning.js';
import {PORTABLE_DROPS, type SchemaFidelity} from './schemaFidelity.js';
import type {StructuredSpec} from './types.js';

const NAME = /^[A-Za-z0-9_-]{1,64}$/;
const schemaCache = new WeakMap<z.ZodType, Partial<Record<SchemaFidelity, Readonly<Record<string, unknown>>>>>();

/**
 * The strict JSON schema sent for a zod schema (via openai's own `zodResponseFormat`, so what we
 * send is what the API expects: every field required, optional fields as nullable), at the given
 * fidelity (`llm/schemaFidelity.ts` decides which, from the server's kind): `enforced` keeps every
 * keyword zod wrote, `portable` leaves out what some endpoints refuse. Nothing is lost either way:
 * every reply is still validated against the full zod schema and re-asked with the problems.
 */
export function jsonSchemaFor(spec: StructuredSpec<unknown>, fidelity: SchemaFidelity = 'portable'): Readonly<Record<string, unknown>> {
	if (!NAME.test(spec.name)) throw new Error(`Structured call name '${spec.name}' must match ${NAME} (it is sent as json_schema.name).`);
	let cached = schemaCache.get(spec.schema);
	if (!cached) schemaCache.set(spec.schema, (cached = {}));
	let schema = cached[fidelity];
	if (!schema) {
		// zodResponseFormat's declared parameter type is tied to openai's zod typings; any zod 4 schema works at run time.
		const full = zodResponseFormat(spec.schema as Parameters<typeof zodResponseFormat>[0], spec.name).json_schema.schema as Record<string, unknown>;
		schema = cached[fidelity] = fidelity === 'enforced' ? full : portable(full);
	}
	return schema;
}

/** A copy of a JSON schema without the keywords a portable schema leaves out (walks schema nodes, not property names). */
export function portable(node: unknown): Record<string, unknown> {
	if (!node || typeof node !== 'object' || Array.isArray(node)) return node as Record<string, unknown>;
	const out: Record<string, unknown> = {...(node as Record<string, unknown>)};
	const types = Array.isArray(out['type']) ? out['type'] : [out['type']];
	if (types.includes('string')) for (const keyword of PORTABLE_DROPS) delete out[keyword];
	for (const key of ['properties', '$defs', 'definitions'] as const) {
		const map = out[key];
		if (map && typeof map === 'object') out[key] = Object.fromEntries(Object.entries(map).map(([name, child]) => [name, portable(child)]));
	}
	for (const key of ['items', 'additionalProperties', 'not'] as const) if (out[key] && typeof out[key] === 'object') out[key] = portable(out[key]);
	for (const key of ['anyOf', 'oneOf', 'allOf'] as const) if (Array.isArray(out[key])) out[key] = (out[key] as unknown[]).map(portable);
	return out;
}

/**
 * What goes on the wire for a structured mode (capabilities.ts chooses the mode; schema fidelity for
 * the mode's server is `jsonSchemaFor`'s business). Free text when there is no schema.
 */
export function wireFormat(spec: StructuredSpec<unknown> | undefined, mode: StructuredMode, fidelity: SchemaFidelity = 'portable'): WireFormat {
	if (!spec) return {type: 'text'};
	const jsonSchema = jsonSchemaFor(spec, fidelity);
	if (mode === 'json_schema_strict') return {type: 'json_schema', name: spec.name, jsonSchema};
	if (mode === 'json_schema') return {type: 'json_schema', name: spec.name, jsonSchema, strict: false};
	return {type: mode, name: spec.name, jsonSchema};
}

/** The structured mode a wire format stands for (the inverse of `wireFormat`), for records. */
export function modeOfFormat(format: WireFormat): StructuredMode | null {
	if (format.type === 'text') return null;
	if (format.type === 'json_schema') return format.strict === false ? 'json_schema' : 'json_schema_strict';
	return format.type;
}

/**
 * The conversation actually sent. For `json_object` and `prompt` the endpoint does not enforce the
 * schema, so it is spelled out in an extra system message placed after the prompt's own system
 * messages (json_object mode also requires the word "JSON" to appear in the messages).
 */
export function prepareMessages(messages: readonly ChatMessage[], format: WireFormat): ChatMessage[] {
	switch (format.type) {
		case 'text':
		case 'json_schema':
			return [...messages];
		case 'json_object':
		case 'prompt': {
			const instruction: ChatMessage = {role: 'system', content: schemaInstruction(format.name, format.jsonSchema)};
			const split = messages.findIndex((message) => message.role !== 'system');
			const at = split === -1 ? messages.length : split;
			return [...messages.slice(0, at), instruction, ...messages.slice(at)];
		}
		default:
			return assertNever(format);
	}
}

export function schemaInstruction(name: string, jsonSchema: Readonly<Record<string, unknown>>): string {
	return [
		`Reply with one JSON object (${name}) and nothing else: no prose, no comments.`,
		'It must conform to this JSON Schema; every property is required (use null where the schema allows it):',
		'```json',
		JSON.stringify(jsonSchema),
		'```',
	].join('\n');
}

export type ParseOutcome<T> = {readonly ok: true; readonly value: T} | {readonly ok: false; readonly problems: readonly string[]};

/**
 * Parses a structured reply and validates it with the zod schema, then the request's own checks.
 * Thinking blocks are removed first (a draft inside one is never the answer); of the top-level JSON
 * objects left, the last one that validates wins: models that write a draft and then the answer put
 * the answer last. Extraction is lenient in every mode (a model or proxy may wrap strict output in a
 * fence or prose too). When nothing validates, the problems are those of the last object.
 */
export function parseReply<T>(text: string, spec: StructuredSpec<T>, validate?: (value: T) => readonly string[]): ParseOutcome<T> {
	const candidates = jsonObjects(splitReasoning(text).content);
	if (candidates.length === 0) {
		const unclosed = text.includes('{');
		return {ok: false, problems: [unclosed ? 'the reply holds no complete JSON object (is it cut off?)' : 'the reply contains no JSON object']};
	}
	let problems: readonly string[] | null = null;
	for (let i = candidates.length - 1; i >= 0; i--) {
		const parsed = spec.schema.safeParse(candidates[i]!.value);
		const found = parsed.success ? (validate?.(parsed.data) ?? []) : zodProblems(parsed.error);
		if (parsed.success && found.length === 0) return {ok: true, value: parsed.data};
		problems ??= found;
	}
	return {ok: false, problems: problems ?? ['no JSON object in the reply validates']};
}

/**
 * Every top-level JSON object in `text`, in order, skipping prose and ``` fences around them. Braces
 * inside strings are ignored; a brace in prose ("{like this}") that opens no valid object is skipped.
 */
export function jsonObjects(text: string): Array<{readonly text: string; readonly value: unknown}> {
	const found: Array<{text: string; value: unknown}> = [];
	let start = text.indexOf('{');
	while (start !== -1) {
		const end = balancedEnd(text, start);
		if (end === -1) {
			// An unbalanced brace in prose: an object may still start further on.
			start = text.indexOf('{', start + 1);
			continue;
		}
		const candidate = text.slice(start, end + 1);
		try {
			const value: unknown = JSON.parse(candidate);
			found.push({text: candidate, value});
			start = text.indexOf('{', end + 1);
		} catch {
			start = text.indexOf('{', start + 1);
		}
	}
	return found;
}

/** The last top-level JSON object in `text` (see `jsonObjects`), or null when there is none. */
export function extractJson(text: string): string | null {
	const all = jsonObjects(text);
	return all.length > 0 ? all[all.length - 1]!.text : null;
}

/** Index of the brace closing the one at `start`, or -1 when the text ends first. */
function balancedEnd(text: string, start: number): number {
	let depth = 0;
	let inString = false;
	for (let i = start; i < text.length; i++) {
		const char = text[i];
		if (inString) {
			if (char === '\\') i++;
			else if (char === '"') inString = false;
		} else if (char === '"') inString = true;
		else if (char === '{') depth++;
		else if (char === '}' && --depth === 0) return i;
	}
	return -1;
}

/** The user message of a re-ask: every problem, then what to do. */
export function feedbackMessage(problems: readonly string[]): string {
	return [
		'Your previous reply cannot be used. Problems found:',
		...problems.map((problem) => `- ${problem}`),
		'',
		'Reply again with the complete corrected JSON object only.',
	].join('\n');
}

export function assertNever(value: never): never {
	throw new Error(`Unexpected value: ${JSON.stringify(value)}`);
}
