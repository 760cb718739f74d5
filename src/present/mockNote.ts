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
			'OFFLINE MOCK PROVIDER · no model endpoint (OPENAI_BASE_URL / OPENAI_API_KEY) · every role ran on the mock · rubric scores (mock:rubric) · not measurements',
			'OFFLINE MOCK · every role ran on the mock · rubric scores, not a model judge · not measurements',
			'OFFLINE MOCK · rubric scores · not measurements',
		];
	}
	const roles = kind.roles.join(', ');
	// The offline judge is a rubric: its scores are counts over the replies, and are named so.
	if (kind.roles.includes('judge')) return [`PARTLY OFFLINE MOCK · ${roles} ran on the mock provider · the scores come from a rubric (mock:rubric), not a model judge · not a measurement`, `PARTLY MOCK · ${roles} · rubric scores, not a model judge · not a measurement`, `PARTLY MOCK (${roles}) · rubric · not a measurement`];
	return [`PARTLY OFFLINE MOCK · ${roles} ran on the mock provider · their output is deterministic filler, not a measurement`, `PARTLY MOCK · ${roles} · their output is filler, not a measurement`, `PARTLY MOCK (${roles}) · not a measurement`];
}
