import {type IncomingHttpHeaders, type IncomingMessage, type ServerResponse, createServer} from 'node:http';
import type {AddressInfo} from 'node:net';
import type {ModelRole, RoleSettings} from '../../src/domain/session.js';
import type {RenderedPrompt} from '../../src/llm/types.js';
import {shortHash} from '../../src/util/hash.js';

/*
 * A real HTTP server on 127.0.0.1 speaking enough of the OpenAI API for the official SDK:
 * POST /v1/chat/completions (JSON and SSE) and GET /v1/models. Tests script replies with a queue or
 * a handler; anything unscripted gets a default reply (a schema-valid object for structured calls),
 * so whole pipelines can run against it.
 */

export type FakeRequest = {
	readonly method: string;
	readonly path: string;
	/** The query string (Azure's api-version). */
	readonly query: URLSearchParams;
	readonly headers: IncomingHttpHeaders;
	/** Parsed JSON body ({} for GET). */
	readonly body: ChatBody;
	/** x-cultureconverse-stage / -role headers, for convenience. */
	readonly stage: string | undefined;
	readonly role: string | undefined;
};

export type ChatBody = {
	model?: string;
	messages?: Array<{role: string; content: string}>;
	stream?: boolean;
	stream_options?: {include_usage?: boolean};
	response_format?: {type: string; json_schema?: {name: string; strict?: boolean; schema: JsonSchema}};
	temperature?: number;
	max_tokens?: number;
	max_completion_tokens?: number;
	[key: string]: unknown;
};

export type FakeReply =
	/**
	 * A normal reply; `finishReason: 'length'` marks it truncated. Streams when the request asked to.
	 * `reasoning` is sent in its own field (vLLM with a reasoning parser and llama.cpp: `reasoning_content`;
	 * newer vLLM, Ollama and OpenRouter: `reasoning`), in the message or, streamed, in deltas before the content.
	 * `choices` are the contents of choices 2.. when the request asked for `n`.
	 */
	| {readonly content: string; readonly finishReason?: 'stop' | 'length' | 'content_filter'; readonly usage?: Usage | null; readonly refusal?: string; readonly reasoning?: {readonly field: 'reasoning_content' | 'reasoning'; readonly text: string}; readonly choices?: readonly string[]}
	/** A truncated reply with default content. */
	| {readonly finishReason: 'length'}
	/** A structured value, sent as its JSON text. */
	| {readonly json: unknown}
	/** An HTTP error (or any status) with optional headers and body. */
	| {readonly status: number; readonly headers?: Readonly<Record<string, string>>; readonly body?: unknown}
	/** Hold the response (to force client timeouts), then send `then` (default reply when absent). */
	| {readonly delayMs: number; readonly then?: FakeReply}
	/** Explicit SSE chunks (content deltas), whatever the request asked for; `pauseMs` stalls the stream after them. */
	| {readonly stream: readonly string[]; readonly finishReason?: 'stop' | 'length'; readonly usage?: Usage | null; readonly pauseMs?: number}
	/** Drop the connection without answering (a network error). */
	| {readonly destroy: true}
	/** HTTP 200 and these server-sent `data:` events as they are (a provider's own mid-stream error events); `done` adds `data: [DONE]`. */
	| {readonly sse: readonly unknown[]; readonly done?: boolean};

export type Usage = {prompt_tokens: number; completion_tokens: number; total_tokens: number};

/** Returns a reply, or undefined to fall through to the default. */
export type FakeHandler = (request: FakeRequest) => FakeReply | undefined | Promise<FakeReply | undefined>;

