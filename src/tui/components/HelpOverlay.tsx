import {Box, Text} from 'ink';
import {useKeys} from '../hooks/useKeys.js';
import {EPISODE_KEYS, type KeyGroup} from '../view/keys.js';

type Props = {readonly width: number; readonly height: number; readonly active: boolean; readonly onClose: () => void};

type HelpLine = {readonly text: string; readonly heading: boolean};

const linesOf = (groups: readonly KeyGroup[]): HelpLine[] => groups.flatMap((group) => [{text: group.title, heading: true}, ...group.keys.map((key) => ({text: `  ${key.keys.padEnd(16)} ${key.does}`, heading: false}))]);

/** Every key of the episode screen (from view/keys.ts, which docs/tui.md also follows); two columns when it would not fit in one. */
export function HelpOverlay({width, height, active, onClose}: Props) {
	useKeys(
		(input, key) => {
			if (key.escape || input === '?' || input === 'q' || key.return) onClose();
		},
		{isActive: active},
	);
	const rows = Math.max(1, height - 3);
	const all = linesOf(EPISODE_KEYS);
	const split = all.length > rows && width >= 90 ? Math.ceil(EPISODE_KEYS.length / 2) : EPISODE_KEYS.length;
	const columns = [linesOf(EPISODE_KEYS.slice(0, split)), linesOf(EPISODE_KEYS.slice(split))].filter((column) => column.length > 0);
	const columnWidth = Math.floor((width - 4) / columns.length);
	return (
		<Box flexDirection="column" borderStyle="double" borderColor="cyan" width={width} height={height} paddingX={1} overflow="hidden">
			<Text bold color="cyan">
				Keys · Esc, ? or q closes
			</Text>
			<Box flexDirection="row">
				{columns.map((column, index) => (
					<Box key={index} flexDirection="column" width={columnWidth}>
						{column.slice(0, rows).map((item, row) => (
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
