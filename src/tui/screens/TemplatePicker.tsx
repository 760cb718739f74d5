import {Box, Text} from 'ink';
import {useCallback, useMemo} from 'react';
import type {ResolvedTemplate} from '../../domain/template.js';
import type {Persona} from '../../domain/universe.js';
import type {Universe} from '../../universe/load.js';
import {ListView} from '../components/ListView.js';
import {useSyncReducer} from '../hooks/useSyncReducer.js';
import {clamp} from '../text/scroll.js';
import {wrapText} from '../text/wrap.js';
import {activeColumn, initialTemplatePicker, type KeyPress, type TemplatePickerState, templatePickerKey} from '../view/pickerState.js';
import {templateColumns} from '../view/pickers.js';
import {useKeys} from '../hooks/useKeys.js';

type Props = {
	readonly universe: Universe;
	readonly persona: Persona;
	readonly width: number;
	readonly height: number;
	readonly onPick: (template: ResolvedTemplate) => void;
	readonly onBack: () => void;
};

function preview(template: ResolvedTemplate | undefined, width: number): string[] {
	if (!template) return ['(no template matches)'];
	return [
		`${template.id} · ${template.title}`,
		...wrapText(`sketch: ${template.sketch}`, width, {hang: 2}),
		...wrapText(`ask: ${template.ask}`, width, {hang: 2}),
		'slots:',
		...template.slots.flatMap((slot) => wrapText(`{{${slot.name}}} ${slot.meaning}`, width, {indent: 2, hang: 2})),
		`dimensions: ${template.dimensions.join(', ')}`,
	];
}

/** Step 2: domain -> subdomain -> template, with a preview of the sketch and its slots; typing searches all templates. */
export function TemplatePicker({universe, persona, width, height, onPick, onBack}: Props) {
	const reducer = useCallback((state: TemplatePickerState, press: KeyPress) => templatePickerKey(universe, state, press), [universe]);
	const [state, apply] = useSyncReducer(reducer, initialTemplatePicker);
	const columns = useMemo(() => templateColumns(universe, state.picks[0], state.picks[1], state.query), [universe, state.picks, state.query]);
	const lengths = [columns.domains.length, columns.subdomains.length, columns.templates.length];
	const at = (index: 0 | 1 | 2) => clamp(state.picks[index], 0, Math.max(0, lengths[index]! - 1));
	const active = activeColumn(state);
	const listHeight = Math.max(3, Math.floor((height - 4) / 2));
	useKeys((input, key) => {
		const next = apply({input, key, page: listHeight});
		if (next.back) onBack();
		else if (next.chosen) onPick(universe.templateById.get(next.chosen)!);
	});
	const third = Math.floor(width / 3);
	const lines = preview(columns.templates[at(2)], Math.max(10, width - 4));
	return (
		<Box flexDirection="column" width={width} height={height}>
			<Text bold color="cyan" wrap="truncate-end">
				New episode · 2/3 template for {persona.id}
				<Text dimColor>{state.query ? `   search: ${state.query}` : '   type to search all templates'}</Text>
			</Text>
			<Box height={listHeight}>
				<ListView rows={columns.domains.map((d) => d.name)} selected={at(0)} height={listHeight} width={third} focused={active === 0} />
				<ListView rows={columns.subdomains.map((s) => s.name)} selected={at(1)} height={listHeight} width={third} focused={active === 1} />
				<ListView rows={columns.templates.map((t) => `${t.id.split('.').slice(1).join('.')} ${t.title}`)} selected={at(2)} height={listHeight} width={width - 2 * third} focused={active === 2} />
			</Box>
			<Box flexDirection="column" borderStyle="round" borderColor="gray" paddingX={1} height={height - listHeight - 2} overflow="hidden">
				{lines.slice(0, Math.max(0, height - listHeight - 4)).map((text, index) => (
					<Text key={index} wrap="truncate-end" bold={index === 0}>
						{text || ' '}
					</Text>
				))}
			</Box>
			<Text dimColor wrap="truncate-end">
				↑↓ select · ←→ column · Enter next / choose · type to search · Esc clear / back
			</Text>
		</Box>
	);
}