export type FakeOpenAIOptions = {
	handler?: FakeHandler;
	/** Per json_schema name: the value (or a function of the request) the default reply sends. */
	overrides?: Record<string, unknown>;
	/** What GET /v1/models lists: ids, or whole entries (vLLM adds owned_by "vllm" and max_model_len, llama.cpp owned_by "llamacpp"). */
	models?: ReadonlyArray<string | {readonly id: string; readonly [key: string]: unknown}>;
	/** Extra routes answered before the OpenAI ones (a server's native API: Ollama's /api/*, llama.cpp's /props). */
	routes?: Readonly<Record<string, (request: FakeRequest) => {status: number; body: unknown}>>;
	/** Headers sent with every chat completion answer, errors included (a reply's own headers win): rate-limit headers, say. */
	responseHeaders?: (request: FakeRequest, reply: FakeReply) => Readonly<Record<string, string>>;
	/** Where the API lives (Groq `/openai/v1`, Gemini `/v1beta/openai`, Fireworks `/inference/v1`); the base URL ends with it. @default '/v1' */
	prefix?: string;
	/** Which requests are chat completions and model lists, for URL shapes a prefix cannot say (Azure's deployments URL). */
	route?: (request: FakeRequest) => 'chat' | 'models' | undefined;
	/** What GET models answers, when not OpenAI's list (Together's bare array). */
	modelsBody?: (data: ReadonlyArray<Record<string, unknown>>) => unknown;
};

export type FakeOpenAI = {
	/** e.g. http://127.0.0.1:43121/v1 */
	readonly baseURL: string;
	/** Every request received, in arrival order. */
	readonly requests: FakeRequest[];
	/** The port it listens on (a base URL of another shape can be built from it). */
	readonly port: number;
	/** Chat completion requests only. */
	chatRequests(): FakeRequest[];
	/** Replies served first, in order, before the handler. */
	enqueue(...replies: FakeReply[]): void;
	setHandler(handler: FakeHandler | undefined): void;
	/** Forget requests, queued replies and the handler (call in beforeEach). */
	reset(): void;
	override(schemaName: string, value: unknown): void;
	/** Most chat requests ever in flight at once. */
	readonly maxInFlight: number;
	close(): Promise<void>;
};

