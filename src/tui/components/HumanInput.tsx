import {Box, Text, useStdin, useStdout} from 'ink';
import {useRef, useState} from 'react';
import {type EditorState, editKey, editorLines, editorOf} from '../text/editor.js';
import {useRawInput} from '../hooks/useRawInput.js';
import {editExternally, ENTER_ALT_SCREEN} from '../externalEditor.js';
import {displayWidth, truncate} from '../text/width.js';

/** The wrap width of the draft in a box `width` columns wide (border and padding). */
export const draftWidth = (width: number) => Math.max(2, width - 4);

/** Display lines of a draft in a box of this width: how tall the box wants to be. */
export const draftLineCount = (state: EditorState, width: number) => editorLines(state, draftWidth(width), true).lines.length;

/** The draft, kept by the screen so it survives the box closing and reopening; `get` is current between renders. */
export type DraftStore = {readonly state: EditorState; get(): EditorState; set(state: EditorState): void};

type Props = {
	readonly draft: DraftStore;
	/** The assistant turn being answered, or null while it is not the person's turn (the draft waits). */
	readonly t: number | null;
	readonly width: number;
	/** Lines of draft text shown (the ones around the cursor). */
	readonly maxLines: number;
	readonly focused: boolean;
	readonly onSend: (text: string) => void;
	readonly onBlur: () => void;
	/** PgUp / PgDn in the box scroll the chat above it. */
	readonly onScroll: (pages: number) => void;
	readonly env: NodeJS.ProcessEnv;
};

/** The multi-line box where the person playing the assistant writes the reply (text/editor.ts has the keys). */
export function HumanInput({draft, t, width, maxLines, focused, onSend, onBlur, onScroll, env}: Props) {
	const [hint, setHint] = useState<string | null>(null);
	const {stdin} = useStdin();
	const {write} = useStdout();
	// Read at key time: presses that arrive after the box lost focus (Esc, then more keys in the same
	// read, or before the listener is unsubscribed) are not the box's.
	const active = useRef(focused);
	active.current = focused;
	useRawInput(
		(press) => {
			if (!active.current) return;
			const result = editKey(draft.get(), press);
			switch (result.kind) {
				case 'edit':
					if (result.state !== draft.get()) {
						draft.set(result.state);
						setHint(null);
					}
					return;
				case 'send':
					if (t === null) {
						setHint('Not your turn yet: the user is still answering. Your draft waits here; Ctrl-S sends it once they have.');
						return;
					}
					draft.set(editorOf(''));
					setHint(null);
					onSend(result.text);
					return;
				case 'empty':
					setHint('Nothing to send yet: type the reply first.');
					return;
				case 'blur':
					active.current = false;
					onBlur();
					return;
				case 'scroll':
					onScroll(result.pages);
					return;
				case 'external': {
					const edited = editExternally(result.state.text, {env, setRawMode: (on) => (stdin.isTTY ? stdin.setRawMode(on) : undefined)});
					// The editor drew over the screen (and may have left the alternate screen): enter it again and redraw all.
					write(ENTER_ALT_SCREEN);
					if (edited.ok) {
						draft.set(editorOf(edited.text));
						setHint('Edited in your editor · Ctrl-S sends');
					} else setHint(edited.problem);
					return;
				}
				default: {
					const never: never = result;
					return never;
				}
			}
		},
		{isActive: focused},
	);
	const {lines, cursorLine} = editorLines(draft.state, draftWidth(width), focused);
	const first = Math.max(0, Math.min(cursorLine - maxLines + 1, lines.length - maxLines));
	const shown = lines.slice(first, first + maxLines);
	while (shown.length < maxLines) shown.push('');
	const below = Math.max(0, lines.length - first - maxLines);
	// A draft longer than the box says so: the lines out of view above and below the cursor's window.
	const more = [first > 0 ? `↑ ${first} more above` : '', below > 0 ? `↓ ${below} more below` : ''].filter(Boolean).join(' · ');
	const title =
		hint ??
		(!focused
			? `Reply box${t === null ? '' : ` (t=${t})`} · e types in it`
			: t === null
				? 'The user is answering… type ahead: your draft waits here · Esc leave the box'
				: `Your reply as the assistant (t=${t}) · Enter new line · Ctrl-S send · Ctrl-X $EDITOR · PgUp/PgDn scroll the chat · Esc leave`);
	const titleWidth = Math.max(1, width - 4 - (more ? displayWidth(more) + 3 : 0));
	return (
		<Box flexDirection="column" borderStyle="round" borderColor={focused ? 'yellow' : 'gray'} width={width} height={maxLines + 3} paddingX={1}>
			<Box height={1}>
				<Text color={focused ? 'yellow' : undefined} dimColor={!focused}>
					{truncate(title, titleWidth)}
				</Text>
				{more ? <Text color="cyan" bold>{` · ${more}`}</Text> : null}
			</Box>
			{shown.map((text, index) => (
				<Text key={index} wrap="truncate-end">
					{text.length > 0 ? truncate(text, draftWidth(width)) : ' '}
				</Text>
			))}
		</Box>
	);
}
