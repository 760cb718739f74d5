import type {HiddenView, Session} from '../domain/session.js';
import {blindRefusal, hiddenGuarded, markHiddenSeen} from '../episode/blindness.js';
import type {SessionStore} from '../store/sessionStore.js';
import {UserError} from '../util/errors.js';

/**
 * A saved session about to be shown with its private and oracle state, by a route that is not a live
 * engine (replay, replay --print, view --html, the TUI's replay and compare screens). A session played
 * blind whose dialogue is still open (episode/blindness.ts) is refused unless `reveal`; with it, the
 * view is recorded on the session file (sawHidden, hiddenViews) before anything is shown, so resuming
 * it later keeps the mark. A session held by a live process cannot be marked: its lock refuses, and
 * so nothing is shown. Returns the session to show (marked, or as it was when nothing needed asking).
 */
export async function openHidden(store: SessionStore, session: Session, request: {readonly view: HiddenView; readonly reveal: boolean; readonly what: string}): Promise<Session> {
	if (!hiddenGuarded(session)) return session;
	if (!request.reveal) throw new UserError(blindRefusal(session, request.what));
	const marked = markHiddenSeen(session, request.view);
	await store.save(marked);
	// A session that was mid-run keeps its journal (save settles only ended or waiting ones): let go of it.
	store.release(marked.id);
	return marked;
}