export async function startFakeOpenAI(options: FakeOpenAIOptions = {}): Promise<FakeOpenAI> {
	const requests: FakeRequest[] = [];
	const queue: FakeReply[] = [];
	const overrides: Record<string, unknown> = {...options.overrides};
	let handler = options.handler;
	let inFlight = 0;
	let maxInFlight = 0;
	const timers = new Set<NodeJS.Timeout>();
	const prefix = (options.prefix ?? '/v1').replace(/\/+$/, '');
	const chatRequests: FakeRequest[] = [];

	const server = createServer((req, res) => {
		void serve(req, res).catch((error: unknown) => {
			if (!res.headersSent) sendJson(res, 500, {error: {message: String(error), type: 'fake_error'}});
			else res.destroy();
		});
	});

	async function serve(req: IncomingMessage, res: ServerResponse): Promise<void> {
		const chunks: Buffer[] = [];
		for await (const chunk of req) chunks.push(chunk as Buffer);
		const text = Buffer.concat(chunks).toString('utf8');
		const url = new URL(req.url ?? '/', 'http://localhost');
		const request: FakeRequest = {
			method: req.method ?? 'GET',
			path: url.pathname,
			query: url.searchParams,
			headers: req.headers,
			body: text ? (JSON.parse(text) as ChatBody) : {},
			stage: header(req.headers, 'x-cultureconverse-stage'),
			role: header(req.headers, 'x-cultureconverse-role'),
		};
		requests.push(request);
		const route = options.routes?.[`${request.method} ${request.path}`];
		if (route) {
			const {status, body} = route(request);
			return sendJson(res, status, body);
		}
		const kind = options.route?.(request) ?? (request.path === `${prefix}/models` ? 'models' : request.path === `${prefix}/chat/completions` ? 'chat' : undefined);
		if (request.method === 'GET' && kind === 'models') {
			const data = (options.models ?? ['fake-model']).map((entry) => (typeof entry === 'string' ? {id: entry, object: 'model', created: 0, owned_by: 'fake'} : {object: 'model', created: 0, ...entry}));
			return sendJson(res, 200, options.modelsBody ? options.modelsBody(data) : {object: 'list', data});
		}
		if (request.method !== 'POST' || kind !== 'chat') return sendJson(res, 404, {error: {message: `no route ${request.method} ${request.path}`}});
		chatRequests.push(request);
		inFlight++;
		maxInFlight = Math.max(maxInFlight, inFlight);
		let counted = true;
		const done = () => {
			if (counted) inFlight--;
			counted = false;
		};
		res.on('close', done);
		const reply = queue.shift() ?? (await handler?.(request)) ?? defaultReply(request, overrides);
		for (const [name, value] of Object.entries(options.responseHeaders?.(request, reply) ?? {})) res.setHeader(name, value);
		await respond(request, reply, res);
	}

	async function respond(request: FakeRequest, reply: FakeReply, res: ServerResponse): Promise<void> {
		if (res.destroyed) return;
		if ('destroy' in reply) {
			res.socket?.destroy();
			return;
		}
		if ('delayMs' in reply) {
			await wait(reply.delayMs, res);
			return respond(request, reply.then ?? defaultReply(request, overrides), res);
		}
		if ('status' in reply) {
			res.writeHead(reply.status, {'content-type': 'application/json', ...reply.headers});
			res.end(JSON.stringify(reply.body ?? {error: {message: `fake error ${reply.status}`, type: 'fake_error', code: null}}));
			return;
		}
		if ('sse' in reply) {
			res.writeHead(200, {'content-type': 'text/event-stream', 'cache-control': 'no-cache'});
			for (const event of reply.sse) res.write(`data: ${JSON.stringify(event)}\n\n`);
			res.end(reply.done ? 'data: [DONE]\n\n' : '');
			return;
		}
		if ('stream' in reply) return sendStream(res, request, reply.stream, reply.finishReason ?? 'stop', reply.usage, reply.pauseMs);
		const content = 'json' in reply ? JSON.stringify(reply.json) : 'content' in reply ? reply.content : 'This reply was cut';
		const finishReason = 'finishReason' in reply && reply.finishReason ? reply.finishReason : 'stop';
		const usage = 'usage' in reply ? reply.usage : estimate(request, content);
		const reasoning = 'reasoning' in reply ? reply.reasoning : undefined;
		if (request.body.stream) return sendStream(res, request, words(content), finishReason, usage, 0, reasoning);
		const contents = [content, ...('choices' in reply && reply.choices ? reply.choices : [])];
		sendJson(res, 200, {
			id: `chatcmpl-fake-${requests.length}`,
			object: 'chat.completion',
			created: 0,
			model: request.body.model ?? 'fake-model',
			choices: contents.map((text, index) => ({index, message: {role: 'assistant', content: text, refusal: 'refusal' in reply ? reply.refusal : null, ...(reasoning ? {[reasoning.field]: reasoning.text} : {})}, finish_reason: finishReason, logprobs: null})),
			...(usage ? {usage} : {}),
		});
	}

	/** Resolves after `ms`, or as soon as the client goes away. */
	function wait(ms: number, res: ServerResponse): Promise<void> {
		return new Promise<void>((resolve) => {
			const timer = setTimeout(() => {
				timers.delete(timer);
				resolve();
			}, ms);
			timers.add(timer);
			res.on('close', () => {
				clearTimeout(timer);
				timers.delete(timer);
				resolve();
			});
		});
	}

	async function sendStream(res: ServerResponse, request: FakeRequest, deltas: readonly string[], finishReason: string, usage: Usage | null | undefined, pauseMs = 0, reasoning?: {field: string; text: string}): Promise<void> {
		res.writeHead(200, {'content-type': 'text/event-stream', 'cache-control': 'no-cache'});
		const base = {id: `chatcmpl-fake-${requests.length}`, object: 'chat.completion.chunk', created: 0, model: request.body.model ?? 'fake-model'};
		const send = (data: unknown) => res.write(`data: ${JSON.stringify(data)}\n\n`);
		if (reasoning) for (const piece of words(reasoning.text)) send({...base, choices: [{index: 0, delta: {[reasoning.field]: piece}, finish_reason: null}]});
		deltas.forEach((delta, index) => send({...base, choices: [{index: 0, delta: index === 0 ? {role: 'assistant', content: delta} : {content: delta}, finish_reason: null}]}));
		if (pauseMs > 0) {
			await wait(pauseMs, res);
			if (res.destroyed) return;
		}
		send({...base, choices: [{index: 0, delta: {}, finish_reason: finishReason}]});
		const content = deltas.join('');
		if (request.body.stream_options?.include_usage && usage !== null) send({...base, choices: [], usage: usage ?? estimate(request, content)});
		res.end('data: [DONE]\n\n');
	}

	await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
	const port = (server.address() as AddressInfo).port;
	return {
		baseURL: `http://127.0.0.1:${port}${prefix}`,
		port,
		requests,
		chatRequests: () => [...chatRequests],
		enqueue: (...replies) => void queue.push(...replies),
		setHandler: (next) => void (handler = next),
		reset: () => {
			requests.length = 0;
			chatRequests.length = 0;
			queue.length = 0;
			handler = options.handler;
		},
		override: (name, value) => void (overrides[name] = value),
		get maxInFlight() {
			return maxInFlight;
		},
		close: () =>
			new Promise<void>((resolve) => {
				for (const timer of timers) clearTimeout(timer);
				server.closeAllConnections();
				server.close(() => resolve());
			}),
	};
}

