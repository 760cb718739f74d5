import {stripVTControlCharacters} from 'node:util';
import {Box, Text} from 'ink';
import {useMemo, useState} from 'react';
import type {SituatedItem} from '../../domain/situated.js';
import {formatItem} from '../../present/situated.js';
import {ListView} from '../components/ListView.js';
import {useKeys} from '../hooks/useKeys.js';
import {clamp} from '../text/scroll.js';
import {wrapText} from '../../util/wrap.js';
import {itemCounts, itemRow} from '../view/itemsList.js';
import {ITEM_KEYS} from '../view/keys.js';
import {HelpOverlay} from '../components/HelpOverlay.js';
import {safeText} from '../../util/terminalText.js';

type Props = {
	readonly listing: {readonly items: readonly SituatedItem[]; readonly file: string; readonly problem: string | null};
	readonly width: number;
	readonly height: number;
	readonly onBack: () => void;
	readonly onQuit: () => void;
};

/**
 * Situated decision items (`crisp build`): the list, and one item round by round (what the blind
 * reasoner answered, the verifier's five checks, the router's decision, the advice or revision plan).
 */
export function ItemsScreen({listing, width, height, onBack, onQuit}: Props) {
	const {items} = listing;
	const [selected, setSelected] = useState(0);
	const [open, setOpen] = useState<SituatedItem | null>(null);
	/** 'rounds': the item round by round; 'record': its saved record, every field (i). */
	const [shown, setShown] = useState<'rounds' | 'record'>('rounds');
	const [help, setHelp] = useState(false);
	const [offset, setOffset] = useState(0);
	const bodyHeight = Math.max(3, height - 4);
	// The CLI rendering, without its colours (Ink measures and wraps plain text).
	const detail = useMemo(() => {
		if (!open) return [];
		const text = shown === 'record' ? JSON.stringify(open, null, 2) : stripVTControlCharacters(formatItem(open));
		return safeText(text).split('\n').flatMap((line) => (line === '' ? [''] : wrapText(line, Math.max(20, width - 2))));
	}, [open, shown, width]);
	const maxOffset = Math.max(0, detail.length - bodyHeight);
	useKeys(
		(input, key) => {
			if (input === 'q') return onQuit();
			if (input === '?') return setHelp(true);
			if (input === 'i' && (open ?? items[selected])) {
				setOpen(open ?? items[selected]!);
				setShown((was) => (open && was === 'record' ? 'rounds' : 'record'));
				setOffset(0);
				return;
			}
			keys(input, key);
		},
		{isActive: !help},
	);
	function keys(input: string, key: Parameters<Parameters<typeof useKeys>[0]>[1]) {
		if (open) {
			if (key.escape || input === 'b' || key.leftArrow) setOpen(null);
			else if (key.upArrow || input === 'k') setOffset((at) => clamp(at - 1, 0, maxOffset));
			else if (key.downArrow || input === 'j') setOffset((at) => clamp(at + 1, 0, maxOffset));
			else if (key.pageUp) setOffset((at) => clamp(at - bodyHeight, 0, maxOffset));
			else if (key.pageDown || input === ' ') setOffset((at) => clamp(at + bodyHeight, 0, maxOffset));
			return;
		}
		if (key.escape || input === 'b') onBack();
		else if (key.upArrow || input === 'k') setSelected((at) => clamp(at - 1, 0, Math.max(0, items.length - 1)));
		else if (key.downArrow || input === 'j') setSelected((at) => clamp(at + 1, 0, Math.max(0, items.length - 1)));
		else if (key.pageUp) setSelected((at) => clamp(at - bodyHeight, 0, Math.max(0, items.length - 1)));
		else if (key.pageDown) setSelected((at) => clamp(at + bodyHeight, 0, Math.max(0, items.length - 1)));
		else if ((key.return || key.rightArrow) && items[selected]) {
			setOpen(items[selected]!);
			setShown('rounds');
			setOffset(0);
		}
	}
	if (help) return <HelpOverlay width={width} height={height} active groups={ITEM_KEYS} onClose={() => setHelp(false)} />;
	if (open) {
		return (
			<Box flexDirection="column" width={width} height={height}>
				<Text bold color="cyan" wrap="truncate-end">
					{`CRISP item ${open.id}${shown === 'record' ? ' · saved record' : ''} · lines ${Math.min(detail.length, offset + 1)}-${Math.min(detail.length, offset + bodyHeight)}/${detail.length}`}
				</Text>
				<Box flexDirection="column" height={bodyHeight}>
					{detail.slice(offset, offset + bodyHeight).map((line, index) => (
						<Text key={offset + index} wrap="truncate-end">
							{line || ' '}
						</Text>
					))}
				</Box>
				<Text dimColor wrap="truncate-end">
					↑↓ PgUp PgDn scroll · i {shown === 'record' ? 'round by round' : 'saved record'} · Esc back to the list · ? help · q quit
				</Text>
			</Box>
		);
	}
	return (
		<Box flexDirection="column" width={width} height={height}>
			<Text bold color="cyan" wrap="truncate-end">
				{`CRISP items · ${itemCounts(items)} · ${listing.file}`}
			</Text>
			{listing.problem ? (
				<Text color="yellow" wrap="truncate-end">
					{`⚠ ${listing.problem}`}
				</Text>
			) : null}
			<ListView rows={items.map(itemRow)} selected={clamp(selected, 0, Math.max(0, items.length - 1))} height={bodyHeight - (listing.problem ? 1 : 0)} width={width} empty="No items yet: build some with `npx cultureconverse crisp build --region JP --limit 5`." />
			<Text dimColor wrap="truncate-end">
				↑↓ select · Enter open round by round · i saved record · Esc back · ? help · q quit
			</Text>
		</Box>
	);
}
