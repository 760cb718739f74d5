/*
 * Scroll arithmetic for panes that show a window of a longer list of lines. Pure functions: the
 * components only hold a ScrollState and ask these for the window to draw.
 */

/** Where a pane is scrolled to. `follow` keeps the window pinned to the end as lines are added. */
export type ScrollState = {readonly offset: number; readonly follow: boolean};

export const TOP: ScrollState = {offset: 0, follow: false};
export const FOLLOW: ScrollState = {offset: 0, follow: true};

export function maxOffset(total: number, height: number): number {
	return Math.max(0, total - Math.max(0, height));
}

export function clamp(value: number, low: number, high: number): number {
	return Math.min(high, Math.max(low, value));
}

/** The first line shown, for a state, a content length and a window height. */
export function effectiveOffset(state: ScrollState, total: number, height: number): number {
	const max = maxOffset(total, height);
	return state.follow ? max : clamp(state.offset, 0, max);
}

/** Lines a page key moves: the window height minus one line of context, at least one. */
export function pageSize(height: number): number {
	return Math.max(1, height - 1);
}

/** Scrolls by `delta` lines; reaching the end of content turns follow back on for following panes. */
export function scrollBy(state: ScrollState, delta: number, total: number, height: number, options: {followAtEnd?: boolean} = {}): ScrollState {
	const max = maxOffset(total, height);
	const offset = clamp(effectiveOffset(state, total, height) + delta, 0, max);
	return {offset, follow: Boolean(options.followAtEnd) && offset >= max};
}

export function scrollToEnd(total: number, height: number, options: {followAtEnd?: boolean} = {}): ScrollState {
	return {offset: maxOffset(total, height), follow: Boolean(options.followAtEnd)};
}

/** Index range [from, to) of lines visible in the window. */
export function visibleRange(offset: number, height: number, total: number): {from: number; to: number} {
	const from = clamp(offset, 0, Math.max(0, total));
	return {from, to: Math.min(total, from + Math.max(0, height))};
}

/**
 * Index of the block that holds line `line`, given each block's first line (ascending). Binary search,
 * so drawing a window of a 10,000-line transcript costs a few comparisons, not a walk.
 */
export function blockAt(starts: readonly number[], line: number): number {
	let low = 0;
	let high = starts.length - 1;
	if (high < 0) return -1;
	while (low < high) {
		const mid = (low + high + 1) >> 1;
		if (starts[mid]! <= line) low = mid;
		else high = mid - 1;
	}
	return low;
}

export type BlockSlice = {readonly block: number; readonly from: number; readonly to: number};

/**
 * The parts of blocks that fall in the window [from, to): block index and the line range within
 * that block. `starts[i]` is block i's first line; `total` is the line count of all blocks.
 */
export function slicesInWindow(starts: readonly number[], total: number, from: number, to: number): BlockSlice[] {
	const slices: BlockSlice[] = [];
	if (starts.length === 0 || from >= to) return slices;
	for (let block = blockAt(starts, from); block < starts.length; block++) {
		const start = starts[block]!;
		const end = block + 1 < starts.length ? starts[block + 1]! : total;
		if (start >= to) break;
		const a = Math.max(from, start) - start;
		const b = Math.min(to, end) - start;
		if (b > a) slices.push({block, from: a, to: b});
	}
	return slices;
}


/** First row of the page that holds `selected`, for lists drawn a page at a time (stateless). */
export function pageStart(selected: number, height: number, total: number): number {
	if (height <= 0 || total <= height) return 0;
	const page = Math.floor(clamp(selected, 0, total - 1) / height) * height;
	return Math.min(page, maxOffset(total, height));
}