/** The reply an unscripted request gets: a schema-valid object for structured calls, else a sentence. */
export function defaultReply(request: FakeRequest, overrides: Record<string, unknown> = {}): FakeReply {
	const structured = structuredTarget(request.body);
	if (!structured) return {content: 'This is a sample reply from the fake OpenAI server, written to be long enough to read.'};
	const override = overrides[structured.name];
	const value = override === undefined ? fakeFromSchema(structured.schema) : typeof override === 'function' ? (override as (request: FakeRequest) => unknown)(request) : override;
	const json = JSON.stringify(value);
	// Without response_format the model "chats" around the JSON, as real ones do in prompt mode.
	return {content: structured.fenced ? `Here is the object.\n\`\`\`json\n${json}\n\`\`\`` : json};
}

/** The schema a request asks for: json_schema response_format, else the one spelled out in a system message. */
export function structuredTarget(body: ChatBody): {name: string; schema: JsonSchema; fenced: boolean} | null {
	const format = body.response_format;
	if (format?.type === 'json_schema' && format.json_schema) return {name: format.json_schema.name, schema: format.json_schema.schema, fenced: false};
	for (const message of body.messages ?? []) {
		if (message.role !== 'system') continue;
		const match = /JSON object \(([A-Za-z0-9_-]+)\)[\s\S]*?```json\n([\s\S]*?)\n```/.exec(message.content);
		if (match) return {name: match[1]!, schema: JSON.parse(match[2]!) as JsonSchema, fenced: format?.type !== 'json_object'};
	}
	return null;
}

export type JsonSchema = {
	type?: string | string[];
	properties?: Record<string, JsonSchema>;
	required?: string[];
	items?: JsonSchema;
	enum?: unknown[];
	const?: unknown;
	anyOf?: JsonSchema[];
	oneOf?: JsonSchema[];
	$ref?: string;
	definitions?: Record<string, JsonSchema>;
	$defs?: Record<string, JsonSchema>;
	minItems?: number;
	maxItems?: number;
	minimum?: number;
	maximum?: number;
	exclusiveMinimum?: number;
	exclusiveMaximum?: number;
	minLength?: number;
	maxLength?: number;
	pattern?: string;
	format?: string;
	[key: string]: unknown;
};

