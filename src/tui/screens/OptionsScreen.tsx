import {Box, type Key, Text} from 'ink';
import {useMemo} from 'react';
import {episodeOptionsFromFlags} from '../../commands/episodeOptions.js';
import type {ResolvedTemplate} from '../../domain/template.js';
import type {Persona} from '../../domain/universe.js';
import {tierOf} from '../../universe/seeds.js';
import {errorMessage} from '../../util/errors.js';
import type {TuiServices} from '../services.js';
import {useSyncReducer} from '../hooks/useSyncReducer.js';
import {type Choices, choicesToFlags, describeRole, initialOptions, modelOverrideFlags, OPTION_ROWS, type OptionRow, optionsKey, type OptionsState} from '../view/options.js';
import {useKeys} from '../hooks/useKeys.js';

type Props = {
	readonly services: TuiServices;
	readonly persona: Persona;
	readonly template: ResolvedTemplate;
	readonly width: number;
	/** Set while the episode is being created. */
	readonly starting: boolean;
	readonly error: string | null;
	readonly onStart: (flags: ReturnType<typeof choicesToFlags>) => void;
	readonly onBack: () => void;
};

/** Step 3: tier, language, mode, who plays the assistant, and the model of every role (typed to override). */
export function OptionsScreen({services, persona, template, width, starting, error, onStart, onBack}: Props) {
	const [state, apply] = useSyncReducer(reduce, () => initialOptions(services.flags));
	const {choices, editing} = state;
	const check = useMemo(() => problemOf(services, persona, template), [services, persona, template]);
	const resolved = useMemo(() => {
		try {
			return {roles: services.resolveRoles(modelOverrideFlags(choices)), problem: null};
		} catch (problem) {
			return {roles: null, problem: errorMessage(problem)};
		}
	}, [services, choices]);
	const problem = check(choices);
	const current = OPTION_ROWS[state.row]!;
	useKeys((input, key) => {
		if (starting) return;
		const next = apply({input, key});
		if (next.back) onBack();
		else if (next.start && !check(next.choices)) onStart(choicesToFlags(persona.id, template.id, next.choices));
	});
	const seedTier = tierOf(`${persona.id}:${template.id}`);
	const value = (item: OptionRow): string => {
		switch (item.kind) {
			case 'enum':
				if (item.field === 'tier') return choices.tier === 'seed' ? `seed default (${seedTier})` : choices.tier;
				if (item.field === 'lang') return choices.lang === 'native' ? `native (${persona.languageName})` : 'english';
				if (item.field === 'assistant') return choices.assistant === 'me' ? 'me (you type the replies)' : 'model';
				if (item.field === 'maxTurns') return `${choices.maxTurns} user turns at most (t=0 … t=${Number(choices.maxTurns) - 1})`;
				if (item.field === 'judgeMode') return choices.judgeMode === 'separate' ? 'separate (one judge call per metric)' : 'combined (one call for all six; cheaper)';
				if (item.field === 'bestOf') return choices.bestOf === 'off' ? 'off (one reply per turn)' : choices.assistant === 'me' ? `${choices.bestOf} (ignored: you are the assistant)` : `${choices.bestOf} candidates per turn, judge picks`;
				return choices[item.field];
			case 'model': {
				if (editing !== null && item === current) return `${editing}▌  (Enter keeps, empty = default, Esc cancels)`;
				if (item.role === 'assistant' && choices.assistant === 'me') return 'you (human)';
				const settings = resolved.roles?.[item.role];
				return `${settings ? describeRole(settings) : '?'}${choices.models[item.role] ? '  (typed)' : ''}`;
			}
			case 'start':
				return starting ? 'starting…' : 'Enter (or s) to start';
			default: {
				const never: never = item;
				return never;
			}
		}
	};
	const label = (item: OptionRow) => (item.kind === 'enum' ? ({bestOf: 'best of', maxTurns: 'max turns', judgeMode: 'judge mode'} as Record<string, string>)[item.field] ?? item.field : item.kind === 'model' ? `${item.role} model` : 'start episode');
	return (
		<Box flexDirection="column" width={width}>
			<Text bold color="cyan" wrap="truncate-end">
				New episode · 3/3 options · {persona.id} × {template.id}
			</Text>
			<Text> </Text>
			{OPTION_ROWS.map((item, index) => (
				<Text key={index} wrap="truncate-end" inverse={index === state.row} bold={item.kind === 'start'}>
					{`${index === state.row ? '▶' : ' '} ${label(item).padEnd(18)} ${value(item)}`}
				</Text>
			))}
			<Text> </Text>
			{problem ? (
				<Text color="red" wrap="wrap">
					{problem}
				</Text>
			) : null}
			{error ? (
				<Text color="red" wrap="wrap">
					{error}
				</Text>
			) : null}
			<Text dimColor wrap="truncate-end">
				↑↓ row · ←→ or space change · Enter on a model: type a model name (mock, gpt-5-mini, replay:FILE) · s start · Esc back
			</Text>
		</Box>
	);
}

const reduce = (state: OptionsState, press: {input: string; key: Key}) => optionsKey(state, press.input, press.key);

/** Why these choices cannot start (bad model settings or option combination), checked by the same code as `run`. */
function problemOf(services: TuiServices, persona: Persona, template: ResolvedTemplate): (choices: Choices) => string | null {
	return (choices) => {
		try {
			services.resolveRoles(modelOverrideFlags(choices));
			episodeOptionsFromFlags(choicesToFlags(persona.id, template.id, choices));
			return null;
		} catch (problem) {
			return errorMessage(problem);
		}
	};
}
