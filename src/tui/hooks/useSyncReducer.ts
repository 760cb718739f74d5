import {useCallback, useRef, useState} from 'react';

/**
 * A reducer whose latest state is known the moment an action is applied. Keys can arrive faster than
 * React re-renders (key repeat, paste, tests), and a handler that reads state from its render's
 * closure would then act on stale state; `apply` returns the new state so a handler can also decide
 * side effects (choose, open, start) from it.
 */
export function useSyncReducer<S, A>(reducer: (state: S, action: A) => S, init: () => S): [S, (action: A) => S] {
	const ref = useRef<{value: S} | null>(null);
	if (ref.current === null) ref.current = {value: init()};
	const [state, setState] = useState<S>(ref.current.value);
	const apply = useCallback(
		(action: A) => {
			const next = reducer(ref.current!.value, action);
			ref.current!.value = next;
			setState(next);
			return next;
		},
		[reducer],
	);
	return [state, apply];
}