/**
 * A small generic faker: strings "sample text <path>", first enum value, `minItems` array items (at
 * least one), numbers at 1 clamped into [minimum, maximum], booleans true; a nullable field is null
 * only when it is not required. Simple `pattern`s are honoured by sampling the regex.
 */
export function fakeFromSchema(schema: JsonSchema, root: JsonSchema = schema, at = 'value'): unknown {
	if (schema.$ref) return fakeFromSchema(resolveRef(schema.$ref, root), root, at);
	if ('const' in schema) return schema.const;
	if (schema.enum && schema.enum.length > 0) return schema.enum[0];
	const variants = schema.anyOf ?? schema.oneOf;
	if (variants) return fakeFromSchema(variants.find((variant) => variant.type !== 'null') ?? variants[0]!, root, at);
	const type = Array.isArray(schema.type) ? (schema.type.find((t) => t !== 'null') ?? 'null') : schema.type;
	switch (type) {
		case 'object': {
			const out: Record<string, unknown> = {};
			const required = new Set(schema.required ?? []);
			for (const [key, property] of Object.entries(schema.properties ?? {})) {
				if (required.has(key)) out[key] = fakeFromSchema(property, root, `${at}.${key}`);
				else if (isNullable(property, root)) out[key] = null;
			}
			return out;
		}
		case 'array': {
			const count = Math.min(schema.maxItems ?? Number.POSITIVE_INFINITY, Math.max(schema.minItems ?? 1, 1));
			return Array.from({length: count}, (_, index) => fakeFromSchema(schema.items ?? {type: 'string'}, root, `${at}[${index}]`));
		}
		case 'string':
			return fakeString(schema, at);
		case 'integer':
		case 'number': {
			const low = schema.minimum ?? (schema.exclusiveMinimum !== undefined ? schema.exclusiveMinimum + 1 : Number.NEGATIVE_INFINITY);
			const high = schema.maximum ?? (schema.exclusiveMaximum !== undefined ? schema.exclusiveMaximum - 1 : Number.POSITIVE_INFINITY);
			return Math.min(high, Math.max(low, 1));
		}
		case 'boolean':
			return true;
		case 'null':
			return null;
		default:
			return `sample text ${at}`;
	}
}

function fakeString(schema: JsonSchema, at: string): string {
	if (schema.format === 'date-time') return '2025-01-01T00:00:00.000Z';
	if (schema.pattern) {
		const sample = sampleRegex(schema.pattern);
		if (sample !== null && new RegExp(schema.pattern).test(sample)) return sample;
	}
	let text = `sample text ${at}`;
	while (text.length < (schema.minLength ?? 0)) text += ' and more sample text';
	return schema.maxLength !== undefined ? text.slice(0, schema.maxLength) : text;
}

function isNullable(schema: JsonSchema, root: JsonSchema): boolean {
	if (schema.$ref) return isNullable(resolveRef(schema.$ref, root), root);
	if (Array.isArray(schema.type)) return schema.type.includes('null');
	return schema.type === 'null' || (schema.anyOf ?? schema.oneOf ?? []).some((variant) => variant.type === 'null');
}

