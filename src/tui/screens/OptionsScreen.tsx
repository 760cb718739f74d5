import {Box, Text, useInput} from 'ink';
import {useMemo, useState} from 'react';
import {episodeOptionsFromFlags} from '../../app/episodes.js';
import type {ResolvedTemplate} from '../../domain/template.js';
import type {Persona} from '../../domain/universe.js';
import {tierOf} from '../../universe/seeds.js';
import {errorMessage} from '../../util/errors.js';
import type {TuiServices} from '../services.js';
import {type Choices, choicesToFlags, cycleChoice, describeRole, initialChoices, modelOverrideFlags, OPTION_ROWS} from '../view/options.js';

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
	const [choices, setChoices] = useState<Choices>(() => initialChoices(services.flags));
	const [row, setRow] = useState(OPTION_ROWS.length - 1);
	const [editing, setEditing] = useState<string | null>(null);
	const flags = choicesToFlags(persona.id, template.id, choices);
	const resolved = useMemo(() => {
		try {
			return {roles: services.resolveRoles(modelOverrideFlags(choices)), problem: null};
		} catch (problem) {
			return {roles: null, problem: errorMessage(problem)};
		}
	}, [services, choices]);
	let problem = resolved.problem;
	try {
		episodeOptionsFromFlags(flags);
	} catch (invalid) {
		problem = errorMessage(invalid);
	}
	const current = OPTION_ROWS[row]!;
	useInput((input, key) => {
		if (starting) return;
		if (editing !== null && current.kind === 'model') {
			if (key.escape) setEditing(null);
			else if (key.return) {
				setChoices({...choices, models: {...choices.models, [current.role]: editing.trim() || undefined}});
				setEditing(null);
			} else if (key.backspace || key.delete) setEditing(editing.slice(0, -1));
			else if (input && !key.ctrl && !key.meta && input >= ' ') setEditing(editing + input);
			return;
		}
		if (key.escape || input === 'b') onBack();
		else if (key.upArrow) setRow((row + OPTION_ROWS.length - 1) % OPTION_ROWS.length);
		else if (key.downArrow || key.tab) setRow((row + 1) % OPTION_ROWS.length);
		else if ((key.leftArrow || key.rightArrow || input === ' ') && current.kind === 'enum') setChoices(cycleChoice(choices, current.field, key.leftArrow ? -1 : 1));
		else if (key.return && current.kind === 'model') setEditing(choices.models[current.role] ?? '');
		else if ((key.return && current.kind === 'start') || input === 's') {
			if (!problem) onStart(flags);
		}
	});
	const seedTier = tierOf(`${persona.id}:${template.id}`);
	const value = (item: (typeof OPTION_ROWS)[number]): string => {
		switch (item.kind) {
			case 'enum':
				if (item.field === 'tier') return choices.tier === 'seed' ? `seed default (${seedTier})` : choices.tier;
				if (item.field === 'lang') return choices.lang === 'native' ? `native (${persona.languageName})` : 'english';
				if (item.field === 'assistant') return choices.assistant === 'me' ? 'me (you type the replies)' : 'model';
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
	const label = (item: (typeof OPTION_ROWS)[number]) => (item.kind === 'enum' ? item.field : item.kind === 'model' ? `${item.role} model` : '▶ start episode');
	return (
		<Box flexDirection="column" width={width}>
			<Text bold color="cyan" wrap="truncate-end">
				New episode · 3/3 options · {persona.id} × {template.id}
			</Text>
			<Text> </Text>
			{OPTION_ROWS.map((item, index) => (
				<Text key={index} wrap="truncate-end" inverse={index === row} bold={item.kind === 'start'}>
					{`${index === row ? '▶' : ' '} ${label(item).padEnd(18)} ${value(item)}`}
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
