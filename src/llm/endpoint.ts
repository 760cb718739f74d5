import OpenAI, {APIConnectionError, APIError} from 'openai';
import {OPENAI_BASE_URL, normalisingFetch} from './openaiProvider.js';
import {fromServer} from './serverText.js';
import {dialectOf} from './modelFamily.js';

/** Kinds of server the set-up checks tell apart, from their own answers (the model list, native routes). */
export type ServerKind = 'openai' | 'azure' | 'openrouter' | 'vllm' | 'ollama' | 'llamacpp' | 'unknown';

export type ListedModel = {readonly id: string; readonly ownedBy: string | null; readonly contextWindow: number | null};

/** What `GET /models` said about one endpoint. */
export type ModelList =
	| {readonly ok: true; readonly models: readonly ListedModel[]; readonly server: ServerKind; readonly latencyMs: number}
	| {readonly ok: false; readonly problem: 'unreachable' | 'auth' | 'no_list' | 'error'; readonly status: number | null; readonly message: string; readonly server: ServerKind};

export type EndpointTarget = {readonly baseURL: string | null; readonly apiKey: string | undefined; readonly timeoutMs?: number};

/**
 * Asks an endpoint for its models through the official SDK (one attempt, short timeout). The list
 * tells the server's kind too: vLLM marks its entries `owned_by: "vllm"` (with `max_model_len`),
 * llama.cpp `owned_by: "llamacpp"` (one model, served whatever name a request gives), Ollama lists
 * its local tags (`qwen3:8b`); OpenRouter and Azure are known by host.
 */
export async function listModels(target: EndpointTarget): Promise<ModelList> {
	const baseURL = target.baseURL ?? OPENAI_BASE_URL;
	const hostKind = kindByHost(target.baseURL);
	const client = new OpenAI({baseURL, apiKey: target.apiKey || 'no-key', maxRetries: 1, timeout: target.timeoutMs ?? 10_000, fetch: normalisingFetch});
	const started = Date.now();
	try {
		const models: ListedModel[] = [];
		for await (const model of client.models.list()) {
			const raw = model as unknown as Record<string, unknown>;
			const context = numberField(raw, ['max_model_len', 'context_length', 'context_window']) ?? numberField((raw['meta'] as Record<string, unknown>) ?? {}, ['n_ctx_train']);
			models.push({id: model.id, ownedBy: typeof raw['owned_by'] === 'string' ? raw['owned_by'] : null, contextWindow: context});
			if (models.length >= 5000) break;
		}
		return {ok: true, models, server: hostKind !== 'unknown' ? hostKind : kindByList(models) ?? (await probeOllama(baseURL)) ?? 'unknown', latencyMs: Date.now() - started};
	} catch (error) {
		const known = [target.apiKey ?? ''].filter(Boolean);
		if (error instanceof APIConnectionError) return {ok: false, problem: 'unreachable', status: null, message: fromServer(causeText(error), known), server: hostKind};
		if (error instanceof APIError && typeof error.status === 'number') {
			const message = fromServer(serverMessage(error), known);
			if (error.status === 401 || error.status === 403) return {ok: false, problem: 'auth', status: error.status, message, server: hostKind};
			if (error.status === 404 || error.status === 405) return {ok: false, problem: 'no_list', status: error.status, message, server: hostKind};
			return {ok: false, problem: 'error', status: error.status, message, server: hostKind};
		}
		return {ok: false, problem: 'error', status: null, message: fromServer(error instanceof Error ? error.message : String(error), known), server: hostKind};
	}
}

/**
 * Whether `model` is among an endpoint's models, the way that server resolves names: Ollama reads a
 * name without a tag as `:latest`; llama.cpp serves its one model whatever the request calls it.
 */
export function modelListed(model: string, list: {readonly models: readonly ListedModel[]; readonly server: ServerKind}): boolean | 'any' {
	if (list.server === 'llamacpp') return 'any';
	const ids = new Set(list.models.map((entry) => entry.id));
	if (ids.has(model)) return true;
	if (list.server === 'ollama' && !model.includes(':') && ids.has(`${model}:latest`)) return true;
	return false;
}

export type OllamaContext = {
	/** The context the server runs a model with (num_ctx of a loaded model, its Modelfile's num_ctx, or the server's default). */
	readonly effective: number | null;
	/** Where `effective` came from. */
	readonly source: 'loaded' | 'modelfile' | 'default' | null;
	/** The longest context the model itself was trained for. */
	readonly modelMax: number | null;
};

