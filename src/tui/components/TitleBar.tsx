import {Box, Text} from 'ink';

type Props = {readonly text: string; readonly mode: 'live' | 'replay'; readonly width: number};

/** The title line: what is on screen, cut at the edge, with the LIVE / REPLAY marker always whole at the right. */
export function TitleBar({text, mode, width}: Props) {
	const marker = mode === 'live' ? ' LIVE' : ' REPLAY';
	return (
		<Box width={width} height={1}>
			<Box flexShrink={1} flexGrow={1}>
				<Text wrap="truncate-end" bold dimColor>
					{text}
				</Text>
			</Box>
			<Box flexShrink={0}>
				<Text bold color={mode === 'live' ? 'green' : 'magenta'}>
					{marker}
				</Text>
			</Box>
		</Box>
	);
}
