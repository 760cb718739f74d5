import type {PublicView} from '../../episode/views.js';
import {type Block, BlockCache, line} from './lines.js';

export type Streaming = {readonly t: number; readonly text: string};

export type PublicPaneInput = {
	/** The chat exactly as the assistant sees it: the only session state this pane can show. */
	readonly view: PublicView;
	/** Assistant text arriving token by token (not yet a turn). */
	readonly streaming: Streaming | null;
	/** The engine waits for the person playing the assistant. */
	readonly awaitingHuman: boolean;
	/** A closing user message exists (written after the end, never shown to the assistant): say so, with the pane that has it. */
	readonly closingNote?: boolean;
	/** What to do when the chat is empty. @default 'Press n to step the episode.' */
	readonly emptyHint?: string;
};

/**
 * The Public pane: the chat exactly as the assistant sees it (a PublicView), one block per message,
 * plus the reply that is streaming in. Turn numbers follow the engine's: user t counts from 0, an
 * assistant reply carries the t it answers.
 */
export function publicBlocks(input: PublicPaneInput, cache: BlockCache): Block[] {
	const {messages} = input.view;
	const blocks: Block[] = [];
	let t = -1;
	messages.forEach((message, index) => {
		if (message.role === 'user') t++;
		const turn = Math.max(0, t);
		blocks.push(
			cache.get(`msg-${index}`, [message.role, message.content, turn], () => [
				line(message.role === 'user' ? `USER · t=${turn}` : `ASSISTANT · t=${turn}`, message.role === 'user' ? 'user' : 'assistant', {bold: true}),
				line(message.content, 'normal', {indent: 2}),
				line(''),
			]),
		);
	});
	if (input.streaming) {
		const {t: live, text} = input.streaming;
		blocks.push(cache.get('live', [live, text], () => [line(`ASSISTANT · t=${live} (streaming…)`, 'assistant', {bold: true}), line(`${text}▌`, 'normal', {indent: 2})]));
	}
	if (input.awaitingHuman) blocks.push(cache.get('awaiting', [], () => [line('Your turn: type the assistant\'s reply in the box below.', 'accent', {bold: true})]));
	if (messages.length === 0 && !input.streaming) {
		const hint = input.emptyHint ?? 'Press n to step the episode.';
		blocks.push(cache.get('empty', [hint], () => [line('(no messages yet)', 'dim'), line('This pane shows the chat exactly as the assistant sees it.', 'dim'), line(hint, 'dim')]));
	}
	if (input.closingNote) {
		blocks.push(cache.get('closing-note', [], () => [line('The user\'s closing message came after the end and was never shown to the assistant (see Private).', 'dim')]));
	}
	return blocks;
}