function resolveRef(ref: string, root: JsonSchema): JsonSchema {
	let node: unknown = root;
	for (const part of ref.replace(/^#\/?/, '').split('/').filter(Boolean)) node = (node as Record<string, unknown>)[part];
	if (!node) throw new Error(`fakeFromSchema: cannot resolve ${ref}`);
	return node as JsonSchema;
}

/**
 * One string matching a simple regex: literals, escapes (\d \w \s \. ...), classes ([a-z0-9._-]),
 * groups, alternation (first branch) and quantifiers (their minimum, at least one for +).
 * Returns null for constructs it does not know; the caller then verifies the sample anyway.
 */
export function sampleRegex(pattern: string): string | null {
	let i = 0;
	const classChar = (): string | null => {
		// [...]: the first character the class allows (negated classes: a letter it does not exclude).
		const end = pattern.indexOf(']', i + 1);
		if (end === -1) return null;
		const body = pattern.slice(i + 1, end);
		i = end + 1;
		if (body.startsWith('^')) return ['a', 'x', '0', '_'].find((c) => !body.includes(c)) ?? null;
		if (body.startsWith('\\')) return escapeChar(body[1]!);
		return body[0] ?? null;
	};
	const escapeChar = (c: string): string => ({d: '1', w: 'a', s: ' ', D: 'a', W: '-', S: 'a'})[c] ?? c;
	const sequence = (): string | null => {
		let out = '';
		while (i < pattern.length && pattern[i] !== ')' && pattern[i] !== '|') {
			let atom: string | null;
			const c = pattern[i]!;
			if (c === '^' || c === '$') {
				i++;
				continue;
			} else if (c === '(') {
				i++;
				if (pattern.startsWith('?:', i)) i += 2;
				atom = alternation();
				if (pattern[i] !== ')') return null;
				i++;
			} else if (c === '[') atom = classChar();
			else if (c === '\\') {
				atom = escapeChar(pattern[i + 1] ?? '');
				i += 2;
			} else if (c === '.') {
				atom = 'a';
				i++;
			} else {
				atom = c;
				i++;
			}
			if (atom === null) return null;
			const quantifier = /^(\*|\+|\?|\{(\d+)(?:,\d*)?\})\??/.exec(pattern.slice(i));
			let times = 1;
			if (quantifier) {
				i += quantifier[0].length;
				times = quantifier[1] === '*' || quantifier[1] === '?' ? 0 : quantifier[2] !== undefined ? Number(quantifier[2]) : 1;
			}
			out += atom.repeat(times);
		}
		return out;
	};
	const alternation = (): string | null => {
		const first = sequence();
		while (pattern[i] === '|') {
			i++;
			if (sequence() === null) return null;
		}
		return first;
	};
	const result = alternation();
	return result !== null && i === pattern.length ? result : null;
}

function sendJson(res: ServerResponse, status: number, body: unknown): void {
	res.writeHead(status, {'content-type': 'application/json'});
	res.end(JSON.stringify(body));
}

function header(headers: IncomingHttpHeaders, name: string): string | undefined {
	const value = headers[name];
	return Array.isArray(value) ? value[0] : value;
}

function words(text: string): string[] {
	return text.match(/\s*\S+\s*/g) ?? [text];
}

function estimate(request: FakeRequest, content: string): Usage {
	const prompt = Math.ceil((request.body.messages ?? []).reduce((sum, message) => sum + message.content.length, 0) / 4);
	const completion = Math.ceil(content.length / 4);
	return {prompt_tokens: prompt, completion_tokens: completion, total_tokens: prompt + completion};
}

/* Fixtures for gateway tests (and pipeline tests that run against the fake). */

/** Settings for every role pointing at `baseURL`, with `patch` applied to all of them. */
export function fakeRoles(baseURL: string, patch: Partial<RoleSettings> = {}): Record<ModelRole, RoleSettings> {
	const base: RoleSettings = {provider: 'openai', model: 'fake-model', baseURL, temperature: null, maxTokens: null, timeoutMs: 5000, structured: 'json_schema', replayFile: null, ...patch};
	return {generator: base, validator: base, simulator: base, assistant: base, judge: base};
}

/** A rendered prompt without prompt files. */
export function fakePrompt(user: string, system = 'You are a test.', id = 'test'): RenderedPrompt {
	const messages = [
		{role: 'system' as const, content: system},
		{role: 'user' as const, content: user},
	];
	return {id, messages, hash: shortHash(JSON.stringify(messages))};
}
