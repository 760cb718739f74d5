import type {Session} from '../domain/session.js';
import {type MockKind, mockKind} from '../report/setups.js';
import {setupOf} from '../domain/setup.js';

/*
 * What a session's output is worth when some of it came from the offline mock provider, worded from
 * which roles actually ran on it (report/setups.ts `mockKind`: a human, gold or replayed assistant made
 * no call, so its provider says nothing). One wording for the TUI banner, `replay --print` and the
 * HTML viewer: "OFFLINE MOCK" only when every role that ran was the mock.
 */

export function sessionMockKind(session: Session): MockKind {
	return mockKind({setup: setupOf(session).setup, mock: session.config.mock});
}

/**
 * The notice at three lengths, longest first, so a narrow line can take the longest that fits
 * without cutting "not measurements": `[long, medium, short]`. Empty when no role ran on the mock.
 */
export function mockNotes(kind: MockKind): readonly string[] {
	if (kind.kind === 'none') return [];
	if (kind.kind === 'all') {
		return [
			'OFFLINE MOCK PROVIDER · no model endpoint (OPENAI_BASE_URL / OPENAI_API_KEY) · every role ran on the mock · replies and scores are filler, not measurements',
			'OFFLINE MOCK · every role ran on the mock · replies and scores are filler, not measurements',
			'OFFLINE MOCK · filler, not measurements',
		];
	}
	const roles = kind.roles.join(', ');
	const what = kind.roles.includes('judge') ? 'the scores are' : 'their output is';
	return [`PARTLY OFFLINE MOCK · ${roles} ran on the mock provider · ${what} deterministic filler, not a measurement`, `PARTLY MOCK · ${roles} · ${what} filler, not a measurement`, `PARTLY MOCK (${roles}) · not a measurement`];
}
