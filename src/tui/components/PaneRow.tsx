import {Box} from 'ink';
import {type EpisodeLayout, PANE_TITLES, PANES, type PaneId} from '../view/layout.js';
import type {PaneLayout} from '../../present/panes/lines.js';
import {Pane} from './Pane.js';
import {TabBar} from './TabBar.js';

const COLORS: Readonly<Record<PaneId, string>> = {public: 'green', private: 'yellow', oracle: 'magenta'};

type Props = {
	readonly geometry: EpisodeLayout;
	readonly layouts: Readonly<Record<PaneId, PaneLayout>>;
	readonly offsets: Readonly<Record<PaneId, number>>;
	readonly focus: PaneId;
};

/** Public, Private and Oracle side by side, or as tabs on a narrow terminal. */
export function PaneRow({geometry, layouts, offsets, focus}: Props) {
	if (geometry.narrow) {
		return (
			<Box flexDirection="column">
				<TabBar active={focus} />
				<Pane title={PANE_TITLES[focus]} focused width={geometry.widths[focus]} height={geometry.paneHeight} layout={layouts[focus]} offset={offsets[focus]} color={COLORS[focus]} />
			</Box>
		);
	}
	return (
		<Box flexDirection="row" height={geometry.paneHeight}>
			{PANES.map((pane) => (
				<Pane key={pane} title={PANE_TITLES[pane]} focused={pane === focus} width={geometry.widths[pane]} height={geometry.paneHeight} layout={layouts[pane]} offset={offsets[pane]} color={COLORS[pane]} />
			))}
		</Box>
	);
}
