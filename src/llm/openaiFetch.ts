import {APIError} from 'openai';
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
	// A completion is passed through unread (the SDK parses it once); a 200 error body there is caught by
	// the provider (`errorInCompletion`). A stream request answered with JSON instead of events is read:
	// the SDK would see no events and report nothing.
	if (response.ok && !(streamAsked(init) && (response.headers.get('content-type') ?? '').includes('application/json'))) return response;
	const text = await response.text();
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

function streamAsked(init: RequestInit | undefined): boolean {
	return typeof init?.body === 'string' && init.body.includes('"stream":true');
}

/**
 * The error a parsed 200 completion carries instead of choices (OpenRouter once generation started),
 * as the SDK's own error for the status its code names, so it is classified and retried like any
 * HTTP failure; null for a real completion.
 */
export function errorInCompletion(completion: unknown, headers?: Headers): APIError | null {
	const error = errorIn200(completion);
	if (!error) return null;
	return APIError.generate(error.status, error.body as Record<string, unknown>, undefined, headers ?? new Headers());
}
