import {spawnSync} from 'node:child_process';
import {mkdtempSync, readFileSync, rmSync, writeFileSync} from 'node:fs';
import {tmpdir} from 'node:os';
import path from 'node:path';

/** The alternate screen the TUI draws on (launch.tsx enters it); an editor leaving its own screen leaves ours too. */
export const ENTER_ALT_SCREEN = '\u001B[?1049h\u001B[2J\u001B[H';

export type EditorHandoff = {
	readonly env: NodeJS.ProcessEnv;
	/** Raw mode off while the editor runs (it sets its own), back on after. */
	readonly setRawMode: (on: boolean) => void;
};

/**
 * Composes text in the user's editor ($VISUAL, else $EDITOR, else vi): the draft goes to a temp file,
 * the editor runs on the terminal (the event loop waits, so Ink neither reads keys nor draws), and
 * the file's text comes back. Returns the new text, or why it could not run (the draft is kept).
 */
export function editExternally(text: string, handoff: EditorHandoff): {ok: true; text: string} | {ok: false; problem: string} {
	const editor = handoff.env['VISUAL']?.trim() || handoff.env['EDITOR']?.trim() || 'vi';
	const dir = mkdtempSync(path.join(tmpdir(), 'cc-reply-'));
	const file = path.join(dir, 'reply.md');
	try {
		writeFileSync(file, text);
		handoff.setRawMode(false);
		// Through sh, so EDITOR may carry arguments ("code -w", "nano -R").
		const result = spawnSync('/bin/sh', ['-c', `${editor} "$1"`, 'sh', file], {stdio: 'inherit', env: handoff.env});
		if (result.error) return {ok: false, problem: `could not start ${editor}: ${result.error.message}`};
		if (result.status !== 0) return {ok: false, problem: `${editor} exited with status ${result.status ?? result.signal}; the draft is unchanged`};
		return {ok: true, text: readFileSync(file, 'utf8').replace(/\n+$/, '')};
	} finally {
		handoff.setRawMode(true);
		rmSync(dir, {recursive: true, force: true});
	}
}
