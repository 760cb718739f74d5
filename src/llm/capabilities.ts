import {readFileSync} from 'node:fs';
import path from 'node:path';
import {z} from 'zod';
import {ProviderPreset, type RoleSettings} from '../domain/session.js';
import {writeFileAtomic} from '../util/atomicWrite.js';
import {type Preset, STRUCTURED_MODES, type StructuredMode, grammarEnforced, presetOf} from './presets.js';

/**
 * What a server was found to do, once per endpoint and model: the one module that decides which
 * structured mode a call uses and whether `n`, streaming, `stream_options.include_usage` and
 * `reasoning_effort` are sent. `doctor` probes and records it; `run`, `batch` and the TUI read the
 * record (a file in the workspace), start from the provider preset's best mode where there is none,
 * and step down when a server refuses what the record says (a 400 that contradicts it), recording
 * what they learnt. Every call records the mode it was made in (`CallRecord.structuredMode`), and a
 * step down is said once as a notice.
 */

/** The negotiated profile of one role's endpoint and model, as calls and schema builders read it. */
export type Capabilities = {
	/** The structured mode calls use now. */
	readonly structured: StructuredMode;
	/** True when the server constrains that mode's output while decoding (so a schema's limits are enforced, not only checked after the reply). */
	readonly grammarEnforced: boolean;
	/** Several choices in one request: true (honoured), false (refused or ignored), null (not known yet). */
	readonly n: boolean | null;
	readonly stream: boolean | null;
	/** `stream_options: {include_usage: true}` accepted (false: streamed replies are counted locally). */
	readonly includeUsage: boolean | null;
	/** `reasoning_effort` accepted (null: not known, or the role sets none). */
	readonly reasoningEffort: boolean | null;
	/** Where the profile comes from: the preset's defaults, a `doctor` probe, or what a run learnt from a refusal. */
	readonly source: 'preset' | 'probed' | 'learned';
};

export const CapabilityRecord = z.strictObject({
	preset: ProviderPreset,
	baseURL: z.string().nullable(),
	model: z.string(),
	structured: z.enum(['json_schema_strict', 'json_schema', 'json_object', 'prompt']).optional(),
	n: z.boolean().optional(),
	stream: z.boolean().optional(),
	includeUsage: z.boolean().optional(),
	reasoningEffort: z.boolean().optional(),
	source: z.enum(['probed', 'learned']),
	checkedAt: z.string(),
	/** What the server said when it refused something (by capability), for `doctor` and the docs' "known limits". */
	refusals: z.record(z.string(), z.string()).optional(),
});
export type CapabilityRecord = z.infer<typeof CapabilityRecord>;

const CapabilityFile = z.strictObject({version: z.literal(1), entries: z.record(z.string(), CapabilityRecord)});

export type CapabilityPatch = Partial<Pick<CapabilityRecord, 'structured' | 'n' | 'stream' | 'includeUsage' | 'reasoningEffort'>> & {readonly refusal?: {readonly what: string; readonly message: string}};

export interface CapabilityStore {
	get(settings: RoleSettings): CapabilityRecord | null;
	/** Merges what was found into the record of the role's endpoint and model (and the file, when there is one). */
	learn(settings: RoleSettings, patch: CapabilityPatch, source: 'probed' | 'learned'): void;
}

/** The file `doctor` writes and runs read: `<workspace>/capabilities.json`. */
export function capabilitiesFile(workspaceDir: string): string {
	return path.join(workspaceDir, 'capabilities.json');
}

function keyOf(settings: Pick<RoleSettings, 'preset' | 'dialect' | 'baseURL' | 'model'>): string {
	return JSON.stringify([presetOf(settings).id, settings.baseURL, settings.model]);
}

/**
 * A store over `file` (null: in memory only, as `doctor --no-cache` or tests). The file is read once
 * and re-read before each write, so worker threads and parallel runs that learn different things
 * merge rather than overwrite; a missing or unreadable file is an empty one (it is a record of what
 * servers did, rebuilt by the next `doctor`).
 */
export function createCapabilityStore(file: string | null): CapabilityStore {
	let entries = file ? readEntries(file) : {};
	return {
		get: (settings) => entries[keyOf(settings)] ?? null,
		learn(settings, patch, source) {
			const key = keyOf(settings);
			if (file) entries = {...readEntries(file), ...entries};
			const before = entries[key];
			const {refusal, ...found} = patch;
			const refusals = refusal ? {...before?.refusals, [refusal.what]: refusal.message.slice(0, 500)} : before?.refusals;
			const next: CapabilityRecord = {
				...(before ?? {}),
				...found,
				preset: presetOf(settings).id,
				baseURL: settings.baseURL,
				model: settings.model,
				source,
				checkedAt: new Date().toISOString(),
				...(refusals ? {refusals} : {}),
			};
			entries = {...entries, [key]: next};
			if (!file) return;
			try {
				writeFileAtomic(file, `${JSON.stringify({version: 1, entries}, null, 2)}\n`);
			} catch {
				// A read-only workspace keeps what was learnt for this run only: the record is an optimisation.
			}
		},
	};
}

function readEntries(file: string): Record<string, CapabilityRecord> {
	try {
		const parsed = CapabilityFile.safeParse(JSON.parse(readFileSync(file, 'utf8')));
		return parsed.success ? parsed.data.entries : {};
	} catch {
		return {};
	}
}

/** The mode a hand-set `structured` names (json_schema is sent strict where the provider's ladder has strict). */
function handSet(mode: Exclude<RoleSettings['structured'], 'auto'>, preset: Preset): StructuredMode {
	if (mode !== 'json_schema') return mode;
	return preset.structured.includes('json_schema_strict') || !preset.structured.includes('json_schema') ? 'json_schema_strict' : 'json_schema';
}

/** The profile a role's calls use now: a hand-set mode, else the record's, else the preset's best. */
export function capabilitiesOf(settings: RoleSettings, record: CapabilityRecord | null): Capabilities {
	const preset = presetOf(settings);
	const structured = settings.structured !== 'auto' ? handSet(settings.structured, preset) : (record?.structured ?? preset.structured[0] ?? 'prompt');
	const n = record?.n ?? (settings.supportsN === false ? false : preset.n === 'yes' ? true : preset.n === 'refused' || preset.n === 'ignored' ? false : null);
	return {
		structured,
		grammarEnforced: grammarEnforced(preset, structured),
		n,
		stream: record?.stream ?? null,
		includeUsage: record?.includeUsage ?? null,
		reasoningEffort: record?.reasoningEffort ?? null,
		source: record ? record.source : 'preset',
	};
}

/**
 * The next mode to try after `mode` was refused: the next one on the provider's ladder, and
 * prompt-only (the schema spelled out in the messages, the reply validated and re-asked) at the end
 * of every ladder. Null when nothing weaker is left.
 */
export function nextMode(settings: Pick<RoleSettings, 'preset' | 'dialect' | 'baseURL'>, mode: StructuredMode): StructuredMode | null {
	const ladder = presetOf(settings).structured;
	const at = ladder.indexOf(mode);
	const rest = at === -1 ? STRUCTURED_MODES.slice(STRUCTURED_MODES.indexOf(mode) + 1).filter((candidate) => ladder.includes(candidate) || candidate === 'prompt') : ladder.slice(at + 1);
	return rest[0] ?? (mode === 'prompt' ? null : 'prompt');
}
