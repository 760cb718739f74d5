import {type IncomingMessage, createServer} from 'node:http';
import type {AddressInfo} from 'node:net';

/*
 * A loopback scoring service of the kind `crisp eval --reward-endpoint` and `--ngs URL` talk to, as
 * the README's "Reward models" section documents it: POST a JSON object, get back `{"reward": n}` (or
 * `{"probability": p}`). Every request body is kept, so canary tests can read exactly what was sent;
 * `reply` scripts the answer (or an HTTP error) per body.
 */

export type ServiceReply = {readonly status?: number; readonly body: unknown};

export type ScoringService = {
	readonly url: string;
	/** Every request body received, parsed, in arrival order. */
	readonly bodies: Array<Record<string, unknown>>;
	/** The raw text of every request, for searching. */
	readonly raw: string[];
	close(): Promise<void>;
};

export async function startScoringService(reply: (body: Record<string, unknown>, index: number) => ServiceReply): Promise<ScoringService> {
	const bodies: Array<Record<string, unknown>> = [];
	const raw: string[] = [];
	const read = async (req: IncomingMessage) => {
		const chunks: Buffer[] = [];
		for await (const chunk of req) chunks.push(chunk as Buffer);
		return Buffer.concat(chunks).toString('utf8');
	};
	const server = createServer((req, res) => {
		void read(req).then((text) => {
			raw.push(text);
			const body = (text ? JSON.parse(text) : {}) as Record<string, unknown>;
			bodies.push(body);
			const answer = reply(body, bodies.length - 1);
			res.writeHead(answer.status ?? 200, {'content-type': 'application/json'});
			res.end(JSON.stringify(answer.body));
		});
	});
	await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
	const port = (server.address() as AddressInfo).port;
	return {
		url: `http://127.0.0.1:${port}/score`,
		bodies,
		raw,
		close: () =>
			new Promise<void>((resolve) => {
				server.closeAllConnections();
				server.close(() => resolve());
			}),
	};
}
