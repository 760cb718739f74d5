import {Box, Text} from 'ink';
import {useCallback, useMemo} from 'react';
import type {Persona} from '../../domain/universe.js';
import type {Universe} from '../../universe/load.js';
import {ListView} from '../components/ListView.js';
import {useSyncReducer} from '../hooks/useSyncReducer.js';
import {clamp} from '../text/scroll.js';
import {initialPersonaPicker, type KeyPress, personaPickerKey} from '../view/pickerState.js';
import {FILTER_FIELDS, type FilterField, personaRow, visiblePersonas} from '../view/pickers.js';
import {useKeys} from '../hooks/useKeys.js';

type Props = {readonly universe: Universe; readonly width: number; readonly height: number; readonly onPick: (persona: Persona) => void; readonly onBack: () => void};

/** Step 1 of a new episode: personas filtered by region, identity, age and gender, and by typing (fuzzy). */
export function PersonaPicker({universe, width, height, onPick, onBack}: Props) {
	const reducer = useCallback((state: ReturnType<typeof initialPersonaPicker>, press: KeyPress) => personaPickerKey(universe, state, press), [universe]);
	const [state, apply] = useSyncReducer(reducer, initialPersonaPicker);
	const personas = useMemo(() => visiblePersonas(universe, state.filters, state.query), [universe, state.filters, state.query]);
	const current = clamp(state.selected, 0, Math.max(0, personas.length - 1));
	const listHeight = Math.max(3, height - 8);

	useKeys((input, key) => {
		const next = apply({input, key, page: listHeight});
		if (next.back) onBack();
		else if (next.chosen) onPick(universe.personaById.get(next.chosen)!);
	});

	const chip = (field: FilterField) => (
		<Text key={field} inverse={state.focus === field} color={state.filters[field] ? 'cyan' : undefined}>
			{` ${field}: ${state.filters[field] ?? 'all'} `}
		</Text>
	);
	const persona = personas[current];
	return (
		<Box flexDirection="column" width={width} height={height}>
			<Text bold color="cyan">
				New episode · 1/3 persona
			</Text>
			<Box>
				<Text>filters </Text>
				{FILTER_FIELDS.map(chip)}
			</Box>
			<Text>
				search <Text color="yellow">{state.query}</Text>
				<Text inverse={state.focus === 'list'}> </Text>
				<Text dimColor>{`  ${personas.length}/${universe.personas.length} personas`}</Text>
			</Text>
			<ListView rows={personas.map(personaRow)} selected={current} height={listHeight} width={width} />
			<Text dimColor wrap="truncate-end">
				{persona ? `tags: ${persona.tags.join(' ')}` : ' '}
			</Text>
			<Text dimColor wrap="truncate-end">
				type to search (fuzzy) · ↑↓ PgUp PgDn select · Enter choose · Tab filter field, ←→ change it · Esc clear / back
			</Text>
		</Box>
	);
}
