import {safeText} from '../../util/terminalText.js';
import {wrapText} from '../../util/wrap.js';

/*
 * Pane content as blocks of styled lines. A block is one unit that changes together (a turn, a shard,
 * a judge metric); its wrapped lines are computed once per width and reused, and a block object is
 * reused for as long as its inputs are unchanged, so memoised components can skip it.
 */

export type Tone = 'normal' | 'dim' | 'user' | 'assistant' | 'heading' | 'private' | 'oracle' | 'ok' | 'warn' | 'error' | 'accent' | 'selected';

/** One logical line before wrapping. */
export type Line = {
	readonly text: string;
	readonly tone?: Tone;
	readonly bold?: boolean;
	/** Spaces before every wrapped line. */
	readonly indent?: number;
	/** Extra spaces before continuation lines. */
	readonly hang?: number;
};

/** One display line after wrapping: fits the pane's width. */
export type DisplayLine = {readonly text: string; readonly tone?: Tone; readonly bold?: boolean};

export type Block = {readonly key: string; readonly lines: readonly Line[]};

/** A line of pane text; control sequences in it (from models or people) are removed, never drawn. */
export const line = (text: string, tone: Tone = 'normal', extra: Partial<Omit<Line, 'text' | 'tone'>> = {}): Line => ({text: safeText(text), tone, ...extra});

const wrapped = new WeakMap<Block, {width: number; lines: readonly DisplayLine[]}>();

/** A block's display lines at a width; the same array for the same block and width. */
export function wrapBlock(block: Block, width: number): readonly DisplayLine[] {
	const hit = wrapped.get(block);
	if (hit && hit.width === width) return hit.lines;
	const lines: DisplayLine[] = [];
	for (const item of block.lines) {
		for (const text of wrapText(item.text, width, {indent: item.indent, hang: item.hang})) lines.push({text, tone: item.tone, bold: item.bold});
	}
	wrapped.set(block, {width, lines});
	return lines;
}

/** A pane's blocks laid out at a width: display lines per block and where each block starts. */
export type PaneLayout = {
	readonly blocks: ReadonlyArray<{readonly key: string; readonly lines: readonly DisplayLine[]}>;
	readonly starts: readonly number[];
	readonly total: number;
	readonly width: number;
};

export function layoutBlocks(blocks: readonly Block[], width: number): PaneLayout {
	const out: Array<{key: string; lines: readonly DisplayLine[]}> = [];
	const starts: number[] = [];
	let total = 0;
	for (const block of blocks) {
		const lines = wrapBlock(block, width);
		starts.push(total);
		out.push({key: block.key, lines});
		total += lines.length;
	}
	return {blocks: out, starts, total, width};
}

/**
 * Keeps block objects stable across renders: `get(key, deps, build)` returns the block built last
 * time for `key` when every dep is identical (Object.is), else builds and remembers a new one.
 */
export class BlockCache {
	private readonly entries = new Map<string, {deps: readonly unknown[]; block: Block}>();

	get(key: string, deps: readonly unknown[], build: () => readonly Line[]): Block {
		const hit = this.entries.get(key);
		if (hit && hit.deps.length === deps.length && hit.deps.every((dep, index) => Object.is(dep, deps[index]))) return hit.block;
		const block: Block = {key, lines: build()};
		this.entries.set(key, {deps, block});
		return block;
	}

	get size(): number {
		return this.entries.size;
	}
}

/**
 * Two layouts lined up block by block (the compare view: the same turn of two chats side by side):
 * blocks with the same key start on the same row, the shorter padded with empty lines; blocks only
 * one side has keep their place in its order.
 */
export function alignLayouts(a: PaneLayout, b: PaneLayout): [PaneLayout, PaneLayout] {
	const keys = [...new Set([...a.blocks.map((block) => block.key), ...b.blocks.map((block) => block.key)])];
	const byKey = (layout: PaneLayout) => new Map(layout.blocks.map((block) => [block.key, block.lines]));
	const [left, right] = [byKey(a), byKey(b)];
	const build = (mine: Map<string, readonly DisplayLine[]>, other: Map<string, readonly DisplayLine[]>, width: number): PaneLayout => {
		const blocks: Array<{key: string; lines: readonly DisplayLine[]}> = [];
		const starts: number[] = [];
		let total = 0;
		for (const key of keys) {
			const lines = mine.get(key) ?? [];
			const rows = Math.max(lines.length, other.get(key)?.length ?? 0);
			if (rows === 0) continue;
			starts.push(total);
			blocks.push({key, lines: lines.length === rows ? lines : [...lines, ...Array.from({length: rows - lines.length}, () => ({text: ''}))]});
			total += rows;
		}
		return {blocks, starts, total, width};
	};
	return [build(left, right, a.width), build(right, left, b.width)];
}
