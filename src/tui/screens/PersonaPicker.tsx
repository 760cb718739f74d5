import {Box, Text, useInput} from 'ink';
import {useMemo, useState} from 'react';
import type {Persona} from '../../domain/universe.js';
import type {Universe} from '../../universe/load.js';
import {ListView} from '../components/ListView.js';
import {clamp} from '../text/scroll.js';
import {cycleFilter, FILTER_FIELDS, type FilterField, NO_FILTERS, type PersonaFilters, personaRow, visiblePersonas} from '../view/pickers.js';

type Focus = 'list' | FilterField;
const FOCUS_ORDER: readonly Focus[] = ['list', ...FILTER_FIELDS];

type Props = {readonly universe: Universe; readonly width: number; readonly height: number; readonly onPick: (persona: Persona) => void; readonly onBack: () => void};

/** Step 1 of a new episode: personas filtered by region, identity, age and gender, and by typing (fuzzy). */
export function PersonaPicker({universe, width, height, onPick, onBack}: Props) {
	const [filters, setFilters] = useState<PersonaFilters>(NO_FILTERS);
	const [query, setQuery] = useState('');
	const [focus, setFocus] = useState<Focus>('list');
	const [selected, setSelected] = useState(0);
	const personas = useMemo(() => visiblePersonas(universe, filters, query), [universe, filters, query]);
	const current = clamp(selected, 0, Math.max(0, personas.length - 1));
	const listHeight = Math.max(3, height - 8);

	useInput((input, key) => {
		if (key.escape) {
			if (query) setQuery('');
			else onBack();
		} else if (key.tab) {
			const index = FOCUS_ORDER.indexOf(focus);
			setFocus(FOCUS_ORDER[(index + (key.shift ? FOCUS_ORDER.length - 1 : 1)) % FOCUS_ORDER.length]!);
		} else if ((key.leftArrow || key.rightArrow) && focus !== 'list') {
			setFilters(cycleFilter(universe, filters, focus, key.leftArrow ? -1 : 1));
			setSelected(0);
		} else if (key.upArrow) setSelected(Math.max(0, current - 1));
		else if (key.downArrow) setSelected(Math.min(personas.length - 1, current + 1));
		else if (key.pageUp) setSelected(Math.max(0, current - listHeight));
		else if (key.pageDown) setSelected(Math.min(personas.length - 1, current + listHeight));
		else if (key.return) {
			const persona = personas[current];
			if (persona) onPick(persona);
		} else if (key.backspace || key.delete) {
			setQuery((text) => text.slice(0, -1));
			setSelected(0);
		} else if (input && !key.ctrl && !key.meta && input >= ' ') {
			setQuery((text) => text + input);
			setSelected(0);
		}
	});

	const chip = (field: FilterField) => (
		<Text key={field} inverse={focus === field} color={filters[field] ? 'cyan' : undefined}>
			{` ${field}: ${filters[field] ?? 'all'} `}
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
				search <Text color="yellow">{query}</Text>
				<Text inverse={focus === 'list'}> </Text>
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
