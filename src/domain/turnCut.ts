import type {Session, Turn} from './session.js';

/**
 * Assistant turns whose reply was not whole (cut by a token cap or the server's context, or by a
 * provider's content filter). The model layer marks them (`Turn.cut`, from the call's
 * `finishReason`); a report that scores replies as the assistant meant them leaves such sessions out,
 * or shows them apart, and says how many.
 */
export function cutTurns(session: Pick<Session, 'turns'>): readonly Turn[] {
	return session.turns.filter((turn) => turn.role === 'assistant' && turn.cut !== undefined);
}

/** The reasons a session's assistant turns were cut, each once ("length", "content_filter"); empty when every turn is whole. */
export function cutReasons(session: Pick<Session, 'turns'>): ReadonlyArray<NonNullable<Turn['cut']>> {
	return [...new Set(cutTurns(session).map((turn) => turn.cut!))];
}
