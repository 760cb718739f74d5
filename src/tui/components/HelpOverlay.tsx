import {Box, Text} from 'ink';
import {useState} from 'react';
import {useKeys} from '../hooks/useKeys.js';
import {clamp, pageSize} from '../text/scroll.js';
import {EPISODE_KEYS, type KeyGroup} from '../view/keys.js';
import {wrapText} from '../../util/wrap.js';

type Props = {readonly width: number; readonly height: number; readonly active: boolean; readonly onClose: () => void; readonly groups?: readonly KeyGroup[]};

type HelpLine = {readonly text: string; readonly heading: boolean};

/** The help as lines wrapped to `width`: a description that does not fit continues under itself, never cut. */
export const helpLines = (groups: readonly KeyGroup[], width = Number.MAX_SAFE_INTEGER): HelpLine[] =>
	groups.flatMap((group) => [{text: group.title, heading: true}, ...group.keys.flatMap((key) => wrapText(`  ${key.keys.padEnd(16)} ${key.does}`, Math.max(24, width), {hang: 19}).map((text) => ({text, heading: false})))]);

/** Every key of the episode screen (from view/keys.ts); two columns when they fit that way, and it scrolls when they do not fit at all. */
export function HelpOverlay({width, height, active, onClose, groups = EPISODE_KEYS}: Props) {
	const rows = Math.max(1, height - 3);
	// Two columns when one would scroll and each still gets 70 columns; the descriptions wrap to their column.
	const two = helpLines(groups, width - 4).length > rows && width >= 144;
	const split = two ? Math.ceil(groups.length / 2) : groups.length;
	const inner = two ? Math.floor((width - 4) / 2) - 1 : width - 4;
	const columns = [helpLines(groups.slice(0, split), inner), helpLines(groups.slice(split), inner)].filter((column) => column.length > 0);
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
