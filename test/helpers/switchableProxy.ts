import {type AddressInfo, connect, createServer} from 'node:net';

/**
 * A loopback TCP port in front of a server that can be "down" (every connection dropped at once, as
 * a stopped server behind a port forward does) or "up" (piped through). Lets a test stop and bring
 * back an endpoint at the same address, so a printed resume command meets the same URL.
 */
export async function switchableProxy(targetURL: string, options: {down?: boolean} = {}): Promise<{baseURL: string; setDown: (down: boolean) => void; close: () => Promise<void>}> {
	let down = options.down ?? false;
	const target = new URL(targetURL);
	const sockets = new Set<import('node:net').Socket>();
	const server = createServer((socket) => {
		if (down) return void socket.destroy();
		sockets.add(socket);
		const upstream = connect(Number(target.port), target.hostname);
		socket.pipe(upstream).pipe(socket);
		const end = () => {
			sockets.delete(socket);
			socket.destroy();
			upstream.destroy();
		};
		socket.on('error', end).on('close', end);
		upstream.on('error', end).on('close', end);
	});
	await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
	return {
		baseURL: `http://127.0.0.1:${(server.address() as AddressInfo).port}${target.pathname}`,
		setDown: (value) => {
			down = value;
			if (down) for (const socket of sockets) socket.destroy();
		},
		close: () =>
			new Promise<void>((resolve) => {
				for (const socket of sockets) socket.destroy();
				server.close(() => resolve());
			}),
	};
}
