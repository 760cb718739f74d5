import {useCallback, useMemo, useRef, useState} from 'react';
import type {DraftStore} from '../components/HumanInput.js';
import {EMPTY_EDITOR, type EditorState} from '../text/editor.js';

/** The reply draft of a human assistant: state for rendering, a ref for key presses that arrive between renders. */
export function useDraftStore(): DraftStore {
	const ref = useRef<EditorState>(EMPTY_EDITOR);
	const [state, setState] = useState<EditorState>(EMPTY_EDITOR);
	const set = useCallback((next: EditorState) => {
		ref.current = next;
		setState(next);
	}, []);
	return useMemo(() => ({state, get: () => ref.current, set}), [state, set]);
}
