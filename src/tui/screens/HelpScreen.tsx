import {Box, Text} from 'ink';
import {useState} from 'react';
import {EPISODE_KEYS, ITEM_KEYS} from '../view/keys.js';
import {clamp, pageSize} from '../text/scroll.js';
import {useKeys} from '../hooks/useKeys.js';

type Props = {readonly height: number; readonly onBack: () => void};

const ABOUT = [
	'An episode: persona x template -> KB evidence and a blueprint (public, private, oracle) -> 3-5 shards ->',
	'a simulated user and the assistant exchange turns -> a judge with oracle access scores six metrics.',
	'',
	'Episode screen panes:',
	'  Public   the chat exactly as the assistant sees it',
	'  Private  the simulated user: persona, current shard i/k, its decisions and style directives',
	'  Oracle   the judge only: criteria, taboos, tripwires, KB evidence, scores as they arrive',
	'',
	'Pickers: type to filter (fuzzy) · ↑↓ select · Enter choose · Tab next field · ←→ change a filter · Esc back',
	'Sessions: ↑↓ select · Enter replay · r resume (errored: retry the failed step) · / filter (words; model:NAME judge:NAME',
	'  3h>=4 tdq<3 clean:no status:error) · s sort · h hide judge scores (to rate unanchored) · m mark two, d compare · Esc back',
	'CRISP items (c on the home screen): ↑↓ select · Enter open an item round by round · Esc back',
	'',
];

/** What the TUI does and every key, from the home screen. */
export function HelpScreen({height, onBack}: Props) {
	const [offset, setOffset] = useState(0);
	const lines: Array<{text: string; bold?: boolean}> = ABOUT.map((text) => ({text}));
	for (const group of [...EPISODE_KEYS, ...ITEM_KEYS]) {
		lines.push({text: group.title, bold: true});
		for (const key of group.keys) lines.push({text: `  ${key.keys.padEnd(16)} ${key.does}`});
	}
	const rows = Math.max(1, height - 3);
	const max = Math.max(0, lines.length - rows);
	useKeys((input, key) => {
		if (key.escape || input === 'q' || input === 'b' || input === '?' || key.return) onBack();
		else if (key.upArrow || input === 'k') setOffset((at) => clamp(at - 1, 0, max));
		else if (key.downArrow || input === 'j') setOffset((at) => clamp(at + 1, 0, max));
		else if (key.pageUp) setOffset((at) => clamp(at - pageSize(rows), 0, max));
		else if (key.pageDown || input === ' ') setOffset((at) => clamp(at + pageSize(rows), 0, max));
	});
	return (
		<Box flexDirection="column" borderStyle="round" borderColor="cyan" paddingX={1} height={height} overflow="hidden">
			<Text bold color="cyan">
				{`Help · Esc back${max > 0 ? ` · ↑↓ PgUp PgDn scroll (${clamp(offset, 0, max) + 1}-${Math.min(lines.length, clamp(offset, 0, max) + rows)}/${lines.length})` : ''}`}
			</Text>
			{lines.slice(clamp(offset, 0, max), clamp(offset, 0, max) + rows).map((item, index) => (
				<Text key={index} bold={item.bold} wrap="truncate-end">
					{item.text || ' '}
				</Text>
			))}
		</Box>
	);
}
