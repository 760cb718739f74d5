import {Box, Text} from 'ink';
import {useKeys} from '../hooks/useKeys.js';
import {useTerminalSize} from '../hooks/useTerminalSize.js';
import {wrapText} from '../../util/wrap.js';

type Props = {
	readonly question: string;
	readonly active: boolean;
	readonly onAnswer: (yes: boolean) => void;
	/** Only y confirms (Enter declines too): for what cannot be undone, such as showing hidden state. @default false */
	readonly strict?: boolean;
};

/** Rows a question of this length takes in the box at a width (border included). */
export function confirmRows(question: string, columns: number, strict = false): number {
	return Math.min(4, wrapText(`${question} ${strict ? '(y/N)' : '(y/n)'}`, Math.max(1, columns - 4)).length) + 2;
}

/** A yes/no question; y (or Enter, unless strict) confirms, anything else declines. */
export function ConfirmBox({question, active, onAnswer, strict = false}: Props) {
	const {columns} = useTerminalSize();
	useKeys(
		(input, key) => {
			const yes = input === 'y' || input === 'Y' || (!strict && key.return);
			// After every region has seen this key: Ink may re-render as soon as the answer closes the box,
			// and the region under it would then take the same key (an Enter that declined would also type).
			queueMicrotask(() => onAnswer(yes));
		},
		{isActive: active},
	);
	const lines = wrapText(`${question} ${strict ? '(y/N)' : '(y/n)'}`, Math.max(1, columns - 4)).slice(0, 4);
	return (
		<Box borderStyle="round" borderColor="yellow" paddingX={1} flexDirection="column">
			{lines.map((line, index) => (
				<Text key={index} color="yellow" bold>
					{line}
				</Text>
			))}
		</Box>
	);
}
