/** Every key of the TUI, grouped: the help overlay and docs/tui.md are both written from this list. */
export type KeyHelp = {readonly keys: string; readonly does: string};
export type KeyGroup = {readonly title: string; readonly keys: readonly KeyHelp[]};

export const EPISODE_KEYS: readonly KeyGroup[] = [
	{
		title: 'Stepping',
		keys: [
			{keys: 'n / space', does: 'one engine step (in a replay: one step forward)'},
			{keys: 'a', does: 'auto-run to the end (toggle; turning it off stops after the current step)'},
			{keys: 'x / Esc', does: 'interrupt the step in flight (nothing is recorded; the session stays resumable)'},
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
			{keys: 'r', does: 'resume an unfinished session live'},
			{keys: 's', does: 'rate the session yourself (6 metrics, 1-5; judge scores hidden) for report agreement'},
		],
	},
	{
		title: 'Playing the assistant',
		keys: [
			{keys: 'type', does: 'the reply goes into the input box'},
			{keys: 'Enter', does: 'new line; Enter on an empty line sends'},
			{keys: 'Ctrl-S', does: 'send now'},
			{keys: 'Esc / e', does: 'leave the box (keys go to the panes) / back into it'},
		],
	},
	{
		title: 'Inspector (i)',
		keys: [
			{keys: '↑ ↓ / Home End', does: 'select a call (the last entry is the log of errors and notices)'},
			{keys: 'PgUp PgDn / j k', does: 'scroll its raw prompt and raw reply'},
			{keys: 'g / G', does: 'top / end of the call (the raw reply is at the end)'},
			{keys: 'Esc / i', does: 'close'},
		],
	},
	{
		title: 'Anywhere',
		keys: [
			{keys: 'i', does: 'inspector: every model call with its raw prompt and raw reply'},
			{keys: '?', does: 'this help'},
			{keys: 'b', does: 'back to the previous screen'},
			{keys: 'q', does: 'quit (asks first while a step is in flight)'},
			{keys: 'Ctrl-C', does: 'quit now (the call in flight is abandoned)'},
		],
	},
];
