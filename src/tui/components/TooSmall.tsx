import {Box, Text} from 'ink';
import {useKeys} from '../hooks/useKeys.js';
import {MIN_COLUMNS, MIN_ROWS} from '../view/layout.js';

type Props = {readonly columns: number; readonly rows: number; readonly onQuit: () => void};

/** Shown instead of a broken layout when the terminal is below the smallest size the screens fit in. */
export function TooSmall({columns, rows, onQuit}: Props) {
	useKeys((input) => {
		if (input === 'q') onQuit();
	});
	return (
		<Box flexDirection="column">
			<Text color="yellow" bold wrap="truncate-end">
				Terminal too small
			</Text>
			<Text wrap="wrap">{`${columns}x${rows}; the episode screen needs at least ${MIN_COLUMNS}x${MIN_ROWS}. Enlarge the window (nothing is lost; the episode waits) or press q to quit.`}</Text>
		</Box>
	);
}
