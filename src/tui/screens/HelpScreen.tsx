import {Box, Text} from 'ink';
import {EPISODE_KEYS} from '../view/keys.js';
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
	'Sessions: ↑↓ select · Enter replay · r resume an unfinished one · / filter · s sort · Esc back',
	'CRISP items (c on the home screen): ↑↓ select · Enter open an item round by round · Esc back',
	'',
];

/** What the TUI does and every key, from the home screen. */
export function HelpScreen({height, onBack}: Props) {
	useKeys((input, key) => {
		if (key.escape || input === 'q' || input === 'b' || input === '?' || key.return) onBack();
	});
	const lines: Array<{text: string; bold?: boolean}> = ABOUT.map((text) => ({text}));
	for (const group of EPISODE_KEYS) {
		lines.push({text: group.title, bold: true});
		for (const key of group.keys) lines.push({text: `  ${key.keys.padEnd(16)} ${key.does}`});
	}
	return (
		<Box flexDirection="column" borderStyle="round" borderColor="cyan" paddingX={1} height={height} overflow="hidden">
			<Text bold color="cyan">
				Help · Esc back
			</Text>
			{lines.slice(0, Math.max(0, height - 3)).map((item, index) => (
				<Text key={index} bold={item.bold} wrap="truncate-end">
					{item.text || ' '}
				</Text>
			))}
		</Box>
	);
}