/** Ollama's default context when OLLAMA_CONTEXT_LENGTH is not set on the server (recent releases: 4096). */
export const OLLAMA_DEFAULT_CONTEXT = 4096;

/**
 * Ollama's context window for a model, from its native API (`/api/ps` for a loaded model's
 * `context_length`, `/api/show` for the Modelfile's `num_ctx` and the model's own maximum). Ollama
 * cuts longer prompts silently, and its OpenAI-compatible API cannot change the window per request.
 */
export async function ollamaContext(baseURL: string, model: string, timeoutMs = 5000): Promise<OllamaContext> {
	const root = nativeRoot(baseURL);
	const loaded = await getJson(`${root}/api/ps`, timeoutMs);
	const running = Array.isArray((loaded as {models?: unknown})?.models) ? ((loaded as {models: Array<Record<string, unknown>>}).models.find((entry) => entry['name'] === model || entry['model'] === model) ?? null) : null;
	const shown = (await postJson(`${root}/api/show`, {model}, timeoutMs)) as {parameters?: unknown; model_info?: Record<string, unknown>} | null;
	const modelMax = shown?.model_info ? (Object.entries(shown.model_info).find(([key, value]) => key.endsWith('.context_length') && typeof value === 'number')?.[1] as number | undefined) ?? null : null;
	const fromFile = typeof shown?.parameters === 'string' ? /(?:^|\n)\s*num_ctx\s+(\d+)/.exec(shown.parameters)?.[1] : undefined;
	if (running && typeof running['context_length'] === 'number') return {effective: running['context_length'], source: 'loaded', modelMax};
	if (fromFile) return {effective: Number(fromFile), source: 'modelfile', modelMax};
	return {effective: shown ? OLLAMA_DEFAULT_CONTEXT : null, source: shown ? 'default' : null, modelMax};
}

/** llama.cpp's context size (`/props`: default_generation_settings.n_ctx). */
export async function llamaCppContext(baseURL: string, timeoutMs = 5000): Promise<number | null> {
	const props = (await getJson(`${nativeRoot(baseURL)}/props`, timeoutMs)) as {default_generation_settings?: {n_ctx?: unknown}; n_ctx?: unknown} | null;
	const value = props?.default_generation_settings?.n_ctx ?? props?.n_ctx;
	return typeof value === 'number' ? value : null;
}

function kindByHost(baseURL: string | null): ServerKind {
	const dialect = dialectOf(baseURL);
	return dialect === 'compatible' ? 'unknown' : dialect;
}

function kindByList(models: readonly ListedModel[]): ServerKind | null {
	const owners = new Set(models.map((model) => model.ownedBy?.toLowerCase()));
	if (owners.has('vllm')) return 'vllm';
	if (owners.has('llamacpp')) return 'llamacpp';
	if (owners.has('ollama')) return 'ollama';
	return null;
}

/** Ollama answers `GET /api/version` with `{"version": "..."}` on its native root. */
async function probeOllama(baseURL: string): Promise<ServerKind | null> {
	const body = (await getJson(`${nativeRoot(baseURL)}/api/version`, 3000)) as {version?: unknown} | null;
	return body && typeof body.version === 'string' ? 'ollama' : null;
}

/** The server root in front of `/v1` (Ollama's and llama.cpp's native routes live there). */
export function nativeRoot(baseURL: string): string {
	return baseURL.replace(/\/+$/, '').replace(/\/v1$/, '');
}

async function getJson(url: string, timeoutMs: number): Promise<unknown> {
	try {
		const response = await fetch(url, {signal: AbortSignal.timeout(timeoutMs)});
		return response.ok ? await response.json() : null;
	} catch {
		return null;
	}
}

async function postJson(url: string, body: unknown, timeoutMs: number): Promise<unknown> {
	try {
		const response = await fetch(url, {method: 'POST', headers: {'content-type': 'application/json'}, body: JSON.stringify(body), signal: AbortSignal.timeout(timeoutMs)});
		return response.ok ? await response.json() : null;
	} catch {
		return null;
	}
}

function numberField(record: Record<string, unknown>, keys: readonly string[]): number | null {
	for (const key of keys) if (typeof record[key] === 'number') return record[key] as number;
	return null;
}

function serverMessage(error: APIError): string {
	const body = error.error as {message?: unknown} | undefined;
	return typeof body?.message === 'string' ? body.message : error.message.replace(/^\d{3}\s+/, '');
}

function causeText(error: APIConnectionError): string {
	const cause = (error as {cause?: {code?: string; message?: string}}).cause;
	return cause?.code ? `${cause.code}${cause.message ? ` (${cause.message})` : ''}` : error.message;
}
