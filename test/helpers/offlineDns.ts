import dns from 'node:dns';

/*
 * Name resolution for tests that must never send a DNS query: loopback names resolve to 127.0.0.1,
 * every other name fails as on a machine with no resolver (ENOTFOUND), at once. Installed on import,
 * in a test file or in a child process (`node --import ./test/helpers/offlineDns.ts`); Node's sockets
 * look names up through `dns.lookup` when they connect, so this covers every connection made.
 */

type Callback = (error: NodeJS.ErrnoException | null, address?: string | dns.LookupAddress[], family?: number) => void;

const offline = ((hostname: string, options: unknown, callback?: unknown) => {
	const done = (typeof options === 'function' ? options : callback) as Callback;
	const all = typeof options === 'object' && options !== null && (options as {all?: boolean}).all === true;
	const local = /^(localhost|.+\.localhost|127(\.\d{1,3}){3})$/i.test(hostname);
	process.nextTick(() => {
		if (!local) return done(Object.assign(new Error(`getaddrinfo ENOTFOUND ${hostname}`), {code: 'ENOTFOUND', syscall: 'getaddrinfo', hostname}));
		const address = /^127\./.test(hostname) ? hostname : '127.0.0.1';
		return all ? done(null, [{address, family: 4}]) : done(null, address, 4);
	});
}) as typeof dns.lookup;

dns.lookup = offline;
