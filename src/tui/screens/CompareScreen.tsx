import {Box, Text} from 'ink';
import {useMemo, useState} from 'react';
import {METRICS, type Session} from '../../domain/session.js';
import {publicView} from '../../episode/views.js';
import {fixed} from '../../present/numbers.js';
import {Pane} from '../components/Pane.js';
import {useKeys} from '../hooks/useKeys.js';
import {clamp, pageSize} from '../text/scroll.js';
import {PANE_CHROME_ROWS} from '../view/layout.js';
import {type Block, BlockCache, layoutBlocks, line} from '../view/lines.js';
import {publicBlocks} from '../view/publicPane.js';

type Props = {readonly left: Session; readonly right: Session; readonly width: number; readonly height: number; readonly onBack: () => void; readonly onQuit: () => void};

/** Who answered and how the judge scored it: the head of one column. */
function headBlock(session: Session, cache: BlockCache): Block {
	const judge = session.judge;
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
	const layouts = [left, right].map((session, index) =>
		layoutBlocks([headBlock(session, caches[index]!), ...publicBlocks({view: publicView(session), streaming: null, awaitingHuman: false}, caches[index]!)], Math.max(1, (index === 0 ? columnWidth : width - columnWidth) - 4)),
	);
	const max = Math.max(0, ...layouts.map((layout) => layout.total - bodyHeight));
	const at = clamp(offset, 0, max);
	useKeys((input, key) => {
		if (input === 'q') onQuit();
		else if (key.escape || input === 'b') onBack();
		else if (key.upArrow || input === 'k') setOffset((value) => clamp(value - 1, 0, max));
		else if (key.downArrow || input === 'j') setOffset((value) => clamp(value + 1, 0, max));
		else if (key.pageUp) setOffset((value) => clamp(value - pageSize(bodyHeight), 0, max));
		else if (key.pageDown || input === ' ') setOffset((value) => clamp(value + pageSize(bodyHeight), 0, max));
		else if (input === 'g' || key.home) setOffset(0);
		else if (input === 'G' || key.end) setOffset(max);
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
				↑↓ PgUp PgDn g G scroll both · Esc back to the sessions · q quit
			</Text>
		</Box>
	);
}
