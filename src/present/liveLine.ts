export type LiveLine = {
	readonly enabled: boolean;
	/** A stderr that writes above the live line and redraws it. */
	readonly stream: NodeJS.WritableStream;
	set(line: string): void;
	end(): void;
};

/** One status line kept at the bottom of a terminal; other stderr output scrolls above it. */
export function liveLine(stderr: NodeJS.WritableStream, enabled: boolean): LiveLine {
	let current = '';
	const clear = () => (current ? stderr.write('\r\u001B[K') : true);
	const stream = Object.assign(Object.create(stderr) as NodeJS.WritableStream, {
		write(chunk: string | Uint8Array) {
			if (!enabled) return stderr.write(chunk);
			clear();
			stderr.write(chunk);
			return current ? stderr.write(current) : true;
		},
	});
	return {
		enabled,
		stream,
		set(line) {
			if (!enabled) return;
			clear();
			current = line;
			stderr.write(line);
		},
		end() {
			if (enabled && current) stderr.write('\n');
			current = '';
		},
	};
}
