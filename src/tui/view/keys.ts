/** Every key of the TUI, grouped: the help overlay and docs/tui.md are both written from this list. */
export type KeyHelp = {readonly keys: string; readonly does: string};
export type KeyGroup = {readonly title: string; readonly keys: readonly KeyHelp[]};

/** The CRISP items screen (c on the home screen). */
export const ITEM_KEYS: readonly KeyGroup[] = [
	{
		title: 'CRISP items',
		keys: [
			{keys: '↑ ↓ PgUp PgDn', does: 'select an item / scroll an open one'},
			{keys: 'Enter / →', does: 'open the item round by round'},
			{keys: 'i', does: 'inspect: the item\'s record as saved (every round, every field)'},
			{keys: 'Esc / b / ←', does: 'back to the list / home'},
			{keys: '?', does: 'this help'},
			{keys: 'q', does: 'quit'},
		],
	},
];

export const EPISODE_KEYS: readonly KeyGroup[] = [
	{
		title: 'Stepping',
		keys: [
			{keys: 'n / space', does: 'one engine step (in a replay: one step forward)'},
			{keys: 'a', does: 'auto-run to the end (toggle; turning it off stops after the current step)'},
			{keys: 'x / Esc', does: 'interrupt the step in flight (nothing is recorded; the session stays resumable)'},
			{keys: 'r', does: 'after an error (e.g. JUDGE_ERROR): clear it and run the failed step again'},
		],
	},
	{
		title: 'When the episode has ended',
		keys: [
			{keys: 'o', does: 'the scores: the Oracle pane from the judge\'s section (on a blind seat: the panes, nothing recorded)'},
			{keys: 's', does: 'rate the session yourself (opens its replay with the rating form)'},
			{keys: 'p', does: 'its replay, step by step'},
			{keys: 'w', does: 'write its HTML page to <sessions>/html/<id>.html (the path is said on the status line)'},
		],
	},
	{
		title: 'Panes',
		keys: [
			{keys: 'Tab / Shift-Tab', does: 'focus the next / previous pane'},
			{keys: '1 / 2 / 3', does: 'focus Public / Private / Oracle (tabs when narrower than 120 columns)'},
			{keys: '↑ ↓ / j k', does: 'scroll the focused pane one line'},
			{keys: 'PgUp PgDn', does: 'scroll the focused pane one page'},
			{keys: 'g / G', does: 'top / bottom of the focused pane'},
		],
	},
	{
		title: 'Replay',
		keys: [
			{keys: '→ / ←', does: 'step forward / back'},
			{keys: 'Home / End', does: 'first / last step'},
			{keys: 'r', does: 'resume an unfinished session live; an errored one: retry its failed step'},
			{keys: 's', does: 'rate the session yourself (6 metrics, 1-5; judge scores hidden) for report agreement'},
		],
	},
	{
		title: 'Rating (s in a replay)',
		keys: [
			{keys: '↑ ↓', does: 'move to a metric (stops at the first and last; no wrap)'},
			{keys: '1-5 / 0', does: 'score the metric under the cursor (the cursor stays) / clear it'},
			{keys: 'Enter', does: 'save: all six metrics need a score'},
			{keys: 'PgUp PgDn Tab', does: 'scroll the transcript / switch pane while rating'},
			{keys: 'Esc', does: 'leave without saving'},
		],
	},
	{
		title: 'Playing the assistant',
		keys: [
			{keys: 'type', does: 'every key goes into the reply box, also while the user is answering (your draft waits)'},
			{keys: 'Enter', does: 'new line (paragraph breaks are fine)'},
			{keys: 'Ctrl-S / Alt-Enter', does: 'send the reply; the episode then runs on its own to your next turn'},
			{keys: '← → ↑ ↓', does: 'move the cursor (Ctrl/Alt-← → by word)'},
			{keys: 'Home End ^A ^E', does: 'start / end of the line'},
			{keys: 'Bksp Del', does: 'delete before / after the cursor'},
			{keys: '^W Alt-Bksp', does: 'delete the word before the cursor'},
			{keys: '^U / ^K', does: 'delete to the start / end of the line'},
			{keys: 'Ctrl-X', does: 'compose the reply in $EDITOR (or $VISUAL)'},
			{keys: 'PgUp PgDn', does: 'scroll the chat while typing'},
			{keys: 'Esc / e', does: 'leave the box (command keys work) / back into it; the box grows with the draft, then scrolls (↑ N more above)'},
			{keys: 'v', does: 'show the hidden panes (private, oracle): asks first (y/N); yes is recorded on the session with the step, and replies after it are reported apart'},
		],
	},
	{
		title: 'Inspector (i)',
		keys: [
			{keys: '↑ ↓ / Home End', does: 'select a call (the last entry is the log of errors and notices)'},
			{keys: 'PgUp PgDn / j k', does: 'scroll its raw prompt and raw reply'},
			{keys: 'g / G', does: 'top / end of the call (the raw reply is at the end)'},
			{keys: 'r', does: 'show / hide the call\'s reasoning (thinking text removed from the reply)'},
			{keys: 'Esc / i', does: 'close'},
		],
	},
	{
		title: 'Anywhere',
		keys: [
			{keys: 'i', does: 'inspector: every model call with its raw prompt and raw reply'},
			{keys: '?', does: 'this help'},
			{keys: 'b', does: 'back to the previous screen (asks first while a step is in flight)'},
			{keys: 'q', does: 'quit (asks first while a step is in flight); the session id and how to resume are printed'},
			{keys: 'Ctrl-C', does: 'quit now (the call in flight is abandoned; exit code 130 mid-step)'},
		],
	},
];
