import {Text} from 'ink';
import {memo} from 'react';
import type {DisplayLine} from '../../present/panes/lines.js';
import {toneProps} from './tone.js';

/** Render counts, read by the benchmark and tests to show that unchanged blocks are skipped. */
export const renderStats = {blocks: 0};

type Props = {
	readonly lines: readonly DisplayLine[];
	/** Window of `lines` to draw: [from, to). */
	readonly from: number;
	readonly to: number;
};

/**
 * The visible lines of one block (a turn, a shard, a metric). Memoised: the wrapped-lines array is
 * cached per block and width, so a block whose text and window are unchanged is not rendered again
 * when another block (the streaming reply) changes.
 */
export const BlockView = memo(function BlockView({lines, from, to}: Props) {
	renderStats.blocks++;
	const out = [];
	for (let index = from; index < to; index++) {
		const item = lines[index]!;
		out.push(
			<Text key={index} wrap="truncate-end" bold={item.bold} {...toneProps(item.tone)}>
				{item.text.length > 0 ? item.text : ' '}
			</Text>,
		);
	}
	return <>{out}</>;
});
