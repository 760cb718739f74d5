import type {RoleSettings} from '../domain/session.js';
import type {ServerKind} from './endpoint.js';
import {type StructuredMode, presetOf} from './presets.js';

/**
 * How much of a reply's JSON schema is sent, the one rule for it (issue 24, item 6). A server whose
 * structured mode enforces a keyword by constrained decoding should get it: a length limit or a
 * bound it enforces is a re-ask that never happens. A server that refuses a keyword must not get it.
 * Either way every reply is validated against the full zod schema afterwards and re-asked with its
 * problems, so a keyword left out costs re-asks, never correctness.
 *
 * - `portable`: what every strict-mode dialect accepts: string length limits (`minLength`,
 *   `maxLength`) are left out; enums, patterns, integer bounds and array bounds stay.
 * - `enforced`: the schema as zod makes it, with every keyword.
 */
export type SchemaFidelity = 'portable' | 'enforced';
export const SCHEMA_FIDELITIES = ['portable', 'enforced'] as const;

/** Keywords a `portable` schema leaves out (walked over schema nodes, never property names). */
export const PORTABLE_DROPS = ['minLength', 'maxLength'] as const;

/**
 * What each kind of server's structured mode does with the keywords this tool's schemas use, as the
 * servers document it:
 * - llama.cpp (`grammars/README.md`, "JSON Schemas → GBNF"): `response_format` json_schema becomes a
 *   grammar; it enforces `enum`, `pattern` (anchored), `minLength`/`maxLength`, `minItems`/`maxItems`
 *   and `minimum`/`maximum` on integers (not on `number`: skipped silently, so they are validated
 *   after); unsupported keywords are skipped, never refused.
 * - vLLM (structured outputs: xgrammar, falling back to guidance/outlines for what xgrammar lacks):
 *   length limits, bounds and enums are enforced.
 * - OpenAI strict mode (Structured Outputs, "Supported properties"): strings `pattern` and `format`,
 *   numbers `minimum`/`maximum`/`multipleOf`, arrays `minItems`/`maxItems`, enums; `minLength` and
 *   `maxLength` are not in the list, and older snapshots and fine-tuned models refuse more: portable.
 * - Ollama, OpenRouter (routes to many providers), Azure and servers of unknown kind: portable.
 */
export function fidelityForServer(server: ServerKind | null, mode: StructuredMode): SchemaFidelity {
	// In json_object and prompt modes the schema is only text in the prompt: no server parses it, and
	// the limits tell the model what is wanted.
	if (mode !== 'json_schema' && mode !== 'json_schema_strict') return 'enforced';
	return server === 'llamacpp' || server === 'vllm' ? 'enforced' : 'portable';
}

/** Server kinds learned from the endpoints' own answers this run (`GET /models`), by base URL. */
const learned = new Map<string, ServerKind>();

/** Records what an endpoint said it is (called where `GET /models` is read: preflight and doctor). */
export function noteServerKind(baseURL: string | null, server: ServerKind): void {
	if (baseURL && server !== 'compatible') learned.set(normalise(baseURL), server);
}

/**
 * The kind of server behind a role: its provider preset when one is set or known by the host
 * (`--provider llamacpp` says it for every thread and process), else what its model list said this
 * run, else null (an OpenAI-compatible server of no known kind).
 */
export function serverKindOf(settings: Pick<RoleSettings, 'baseURL' | 'preset' | 'dialect'>): ServerKind | null {
	const preset = presetOf(settings).id;
	if (preset !== 'compatible') return preset;
	const known = settings.baseURL ? learned.get(normalise(settings.baseURL)) : undefined;
	return known ?? null;
}

/**
 * The fidelity of one role's structured calls in `mode` (the negotiated mode, capabilities.ts): the
 * role's `schemaFidelity` when set (config file or bench), else decided from its server's kind and
 * the mode. With `--no-preflight` and no `--provider`, a loopback llama.cpp server is of unknown
 * kind, so its schemas are portable.
 */
export function schemaFidelity(settings: Pick<RoleSettings, 'baseURL' | 'preset' | 'dialect' | 'schemaFidelity'>, mode: StructuredMode): SchemaFidelity {
	return settings.schemaFidelity ?? fidelityForServer(serverKindOf(settings), mode);
}

function normalise(baseURL: string): string {
	return baseURL.replace(/\/+$/, '');
}
