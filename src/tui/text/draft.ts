/*
 * The human assistant's reply box as a pure function of key presses. Scheme: Enter adds a line;
 * Enter on an empty line sends (so does Ctrl-S); Backspace deletes; Esc leaves the box. Pasted text
 * (several characters at once) is inserted as typed, newlines included, and never sends by itself.
 */

export type DraftKey = {
	readonly return?: boolean;
	readonly backspace?: boolean;
	readonly delete?: boolean;
	readonly escape?: boolean;
	readonly ctrl?: boolean;
	readonly meta?: boolean;
	readonly tab?: boolean;
	readonly upArrow?: boolean;
	readonly downArrow?: boolean;
	readonly leftArrow?: boolean;
	readonly rightArrow?: boolean;
	readonly pageUp?: boolean;
	readonly pageDown?: boolean;
};

export type DraftResult =
	| {readonly kind: 'edit'; readonly draft: string}
	| {readonly kind: 'send'; readonly text: string}
	| {readonly kind: 'blur'; readonly draft: string}
	/** Enter or Ctrl-S with nothing to send. */
	| {readonly kind: 'empty'; readonly draft: string};

export function applyDraftKey(draft: string, input: string, key: DraftKey): DraftResult {
	const send = (): DraftResult => (draft.trim().length === 0 ? {kind: 'empty', draft} : {kind: 'send', text: draft.trim()});
	if (key.escape) return {kind: 'blur', draft};
	if (key.ctrl && input === 's') return send();
	if (key.return) {
		const lastLine = draft.slice(draft.lastIndexOf('\n') + 1);
		if (draft.length === 0 || lastLine.trim().length === 0) return send();
		return {kind: 'edit', draft: `${draft}\n`};
	}
	if (key.backspace || key.delete) return {kind: 'edit', draft: [...draft].slice(0, -1).join('')};
	if (key.ctrl || key.meta || key.tab || key.upArrow || key.downArrow || key.leftArrow || key.rightArrow || key.pageUp || key.pageDown) return {kind: 'edit', draft};
	if (input.length === 0) return {kind: 'edit', draft};
	const text = input.replace(/\r\n?/g, '\n').replace(/[\u0000-\u0008\u000b-\u001f\u007f]/g, '');
	return {kind: 'edit', draft: draft + text};
}
