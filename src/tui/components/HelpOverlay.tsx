import {Box, Text} from 'ink';
import {useState} from 'react';
import {useKeys} from '../hooks/useKeys.js';
import {clamp, pageSize} from '../text/scroll.js';
import {EPISODE_KEYS, type KeyGroup} from '../view/keys.js';

type Props = {readonly width: number; readonly height: number; readonly active: boolean; readonly onClose: () => void; readonly groups?: readonly KeyGroup[]};

type HelpLine = {readonly text: string; readonly heading: boolean};

export const helpLines = (groups: readonly KeyGroup[]): HelpLine[] => groups.flatMap((group) => [{text: group.title, heading: true}, ...group.keys.map((key) => ({text: `  ${key.keys.padEnd(16)} ${key.does}`, heading: false}))]);

/** Every key of the episode screen (from view/keys.ts); two columns when they fit that way, and it scrolls when they do not fit at all. */
export function HelpOverlay({width, height, active, onClose, groups = EPISODE_KEYS}: Props) {
	const rows = Math.max(1, height - 3);
	const all = helpLines(groups);
	const split = all.length > rows && width >= 90 ? Math.ceil(groups.length / 2) : groups.length;
	const columns = [helpLines(groups.slice(0, split)), helpLines(groups.slice(split))].filter((column) => column.length > 0);
	const longest = Math.max(...columns.map((column) => column.length));
	const max = Math.max(0, longest - rows);
	const [offset, setOffset] = useState(0);
	const at = clamp(offset, 0, max);
	useKeys(
		(input, key) => {
			if (key.escape || input === '?' || input === 'q' || key.return) onClose();
			else if (key.upArrow || input === 'k') setOffset((value) => clamp(value - 1, 0, max));
			else if (key.downArrow || input === 'j') setOffset((value) => clamp(value + 1, 0, max));
			else if (key.pageUp) setOffset((value) => clamp(value - pageSize(rows), 0, max));
			else if (key.pageDown || input === ' ') setOffset((value) => clamp(value + pageSize(rows), 0, max));
		},
		{isActive: active},
	);
	const columnWidth = Math.floor((width - 4) / columns.length);
	return (
		<Box flexDirection="column" borderStyle="double" borderColor="cyan" width={width} height={height} paddingX={1} overflow="hidden">
			<Text bold color="cyan" wrap="truncate-end">
				{`Keys · Esc, ? or q closes${max > 0 ? ` · ↑↓ PgUp PgDn scroll (${at + 1}-${Math.min(longest, at + rows)}/${longest})` : ''}`}
			</Text>
			<Box flexDirection="row">
				{columns.map((column, index) => (
					<Box key={index} flexDirection="column" width={columnWidth}>
						{column.slice(at, at + rows).map((item, row) => (
							<Text key={row} wrap="truncate-end" bold={item.heading} color={item.heading ? 'blueBright' : undefined}>
								{item.text}
							</Text>
						))}
					</Box>
				))}
			</Box>
		</Box>
	);
}
