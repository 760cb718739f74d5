import {Box, Text} from 'ink';
import {PANE_TITLES, PANES, type PaneId} from '../view/layout.js';

type Props = {readonly active: PaneId};

/** The pane tabs of a narrow terminal. */
export function TabBar({active}: Props) {
	return (
		<Box height={1}>
			{PANES.map((pane, index) => (
				<Box key={pane} flexShrink={0}>
					<Text inverse={pane === active} bold={pane === active} color={pane === active ? 'cyan' : undefined}>
						{pane === active ? `[${index + 1} ${PANE_TITLES[pane]}]` : ` ${index + 1} ${PANE_TITLES[pane]} `}
					</Text>
				</Box>
			))}
			<Text dimColor wrap="truncate-end">
				{' Tab or 1/2/3 switches'}
			</Text>
		</Box>
	);
}
