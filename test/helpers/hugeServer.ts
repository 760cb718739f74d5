import {type IncomingMessage, type ServerResponse, createServer} from 'node:http';
import type {AddressInfo} from 'node:net';

/*
 * An OpenAI-compatible server gone wrong: every chat completion is `size` bytes of content, as one
 * JSON body (with its content-length announced) or as server-sent chunk events, whichever the request
 * asks for, written as the client reads (never held in memory whole) and stopped when the client
 * hangs up. GET /v1/models lists the one model, `big`. For the reply-size limit's tests and benchmark.
 */

/** A server whose every reply is `size` bytes of content, written as it goes (never held in memory whole). */
export async function hugeServer(size: number): Promise<{baseURL: string; sent: () => number; close: () => Promise<void>}> {
	let sent = 0;
	const chunk = 'a'.repeat(64 * 1024);
	const write = (res: ServerResponse, text: string) =>
		new Promise<boolean>((resolve) => {
			if (res.write(text)) return resolve(!res.destroyed);
			const done = (ok: boolean) => {
				res.off('drain', drained).off('close', closed);
				resolve(ok);
			};
			const drained = () => done(!res.destroyed);
			const closed = () => done(false);
			res.on('drain', drained).on('close', closed);
		});
	const server = createServer((req: IncomingMessage, res: ServerResponse) => {
		const parts: Buffer[] = [];
		req.on('data', (part: Buffer) => parts.push(part));
		req.on('end', async () => {
			if (req.method === 'GET') {
				res.writeHead(200, {'content-type': 'application/json'}).end(JSON.stringify({object: 'list', data: [{id: 'big', object: 'model', created: 0, owned_by: 'fake'}]}));
				return;
			}
			const body = JSON.parse(Buffer.concat(parts).toString()) as {stream?: boolean};
			if (body.stream) {
				res.writeHead(200, {'content-type': 'text/event-stream'});
				for (let done = 0; done < size && !res.destroyed; done += chunk.length) {
					if (!(await write(res, `data: ${JSON.stringify({id: 'c', object: 'chat.completion.chunk', created: 0, model: 'big', choices: [{index: 0, delta: {content: chunk}, finish_reason: null}]})}\n\n`))) return;
					sent += chunk.length;
				}
				res.end(`data: ${JSON.stringify({id: 'c', object: 'chat.completion.chunk', created: 0, model: 'big', choices: [{index: 0, delta: {}, finish_reason: 'stop'}]})}\n\ndata: [DONE]\n\n`);
				return;
			}
			res.writeHead(200, {'content-type': 'application/json', 'content-length': String(size + 200)});
			if (!(await write(res, '{"id":"c","object":"chat.completion","created":0,"model":"big","choices":[{"index":0,"message":{"role":"assistant","content":"'))) return;
			for (let done = 0; done < size && !res.destroyed; done += chunk.length) {
				if (!(await write(res, chunk))) return;
				sent += chunk.length;
			}
			res.end('"},"finish_reason":"stop"}]}');
		});
	});
	await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
	return {
		baseURL: `http://127.0.0.1:${(server.address() as AddressInfo).port}/v1`,
		sent: () => sent,
		close: () =>
			new Promise<void>((resolve) => {
				server.closeAllConnections();
				server.close(() => resolve());
			}),
	};
}

