import {Box, Text, useInput} from 'ink';
import {EPISODE_KEYS} from '../view/keys.js';

type Props = {readonly width: number; readonly height: number; readonly active: boolean; readonly onClose: () => void};

/** Every key of the episode screen (from view/keys.ts, which docs/tui.md also follows). */
export function HelpOverlay({width, height, active, onClose}: Props) {
	useInput(
		(input, key) => {
			if (key.escape || input === '?' || input === 'q' || key.return) onClose();
		},
		{isActive: active},
	);
	const lines: Array<{text: string; heading: boolean}> = [];
	for (const group of EPISODE_KEYS) {
		lines.push({text: group.title, heading: true});
		for (const key of group.keys) lines.push({text: `  ${key.keys.padEnd(16)} ${key.does}`, heading: false});
	}
	return (
		<Box flexDirection="column" borderStyle="double" borderColor="cyan" width={width} height={height} paddingX={1} overflow="hidden">
			<Text bold color="cyan">
				Keys · Esc, ? or q closes
			</Text>
			{lines.slice(0, Math.max(0, height - 3)).map((item, index) => (
				<Text key={index} wrap="truncate-end" bold={item.heading} color={item.heading ? 'blueBright' : undefined}>
					{item.text}
				</Text>
			))}
		</Box>
	);
}
