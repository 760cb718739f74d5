import {Box, Text} from 'ink';
import {pageStart} from '../text/scroll.js';
import {truncate} from '../text/width.js';

type Props = {
	readonly rows: readonly string[];
	readonly selected: number;
	readonly height: number;
	readonly width: number;
	/** Highlight the selection (the list has focus). */
	readonly focused?: boolean;
	readonly empty?: string;
};

/** A selectable list that draws only the page of rows holding the selection. */
export function ListView({rows, selected, height, width, focused = true, empty = '(nothing matches)'}: Props) {
	const first = pageStart(selected, height, rows.length);
	const shown = rows.slice(first, first + height);
	return (
		<Box flexDirection="column" height={height} width={width}>
			{rows.length === 0 ? <Text dimColor>{empty}</Text> : null}
			{shown.map((row, index) => {
				const isSelected = first + index === selected;
				return (
					<Text key={first + index} wrap="truncate-end" inverse={isSelected && focused} bold={isSelected} color={isSelected && !focused ? 'cyan' : undefined}>
						{truncate(`${isSelected ? '▶ ' : '  '}${row}`, width)}
					</Text>
				);
			})}
		</Box>
	);
}
