import type {Flags} from '../../commands/types.js';
import {ModelRole, type RoleSettings} from '../../domain/session.js';

/*
 * Step 3 of a new episode: the options, kept as choices and turned into the same flags `run` takes
 * (so the episode is started by exactly the code that starts a headless one).
 */

export type Choices = {
	readonly tier: 'seed' | 'standard' | 'contextual' | 'normative';
	readonly lang: 'english' | 'native';
	readonly mode: 'eval' | 'gold';
	readonly assistant: 'model' | 'me';
	/** Best-of-N candidates per assistant turn ('off' = one reply). */
	readonly bestOf: 'off' | '2' | '3' | '4' | '8';
	/** User turns at most (`--max-turns`). */
	readonly maxTurns: (typeof CHOICE_VALUES.maxTurns)[number];
	/** One judge call per metric, or one for all six (`--judge-mode`). */
	readonly judgeMode: 'separate' | 'combined';
	/** Model names typed per role (overrides of the resolved defaults). */
	readonly models: Readonly<Partial<Record<ModelRole, string>>>;
};

export const CHOICE_VALUES = {
	tier: ['seed', 'standard', 'contextual', 'normative'],
	lang: ['english', 'native'],
	mode: ['eval', 'gold'],
	assistant: ['model', 'me'],
	bestOf: ['off', '2', '3', '4', '8'],
	maxTurns: ['3', '4', '5', '6', '8', '10', '15', '20'],
	judgeMode: ['separate', 'combined'],
} as const;

export type EnumField = keyof typeof CHOICE_VALUES;
export type OptionRow = {readonly kind: 'enum'; readonly field: EnumField} | {readonly kind: 'model'; readonly role: ModelRole} | {readonly kind: 'start'};

export const OPTION_ROWS: readonly OptionRow[] = [
	{kind: 'enum', field: 'tier'},
	{kind: 'enum', field: 'lang'},
	{kind: 'enum', field: 'mode'},
	{kind: 'enum', field: 'assistant'},
	{kind: 'enum', field: 'maxTurns'},
	{kind: 'enum', field: 'judgeMode'},
	...ModelRole.options.map((role): OptionRow => ({kind: 'model', role})),
	{kind: 'enum', field: 'bestOf'},
	{kind: 'start'},
];

const pick = <T extends string>(value: unknown, options: readonly T[], fallback: T): T => (options.includes(value as T) ? (value as T) : fallback);

/** Choices preset from the command line (`tui --lang native --human`, model flags). */
export function initialChoices(flags: Flags): Choices {
	const models: Partial<Record<ModelRole, string>> = {};
	for (const role of ModelRole.options) {
		const value = flags[`${role}Model`];
		if (typeof value === 'string') models[role] = value;
	}
	return {
		tier: pick(flags['tier'], CHOICE_VALUES.tier, 'seed'),
		lang: pick(flags['lang'], CHOICE_VALUES.lang, 'english'),
		mode: pick(flags['mode'], CHOICE_VALUES.mode, 'eval'),
		assistant: flags['human'] ? 'me' : 'model',
		bestOf: pick(flags['bestOf'] === undefined ? 'off' : String(flags['bestOf']), CHOICE_VALUES.bestOf, 'off'),
		maxTurns: pick(flags['maxTurns'] === undefined ? '5' : String(flags['maxTurns']), CHOICE_VALUES.maxTurns, '5'),
		judgeMode: pick(flags['judgeMode'], CHOICE_VALUES.judgeMode, 'separate'),
		models,
	};
}

export function cycleChoice(choices: Choices, field: EnumField, delta: 1 | -1): Choices {
	const values = CHOICE_VALUES[field] as readonly string[];
	const index = values.indexOf(choices[field]);
	return {...choices, [field]: values[(index + delta + values.length) % values.length]};
}

/** The model flags of the typed overrides: `--simulator-model NAME` and so on. */
export function modelOverrideFlags(choices: Pick<Choices, 'models'>): Flags {
	const flags: Flags = {};
	for (const [role, model] of Object.entries(choices.models)) if (model) flags[`${role}Model`] = model;
	return flags;
}

/** The flags `run` would take for these choices. */
export function choicesToFlags(personaId: string, templateId: string, choices: Choices): Flags {
	return {
		persona: personaId,
		template: templateId,
		// undefined, not absent: "seed" must also override a --tier given on the command line.
		tier: choices.tier === 'seed' ? undefined : choices.tier,
		lang: choices.lang,
		mode: choices.mode,
		human: choices.assistant === 'me',
		// A person answers one reply at a time: best-of-N applies to a model assistant only.
		bestOf: choices.bestOf === 'off' || choices.assistant === 'me' ? undefined : Number(choices.bestOf),
		maxTurns: Number(choices.maxTurns),
		judgeMode: choices.judgeMode,
		...modelOverrideFlags(choices),
	};
}

/** "gpt-5-mini @ http://127.0.0.1:8080/v1", "mock (offline)", "replay:file.jsonl". */
export function describeRole(settings: RoleSettings): string {
	if (settings.provider === 'mock') return 'mock (offline)';
	if (settings.provider === 'replay') return `replay ${settings.replayFile ?? ''}`;
	return `${settings.model} @ ${settings.baseURL ?? 'api.openai.com'}`;
}

export type OptionsState = {
	readonly choices: Choices;
	readonly row: number;
	/** The model name being typed on a model row, or null. */
	readonly editing: string | null;
	/** Set by Enter on "start" or by s. */
	readonly start: boolean;
	readonly back: boolean;
};

export const initialOptions = (flags: Flags): OptionsState => ({choices: initialChoices(flags), row: OPTION_ROWS.length - 1, editing: null, start: false, back: false});

type KeyLike = {readonly upArrow?: boolean; readonly downArrow?: boolean; readonly leftArrow?: boolean; readonly rightArrow?: boolean; readonly return?: boolean; readonly escape?: boolean; readonly tab?: boolean; readonly backspace?: boolean; readonly delete?: boolean; readonly ctrl?: boolean; readonly meta?: boolean};

/** The options screen's keys: ↑↓ rows, ←→/space cycle, Enter types a model name or starts, Esc back. */
export function optionsKey(state: OptionsState, input: string, key: KeyLike): OptionsState {
	const s = {...state, start: false, back: false};
	const row = OPTION_ROWS[s.row]!;
	if (s.editing !== null && row.kind === 'model') {
		if (key.escape) return {...s, editing: null};
		if (key.return) return {...s, editing: null, choices: {...s.choices, models: {...s.choices.models, [row.role]: s.editing.trim() || undefined}}};
		if (key.backspace || key.delete) return {...s, editing: s.editing.slice(0, -1)};
		if (input && !key.ctrl && !key.meta && input >= ' ') return {...s, editing: s.editing + input};
		return s;
	}
	if (key.escape || input === 'b') return {...s, back: true};
	if (key.upArrow) return {...s, row: (s.row + OPTION_ROWS.length - 1) % OPTION_ROWS.length};
	if (key.downArrow || key.tab) return {...s, row: (s.row + 1) % OPTION_ROWS.length};
	if ((key.leftArrow || key.rightArrow || input === ' ') && row.kind === 'enum') return {...s, choices: cycleChoice(s.choices, row.field, key.leftArrow ? -1 : 1)};
	if (key.return && row.kind === 'model') return {...s, editing: s.choices.models[row.role] ?? ''};
	if ((key.return && row.kind === 'start') || input === 's') return {...s, start: true};
	return s;
}
