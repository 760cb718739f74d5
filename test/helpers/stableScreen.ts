/**
 * Polls a terminal until `check` holds on two identical captures in a row: tmux can be captured
 * while Ink is still writing a frame, and a half-written frame may already pass a check on its first
 * lines (the status line) while the panes below are not drawn yet.
 */
export async function waitForStableScreen(capture: () => string, check: (screen: string) => boolean, what: string, options: {timeoutMs?: number; intervalMs?: number} = {}): Promise<string> {
	const deadline = Date.now() + (options.timeoutMs ?? 30_000);
	let previous = '';
	for (;;) {
		const screen = capture();
		if (check(screen) && screen === previous) return screen;
		previous = screen;
		if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}; the screen:\n${screen}`);
		await new Promise((resolve) => setTimeout(resolve, options.intervalMs ?? 50));
	}
}
