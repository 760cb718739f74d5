import {Box, Text} from 'ink';
import {useMemo, useState} from 'react';
import {METRICS, type Session} from '../../domain/session.js';
import {publicView} from '../../episode/views.js';
import {fixed} from '../../present/numbers.js';
import {Pane} from '../components/Pane.js';
import {useKeys} from '../hooks/useKeys.js';
import {type Binding, footerLine, lookup} from '../view/keyTable.js';
import {clamp, pageSize} from '../text/scroll.js';
import {PANE_CHROME_ROWS} from '../view/layout.js';
import {alignLayouts, type Block, BlockCache, layoutBlocks, line, type PaneLayout} from '../../present/panes/lines.js';
import {hiddenGuarded} from '../../episode/blindness.js';
import {publicBlocks} from '../../present/panes/publicPane.js';

/** The compare view's keys (view/keyTable.ts): the footer is drawn from them. */
const COMPARE_KEYS: readonly Binding<'down' | 'up' | 'pageDown' | 'pageUp' | 'top' | 'bottom' | 'back' | 'quit'>[] = [
	{action: 'down', keys: ['down', 'j'], hint: '↑↓ PgUp PgDn g G scroll both', drop: 2},
	{action: 'up', keys: ['up', 'k'], hint: '', drop: 9},
	{action: 'pageDown', keys: ['pageDown', ' '], hint: '', drop: 9},
	{action: 'pageUp', keys: ['pageUp'], hint: '', drop: 9},
	{action: 'top', keys: ['g', 'home'], hint: '', drop: 9},
	{action: 'bottom', keys: ['G', 'end'], hint: '', drop: 9},
	{action: 'back', keys: ['escape', 'b'], hint: 'Esc back to the sessions', drop: 1},
	{action: 'quit', keys: ['q'], hint: 'q quit', drop: 0},
];

type Props = {readonly left: Session; readonly right: Session; readonly width: number; readonly height: number; readonly onBack: () => void; readonly onQuit: () => void};

/** Who answered and how the judge scored it: the head of one column. */
function headBlock(session: Session, cache: BlockCache): Block {
	// A session still played blind shows no judge figure (it should have none yet; blindness.ts decides).
	const judge = hiddenGuarded(session) ? null : session.judge;
	return cache.get('head', [session], () => [
		line(session.id, 'heading', {bold: true}),
		line(`assistant ${session.config.models.assistant}${session.config.mock ? ' (mock)' : ''} · judge ${session.config.models.judge} (${session.config.judgeMode}) · ${session.status}${session.error ? ` ${session.error.flag}` : ''}`, 'dim', {indent: 2, hang: 2}),
		...(judge
			? [
					line(METRICS.map((metric) => `${metric.slice(0, 5)} ${judge.scores[metric] ?? '–'}`).join('  '), 'oracle', {indent: 2, hang: 2}),
					line(`3H ${fixed(judge.threeH)}   TDQ ${fixed(judge.tdq)}   clean ${judge.clean === null ? '–' : judge.clean ? 'yes' : 'NO'}`, judge.clean === false ? 'error' : 'accent', {indent: 2, bold: true}),
				]
			: [line('not judged', 'dim', {indent: 2})]),
		line(''),
	]);
}

/**
 * Two sessions of one seed side by side (different assistant models, or judges): each column is the
 * Public chat under that session's judge scores. ↑↓ PgUp PgDn scroll both together.
 */
export function CompareScreen({left, right, width, height, onBack, onQuit}: Props) {
	const [offset, setOffset] = useState(0);
	const caches = useMemo(() => [new BlockCache(), new BlockCache()], []);
	const columnWidth = Math.floor(width / 2);
	const paneHeight = Math.max(PANE_CHROME_ROWS + 1, height - 2);
	const bodyHeight = paneHeight - PANE_CHROME_ROWS;
	// Turn by turn: the same message of both chats starts on the same row (alignLayouts pads the shorter).
	const layouts = alignLayouts(
		...([left, right].map((session, index) =>
			layoutBlocks([headBlock(session, caches[index]!), ...publicBlocks({view: publicView(session), streaming: null, awaitingHuman: false}, caches[index]!)], Math.max(1, (index === 0 ? columnWidth : width - columnWidth) - 4)),
		) as [PaneLayout, PaneLayout]),
	);
	const max = Math.max(0, ...layouts.map((layout) => layout.total - bodyHeight));
	const at = clamp(offset, 0, max);
	useKeys((input, key) => {
		const action = lookup(COMPARE_KEYS, input, key)?.action;
		if (action === 'quit') onQuit();
		else if (action === 'back') onBack();
		else if (action === 'up') setOffset((value) => clamp(value - 1, 0, max));
		else if (action === 'down') setOffset((value) => clamp(value + 1, 0, max));
		else if (action === 'pageUp') setOffset((value) => clamp(value - pageSize(bodyHeight), 0, max));
		else if (action === 'pageDown') setOffset((value) => clamp(value + pageSize(bodyHeight), 0, max));
		else if (action === 'top') setOffset(0);
		else if (action === 'bottom') setOffset(max);
	});
	return (
		<Box flexDirection="column" width={width} height={height}>
			<Text bold color="cyan" wrap="truncate-end">
				{`Compare · seed ${left.seed.id} · ${left.config.language} · the chat as each assistant saw it, under its judge's scores`}
			</Text>
			<Box flexDirection="row" height={paneHeight}>
				{layouts.map((layout, index) => (
					<Pane key={index} title={index === 0 ? 'A' : 'B'} focused={false} width={index === 0 ? columnWidth : width - columnWidth} height={paneHeight} layout={layout} offset={Math.min(at, Math.max(0, layout.total - bodyHeight))} color="green" />
				))}
			</Box>
			<Text dimColor wrap="truncate-end">
				{footerLine(COMPARE_KEYS, width)}
			</Text>
		</Box>
	);
}
