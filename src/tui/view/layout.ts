/*
 * Screen geometry of the episode screen, as arithmetic on the terminal size. The frame is kept one
 * row shorter than the terminal: Ink clears the whole screen on every frame that fills it, which
 * flickers (the Gemini CLI lesson).
 */

export type PaneId = 'public' | 'private' | 'oracle';
export const PANES: readonly PaneId[] = ['public', 'private', 'oracle'];
export const PANE_TITLES: Readonly<Record<PaneId, string>> = {public: 'Public', private: 'Private', oracle: 'Oracle'};

/** Below this many columns the three panes become tabs. */
export const NARROW_BELOW = 120;

/** Rows a pane spends on its border and title. */
export const PANE_CHROME_ROWS = 3;
/** Columns a pane spends on its border and padding. */
export const PANE_CHROME_COLUMNS = 4;

export type EpisodeLayout = {
	readonly narrow: boolean;
	/** Outer height of the pane row. */
	readonly paneHeight: number;
	/** Lines of content a pane shows. */
	readonly bodyHeight: number;
	/** Outer width of each pane (in narrow mode every pane takes the full width). */
	readonly widths: Readonly<Record<PaneId, number>>;
	/** Wrap width of each pane's content. */
	readonly contentWidths: Readonly<Record<PaneId, number>>;
};

export type LayoutInput = {
	readonly columns: number;
	readonly rows: number;
	/** Rows used above and below the panes (title, banner, status, footer, input box, tabs). */
	readonly chromeRows: number;
};

export function isNarrow(columns: number): boolean {
	return columns < NARROW_BELOW;
}

export function episodeLayout(input: LayoutInput): EpisodeLayout {
	const columns = Math.max(20, input.columns);
	const narrow = isNarrow(columns);
	const usable = Math.max(1, input.rows - 1);
	const paneHeight = Math.max(PANE_CHROME_ROWS + 1, usable - input.chromeRows);
	let widths: Record<PaneId, number>;
	if (narrow) widths = {public: columns, private: columns, oracle: columns};
	else {
		const publicWidth = Math.floor(columns * 0.4);
		const privateWidth = Math.floor((columns - publicWidth) / 2);
		widths = {public: publicWidth, private: privateWidth, oracle: columns - publicWidth - privateWidth};
	}
	const contentWidths = {
		public: Math.max(1, widths.public - PANE_CHROME_COLUMNS),
		private: Math.max(1, widths.private - PANE_CHROME_COLUMNS),
		oracle: Math.max(1, widths.oracle - PANE_CHROME_COLUMNS),
	};
	return {narrow, paneHeight, bodyHeight: paneHeight - PANE_CHROME_ROWS, widths, contentWidths};
}

/** The smallest terminal the episode screen fits in (tabs, a two-line reply box, a few lines of chat). */
export const MIN_COLUMNS = 60;
export const MIN_ROWS = 15;

export function tooSmall(columns: number, rows: number): boolean {
	return columns < MIN_COLUMNS || rows < MIN_ROWS;
}

/**
 * The most lines of draft the human input box grows to: more on a tall terminal, so the chat keeps
 * room on a short one. Past it the box scrolls with the cursor and says how much is above / below.
 */
export function inputLines(rows: number): number {
	return rows >= 40 ? 10 : rows >= 30 ? 6 : rows >= 20 ? 4 : 2;
}
/** The fewest lines the box shows (an empty draft). */
export const MIN_INPUT_LINES = 2;
/** Lines the box shows for a draft of `draftLines` display lines: it grows with the draft up to inputLines(rows). */
export function inputShown(rows: number, draftLines: number): number {
	return Math.max(MIN_INPUT_LINES, Math.min(inputLines(rows), draftLines));
}
/** Rows of the human input box: border, hint and the draft lines shown. */
export const inputBoxRows = (shown: number) => shown + 3;
