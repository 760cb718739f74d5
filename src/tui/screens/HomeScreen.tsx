import {Box, Text} from 'ink';
import {useState} from 'react';
import type {Universe} from '../../universe/load.js';
import {ListView} from '../components/ListView.js';
import {useKeys} from '../hooks/useKeys.js';

export type HomeChoice = 'new' | 'sessions' | 'items' | 'help' | 'quit';

const ITEMS: ReadonlyArray<{readonly choice: HomeChoice; readonly key: string; readonly label: string}> = [
	{choice: 'new', key: 'n', label: 'New episode: pick a persona, a template and options'},
	{choice: 'sessions', key: 's', label: 'Saved sessions: replay, or resume an unfinished one'},
	{choice: 'items', key: 'c', label: 'CRISP items: situated decision items, round by round (built with `crisp build`)'},
	{choice: 'help', key: '?', label: 'Help: what the screens show and every key'},
	{choice: 'quit', key: 'q', label: 'Quit'},
];

type Props = {readonly universe: Universe; readonly sessionsDir: string; readonly width: number; readonly onChoose: (choice: HomeChoice) => void};

/** The first screen of `cultureconverse` on a terminal. */
export function HomeScreen({universe, sessionsDir, width, onChoose}: Props) {
	const [selected, setSelected] = useState(0);
	useKeys((input, key) => {
		const direct = ITEMS.find((item) => item.key === input);
		if (direct) onChoose(direct.choice);
		else if (key.upArrow || input === 'k') setSelected((index) => (index + ITEMS.length - 1) % ITEMS.length);
		else if (key.downArrow || input === 'j') setSelected((index) => (index + 1) % ITEMS.length);
		else if (key.return) onChoose(ITEMS[selected]!.choice);
		else if (key.escape) onChoose('quit');
	});
	return (
		<Box flexDirection="column" borderStyle="round" borderColor="cyan" paddingX={1} width={Math.min(width, 100)}>
			<Text bold color="cyan">
				cultureconverse
			</Text>
			<Text wrap="wrap">Simulate, step through and score culturally grounded multi-turn assistant dialogues.</Text>
			<Text dimColor wrap="truncate-end">
				{universe.regions.size} regions · {universe.identities.length} identities · {universe.personas.length} personas · {universe.domains.length} domains · {universe.subdomainById.size} subdomains · {universe.templates.length} templates
			</Text>
			<Text dimColor wrap="truncate-end">
				sessions: {sessionsDir}
			</Text>
			<Text> </Text>
			<ListView rows={ITEMS.map((item) => `${item.key}  ${item.label}`)} selected={selected} height={ITEMS.length} width={Math.min(width, 100) - 4} />
			<Text> </Text>
			<Text dimColor>↑↓ Enter choose · n s c ? q directly</Text>
			<Text dimColor wrap="wrap">
				From the shell: npx cultureconverse batch (many episodes, resumable) · report (tables with CIs) · export sft|pairs (training data) · crisp (situated decision items)
			</Text>
		</Box>
	);
}
