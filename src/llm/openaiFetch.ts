import {errorIn200, normaliseErrorBody} from './errorShapes.js';
import {httpFetch} from './httpFetch.js';

/**
 * The `fetch` every SDK client is given: the transport (httpFetch.ts), then every provider's error
 * body rewritten into the shape the SDK reads (errorShapes.ts), so the server's own words reach the
 * user ("400 status code (no body)" never does). A 200 whose JSON body is an error instead of a
 * completion (OpenRouter once generation started) becomes the error it is, with the status its
 * `error.code` names: a failed attempt, retried by kind, and never an "empty reply" whose tokens
 * count as cost. Event streams pass through untouched (their error events are classified in retry.ts).
 */
export const normalisingFetch: typeof fetch = async (input, init) => {
	const response = await httpFetch(input, init);
	if (response.ok && !(response.headers.get('content-type') ?? '').includes('application/json')) return response;
	const text = await response.text();
	// A completion without the word is not an error body: skip the second parse (the SDK parses it anyway).
	if (response.ok && !text.includes('"error"')) return new Response(text, {status: response.status, statusText: response.statusText, headers: response.headers});
	let body: unknown;
	try {
		body = JSON.parse(text);
	} catch {
		return new Response(text, {status: response.status, statusText: response.statusText, headers: response.headers});
	}
	if (response.ok) {
		const error = errorIn200(body);
		if (!error) return new Response(text, {status: response.status, statusText: response.statusText, headers: response.headers});
		return new Response(JSON.stringify(error.body), {status: error.status, statusText: 'error in a 200 body', headers: response.headers});
	}
	return new Response(JSON.stringify(normaliseErrorBody(body)), {status: response.status, statusText: response.statusText, headers: response.headers});
};
