import {Box, type Key, Text, useInput} from 'ink';
import {draftPresses} from '../hooks/useKeys.js';
import {useRef, useState} from 'react';
import {applyDraftKey} from '../text/draft.js';
import {wrapText} from '../text/wrap.js';

type Props = {
	readonly t: number;
	readonly width: number;
	/** Lines of draft text shown (the newest ones). */
	readonly maxLines: number;
	readonly focused: boolean;
	readonly onSend: (text: string) => void;
	readonly onBlur: () => void;
};

/** The multi-line box where the person playing the assistant writes the reply. */
export function HumanInput({t, width, maxLines, focused, onSend, onBlur}: Props) {
	// The ref, not the rendered state, is what keys edit: several keys can arrive before a re-render.
	const draftRef = useRef('');
	const [draft, setDraft] = useState('');
	const [hint, setHint] = useState<string | null>(null);
	const onKey = (input: string, key: Key) => {
		const result = applyDraftKey(draftRef.current, input, key);
		switch (result.kind) {
			case 'send':
				draftRef.current = '';
				setDraft('');
				setHint(null);
				onSend(result.text);
				return;
			case 'blur':
				onBlur();
				return;
			case 'empty':
				setHint('Nothing to send yet: type the reply first.');
				return;
			case 'edit':
				if (result.draft !== draftRef.current) {
					draftRef.current = result.draft;
					setDraft(result.draft);
					setHint(null);
				}
				return;
			default: {
				const never: never = result;
				return never;
			}
		}
	};
	useInput(
		(input, key) => {
			for (const [one, oneKey] of draftPresses(input, key)) onKey(one, oneKey);
		},
		{isActive: focused},
	);
	const lines = wrapText(`${draft}${focused ? '▌' : ''}`, Math.max(1, width - 4));
	const shown = lines.slice(-maxLines);
	while (shown.length < maxLines) shown.push('');
	return (
		<Box flexDirection="column" borderStyle="round" borderColor={focused ? 'yellow' : 'gray'} width={width} height={maxLines + 3} paddingX={1}>
			<Text wrap="truncate-end" color={focused ? 'yellow' : undefined} dimColor={!focused}>
				{hint ?? (focused ? `Your reply as the assistant (t=${t}) · Enter: new line · Enter on an empty line or Ctrl-S: send · Esc: leave the box` : `Reply box (t=${t}) · press e to type in it`)}
			</Text>
			{shown.map((text, index) => (
				<Text key={index} wrap="truncate-end">
					{text.length > 0 ? text : ' '}
				</Text>
			))}
		</Box>
	);
}
