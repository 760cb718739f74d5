import {useEffect, useState} from 'react';

/** Date.now(), re-read every `everyMs` while `active` (a timer on screen); no re-renders otherwise. */
export function useNow(active: boolean, everyMs = 500): number {
	const [now, setNow] = useState(() => Date.now());
	useEffect(() => {
		if (!active) return;
		setNow(Date.now());
		const timer = setInterval(() => setNow(Date.now()), everyMs);
		return () => clearInterval(timer);
	}, [active, everyMs]);
	return active ? now : Date.now();
}
