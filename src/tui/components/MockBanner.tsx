import {Text} from 'ink';
import type {MockKind} from '../../report/setups.js';
import {mockNotes} from '../../present/mockNote.js';
import {displayWidth, truncate} from '../text/width.js';

/**
 * Shown whenever a role ran on the offline mock provider: its output is filler, not a measurement.
 * Worded from which roles ran on the mock (present/mockNote.ts); the longest wording that fits the
 * width is drawn, so a narrow terminal loses detail, never "not measurements".
 */
export function MockBanner({mock, width}: {readonly mock: MockKind; readonly width: number}) {
	const notes = mockNotes(mock);
	if (notes.length === 0) return null;
	const text = notes.find((note) => displayWidth(note) + 2 <= width) ?? notes.at(-1)!;
	return (
		<Text wrap="truncate-end" backgroundColor="yellow" color="black" bold>
			{truncate(` ${text} `, width)}
		</Text>
	);
}
