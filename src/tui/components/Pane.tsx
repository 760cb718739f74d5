import {Box, Text} from 'ink';
import {memo} from 'react';
import {slicesInWindow, visibleRange} from '../text/scroll.js';
import {PANE_CHROME_ROWS} from '../view/layout.js';
import type {PaneLayout} from '../../present/panes/lines.js';
import {BlockView} from './BlockView.js';

type Props = {
	readonly title: string;
	readonly focused: boolean;
	readonly width: number;
	readonly height: number;
	readonly layout: PaneLayout;
	/** First line shown (already clamped). */
	readonly offset: number;
	readonly color?: string;
};

/**
 * A bordered, titled pane that draws only the lines in its window: each block in view is a memoised
 * BlockView, so scrolling or streaming re-renders a handful of blocks, never the whole transcript.
 */
export const Pane = memo(function Pane({title, focused, width, height, layout, offset, color}: Props) {
	const bodyHeight = Math.max(1, height - PANE_CHROME_ROWS);
	const {from, to} = visibleRange(offset, bodyHeight, layout.total);
	const slices = slicesInWindow(layout.starts, layout.total, from, to);
	const more = to < layout.total ? ' ↓' : '';
	const position = layout.total > bodyHeight ? `${from + 1}-${to}/${layout.total}${more}` : '';
	return (
		// Focus is drawn in shapes as well as colour (a heavy border and a ▶ before the title), so it stays visible under NO_COLOR.
		<Box flexDirection="column" borderStyle={focused ? 'bold' : 'round'} borderColor={focused ? 'cyan' : 'gray'} width={width} height={height} paddingX={1}>
			<Box height={1} justifyContent="space-between">
				<Text bold color={color} inverse={focused} wrap="truncate-end">
					{focused ? `▶ ${title} ` : ` ${title} `}
				</Text>
				<Text dimColor>{position}</Text>
			</Box>
			<Box flexDirection="column" height={bodyHeight}>
				{slices.map((slice) => {
					const block = layout.blocks[slice.block]!;
					return <BlockView key={block.key} lines={block.lines} from={slice.from} to={slice.to} />;
				})}
			</Box>
		</Box>
	);
});
