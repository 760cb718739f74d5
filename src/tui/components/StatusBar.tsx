import {Box, Text} from 'ink';
import {displayWidth, truncate} from '../text/width.js';
import {fitSegments, type Segment} from '../view/status.js';
import {toneProps} from './tone.js';

type Props = {readonly lines: readonly (readonly Segment[])[]; readonly width: number};

/**
 * Status lines: segments separated by bars, fitted to the width in a fixed order (view/status.ts
 * fitSegments: detail shortens, then drops; the phase and the call timer stay), cut only at the end.
 */
export function StatusBar({lines, width}: Props) {
	return (
		<Box flexDirection="column">
			{lines.map((segments, row) => {
				let room = width;
				return (
					<Text key={row} wrap="truncate-end">
						{fitSegments(segments, width).map((segment, index) => {
							const separator = index > 0 ? ' │ ' : '';
							const text = truncate(segment.text, Math.max(0, room - separator.length));
							room -= separator.length + displayWidth(text);
							return (
								<Text key={index}>
									{separator ? <Text dimColor>{separator}</Text> : null}
									<Text {...toneProps(segment.tone)}>{text}</Text>
								</Text>
							);
						})}
					</Text>
				);
			})}
		</Box>
	);
}
