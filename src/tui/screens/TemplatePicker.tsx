import {Box, Text} from 'ink';
import {useCallback, useMemo} from 'react';
import type {ResolvedTemplate} from '../../domain/template.js';
import type {Persona} from '../../domain/universe.js';
import type {Universe} from '../../universe/load.js';
import {ListView} from '../components/ListView.js';
import {useSyncReducer} from '../hooks/useSyncReducer.js';
import {clamp} from '../text/scroll.js';
import {wrapText} from '../../util/wrap.js';
import {displayWidth, fit, truncate} from '../text/width.js';
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

const domainName = (universe: Universe, template: ResolvedTemplate) => universe.domains.find((domain) => domain.subdomains.some((sub) => sub.id === template.subdomain))?.name ?? '';
const subdomainName = (universe: Universe, template: ResolvedTemplate) => universe.domains.flatMap((domain) => domain.subdomains).find((sub) => sub.id === template.subdomain)?.name ?? template.subdomain;

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
	// Domain and subdomain names are short: their columns take what the longest needs (a gap included), the titles the rest.
	const domainWidth = Math.min(Math.floor(width / 4), Math.max(8, ...columns.domains.map((d) => displayWidth(d.name) + 3)));
	const subdomainWidth = Math.min(Math.floor(width / 4), Math.max(8, ...columns.subdomains.map((d) => displayWidth(d.name) + 3), ...(state.query ? columns.templates.map((t) => displayWidth(subdomainName(universe, t)) + 1) : [])));
	const templateWidth = Math.max(10, width - domainWidth - subdomainWidth);
	const lines = preview(columns.templates[at(2)], Math.max(10, width - 4));
	// While searching, every row is one template with its own domain and subdomain (results come from many).
	const searchRows = columns.templates.map((t) => `${fit(domainName(universe, t), domainWidth - 3)} ${fit(subdomainName(universe, t), subdomainWidth - 1)} ${t.id.split('.').slice(1).join('.')} ${t.title}`);
	return (
		<Box flexDirection="column" width={width} height={height}>
			<Text bold color="cyan" wrap="truncate-end">
				New episode · 2/3 template for {persona.id}
				<Text dimColor>{state.query ? `   search: ${state.query}` : '   type to search all templates'}</Text>
			</Text>
			{state.query ? (
				<Box height={listHeight} flexDirection="column">
					<Text bold>{truncate(`  ${fit('DOMAIN', domainWidth - 3)} ${fit('SUBDOMAIN', subdomainWidth - 1)} TEMPLATE`, width)}</Text>
					<ListView rows={searchRows} selected={at(2)} height={listHeight - 1} width={width} focused empty="(no template matches)" />
				</Box>
			) : (
				<Box height={listHeight}>
					<ListView rows={columns.domains.map((d) => d.name)} selected={at(0)} height={listHeight} width={domainWidth - 1} focused={active === 0} />
					<Box width={1} />
					<ListView rows={columns.subdomains.map((sub) => sub.name)} selected={at(1)} height={listHeight} width={subdomainWidth - 1} focused={active === 1} />
					<Box width={1} />
					<ListView rows={columns.templates.map((t) => `${t.id.split('.').slice(1).join('.')} ${t.title}`)} selected={at(2)} height={listHeight} width={templateWidth} focused={active === 2} />
				</Box>
			)}
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
