import {Box, Text} from 'ink';
import type {Segment} from '../view/status.js';
import {toneProps} from './tone.js';

type Props = {readonly lines: readonly (readonly Segment[])[]};

/** Status lines: segments separated by bars, cut at the terminal's edge. */
export function StatusBar({lines}: Props) {
	return (
		<Box flexDirection="column">
			{lines.map((segments, row) => (
				<Text key={row} wrap="truncate-end">
					{segments.map((segment, index) => (
						<Text key={index}>
							{index > 0 ? <Text dimColor> │ </Text> : null}
							<Text {...toneProps(segment.tone)}>{segment.text}</Text>
						</Text>
					))}
				</Text>
			))}
		</Box>
	);
}
