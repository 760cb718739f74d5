import {Box, Text, useInput} from 'ink';
import {useMemo, useState} from 'react';
import type {ResolvedTemplate} from '../../domain/template.js';
import type {Persona} from '../../domain/universe.js';
import type {Universe} from '../../universe/load.js';
import {ListView} from '../components/ListView.js';
import {clamp} from '../text/scroll.js';
import {wrapText} from '../text/wrap.js';
import {templateColumns} from '../view/pickers.js';

type Props = {
	readonly universe: Universe;
	readonly persona: Persona;
	readonly width: number;
	readonly height: number;
	readonly onPick: (template: ResolvedTemplate) => void;
	readonly onBack: () => void;
};

/** Step 2: domain -> subdomain -> template, with a preview of the sketch and its slots; typing searches all templates. */
export function TemplatePicker({universe, persona, width, height, onPick, onBack}: Props) {
	const [column, setColumn] = useState(0);
	const [picks, setPicks] = useState<[number, number, number]>([0, 0, 0]);
	const [query, setQuery] = useState('');
	const columns = useMemo(() => templateColumns(universe, picks[0], picks[1], query), [universe, picks, query]);
	const lengths = [columns.domains.length, columns.subdomains.length, columns.templates.length];
	const at = (index: number) => clamp(picks[index as 0 | 1 | 2], 0, Math.max(0, lengths[index]! - 1));
	const active = query ? 2 : column;
	const setPick = (index: number, value: number) => {
		const next: [number, number, number] = [...picks];
		next[index] = clamp(value, 0, Math.max(0, lengths[index]! - 1));
		for (let later = index + 1; later < 3; later++) next[later] = 0;
		setPicks(next);
	};
	useInput((input, key) => {
		if (key.escape) {
			if (query) setQuery('');
			else onBack();
		} else if (key.upArrow) setPick(active, at(active) - 1);
		else if (key.downArrow) setPick(active, at(active) + 1);
		else if (key.leftArrow && !query) setColumn(Math.max(0, column - 1));
		else if (key.rightArrow && !query) setColumn(Math.min(2, column + 1));
		else if (key.return) {
			if (active < 2) setColumn(active + 1);
			else {
				const template = columns.templates[at(2)];
				if (template) onPick(template);
			}
		} else if (key.backspace || key.delete) setQuery((text) => text.slice(0, -1));
		else if (input && !key.ctrl && !key.meta && input >= ' ' && !key.tab) {
			setQuery((text) => text + input);
			setPicks([picks[0], picks[1], 0]);
		}
	});
	const listHeight = Math.max(3, Math.floor((height - 4) / 2));
	const third = Math.floor(width / 3);
	const template = columns.templates[at(2)];
	const previewWidth = Math.max(10, width - 2);
	const preview = template
		? [
				`${template.id} · ${template.title}`,
				...wrapText(`sketch: ${template.sketch}`, previewWidth, {hang: 2}),
				...wrapText(`ask: ${template.ask}`, previewWidth, {hang: 2}),
				'slots:',
				...template.slots.flatMap((slot) => wrapText(`{{${slot.name}}} ${slot.meaning}`, previewWidth, {indent: 2, hang: 2})),
				`dimensions: ${template.dimensions.join(', ')}`,
			]
		: ['(no template matches)'];
	return (
		<Box flexDirection="column" width={width} height={height}>
			<Text bold color="cyan" wrap="truncate-end">
				New episode · 2/3 template for {persona.id}
				<Text dimColor>{query ? `   search: ${query}` : '   type to search all templates'}</Text>
			</Text>
			<Box height={listHeight}>
				<ListView rows={columns.domains.map((d) => d.name)} selected={at(0)} height={listHeight} width={third} focused={active === 0} />
				<ListView rows={columns.subdomains.map((s) => s.name)} selected={at(1)} height={listHeight} width={third} focused={active === 1} />
				<ListView rows={columns.templates.map((t) => `${t.id.split('.').slice(-1)[0]} ${t.title}`)} selected={at(2)} height={listHeight} width={width - 2 * third} focused={active === 2} />
			</Box>
			<Box flexDirection="column" borderStyle="round" borderColor="gray" paddingX={1} height={height - listHeight - 2} overflow="hidden">
				{preview.slice(0, Math.max(0, height - listHeight - 4)).map((text, index) => (
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
