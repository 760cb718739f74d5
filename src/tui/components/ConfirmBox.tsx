import {Box, Text} from 'ink';
import {useKeys} from '../hooks/useKeys.js';

type Props = {readonly question: string; readonly active: boolean; readonly onAnswer: (yes: boolean) => void};

/** A yes/no question; y or Enter confirms, anything else declines. */
export function ConfirmBox({question, active, onAnswer}: Props) {
	useKeys(
		(input, key) => {
			onAnswer(input === 'y' || input === 'Y' || key.return);
		},
		{isActive: active},
	);
	return (
		<Box borderStyle="round" borderColor="yellow" paddingX={1}>
			<Text wrap="truncate-end" color="yellow" bold>
				{question} (y/n)
			</Text>
		</Box>
	);
}
