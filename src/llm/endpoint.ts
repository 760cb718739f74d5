import {APIConnectionError, APIError} from 'openai';
import type {ProviderPreset, RoleSettings} from '../domain/session.js';
import {OPENAI_BASE_URL, openaiClient} from './client.js';
import {type Preset, PRESETS, guessPreset, presetOfDialect} from './presets.js';
import {type Classified, classifyStatus} from './retry.js';
import {connectionProblem, connectionText} from './connection.js';
import {httpFetch} from './httpFetch.js';
import {fromServer} from './serverText.js';
import {noteServerKind} from './schemaFidelity.js';

/** What the set-up checks call a server: a provider preset (`compatible` when nothing tells it apart). */
export type ServerKind = ProviderPreset;

export type ListedModel = {readonly id: string; readonly ownedBy: string | null; readonly contextWindow: number | null};

/**
 * What `GET /models` said about one endpoint. `server` is the role's preset when one is set, else
 * what the host says, else what the list says (vLLM, llama.cpp, Ollama, LM Studio); `guessed` says
 * it was not set, so `doctor` can say "taken for X; set --provider to be sure".
 */
export type ModelList =
	| {readonly ok: true; readonly models: readonly ListedModel[]; readonly server: ServerKind; readonly guessed: boolean; readonly latencyMs: number}
	| {readonly ok: false; readonly problem: 'unreachable' | 'auth' | 'no_list' | 'error'; readonly status: number | null; readonly message: string; readonly server: ServerKind; readonly guessed: boolean; readonly classified?: Classified};

export type EndpointTarget = Pick<RoleSettings, 'baseURL'> & Partial<Pick<RoleSettings, 'preset' | 'presetGuessed' | 'dialect' | 'apiVersion'>> & {readonly apiKey: string | undefined; readonly timeoutMs?: number};

/** The preset a target names, and whether it was only guessed (by host, or not at all). */
function namedPreset(target: EndpointTarget): {preset: ProviderPreset; guessed: boolean} {
	const set = target.presetGuessed ? undefined : (target.preset ?? presetOfDialect(target.dialect));
	return set ? {preset: set, guessed: false} : {preset: target.preset ?? guessPreset(target.baseURL), guessed: true};
}

/**
 * Asks an endpoint for its models through the official SDK, in its provider's dialect (client.ts:
 * Azure's URL shapes and api-key, Anthropic's x-api-key), one attempt, short timeout, and reads every
 * documented shape of the answer: OpenAI's `{data: [...]}`, Together's bare array, Anthropic's
 * `{data, has_more}` with dated ids, Gemini's ids with a `models/` prefix. The list tells an
 * unnamed server's kind too: vLLM marks its entries `owned_by: "vllm"` (with `max_model_len`),
 * llama.cpp `owned_by: "llamacpp"`, LM Studio `organization_owner`, Ollama answers `/api/version`.
 */
export async function listModels(target: EndpointTarget): Promise<ModelList> {
	const baseURL = target.baseURL ?? OPENAI_BASE_URL;
	const {preset, guessed} = namedPreset(target);
	const client = openaiClient({baseURL: target.baseURL, preset, apiVersion: target.apiVersion, apiKey: target.apiKey, timeoutMs: target.timeoutMs ?? 10_000});
	const started = Date.now();
	const known = [target.apiKey ?? ''].filter(Boolean);
	try {
		// One more try only for a failure a retry can cure (a reset or refused connection): a TLS or proxy
		// problem, a timeout or any HTTP answer is the same the second time, so it is reported at once.
		const body = await client.get('/models', {maxRetries: 0}).catch((error: unknown) => {
			const problem = connectionProblem(error);
			if (problem?.retryable && problem.kind !== 'timeout') return client.get('/models', {maxRetries: 0});
			throw error;
		});
		const models = entriesOf(body).slice(0, 5000);
		const server = guessed && preset === 'compatible' ? (kindByList(models) ?? (await probeOllama(baseURL)) ?? 'compatible') : preset;
		// What the server is decides how much of each schema its structured calls get (schemaFidelity.ts).
		noteServerKind(target.baseURL, server);
		// A kind the server's own answer shows (llama.cpp's and vLLM's `owned_by`, LM Studio's fields,
		// Ollama's /api/version) is the server saying what it is, not a guess; a kind from the host is one.
		return {ok: true, models, server, guessed: guessed && (preset !== 'compatible' || server === 'compatible'), latencyMs: Date.now() - started};
	} catch (error) {
		if (error instanceof APIConnectionError) return {ok: false, problem: 'unreachable', status: null, message: fromServer(connectionText(connectionProblem(error)!), known), server: preset, guessed};
		if (error instanceof APIError && typeof error.status === 'number') {
			const message = fromServer(serverMessage(error), known);
			const classified = classifyStatus(error.status, error.headers, Date.now(), (error.error ?? {}) as Parameters<typeof classifyStatus>[3], message);
			// Gemini says a bad key with a 400 (API_KEY_INVALID): the body decides, not only the status.
			if (classified.kind === 'auth') return {ok: false, problem: 'auth', status: error.status, message, server: preset, guessed, classified};
			if (error.status === 404 || error.status === 405) return {ok: false, problem: 'no_list', status: error.status, message, server: preset, guessed, classified};
			return {ok: false, problem: 'error', status: error.status, message, server: preset, guessed, classified};
		}
		return {ok: false, problem: 'error', status: null, message: fromServer(error instanceof Error ? error.message : String(error), known), server: preset, guessed};
	}
}

function entriesOf(body: unknown): ListedModel[] {
	const raw = Array.isArray(body) ? body : body && typeof body === 'object' && Array.isArray((body as {data?: unknown}).data) ? (body as {data: unknown[]}).data : [];
	const out: ListedModel[] = [];
	for (const entry of raw) {
		if (!entry || typeof entry !== 'object') continue;
		const record = entry as Record<string, unknown>;
		const id = typeof record['id'] === 'string' ? record['id'] : typeof record['name'] === 'string' ? record['name'] : null;
		if (id === null) continue;
		const context = numberField(record, ['max_model_len', 'context_length', 'context_window']) ?? numberField((record['meta'] as Record<string, unknown>) ?? {}, ['n_ctx_train']);
		out.push({id, ownedBy: typeof record['owned_by'] === 'string' ? record['owned_by'] : null, contextWindow: context});
	}
	return out;
}

/**
 * Whether `model` is among an endpoint's models, the way that server resolves names: Ollama reads a
 * name without a tag as `:latest`; llama.cpp serves its one model whatever the request calls it
 * (`any`); Gemini lists `models/gemini-2.5-flash` and takes `gemini-2.5-flash`; Anthropic lists dated
 * ids (`claude-sonnet-4-5-20250929`) and takes their aliases (`claude-sonnet-4-5`, `...-latest`);
 * Azure lists base models, never deployments, so its list cannot say (`unlisted`: a call must).
 */
export function modelListed(model: string, list: {readonly models: readonly ListedModel[]; readonly server: ServerKind}): boolean | 'any' | 'unlisted' {
	const preset: Preset = PRESETS[list.server];
	if (preset.models === 'any-name') return 'any';
	if (preset.models === 'base-models') return 'unlisted';
	const prefix = preset.idPrefix ?? '';
	const ids = new Set(list.models.map((entry) => (prefix && entry.id.startsWith(prefix) ? entry.id.slice(prefix.length) : entry.id)));
	const bare = prefix && model.startsWith(prefix) ? model.slice(prefix.length) : model;
	if (ids.has(bare)) return true;
	if (list.server === 'ollama' && !bare.includes(':') && ids.has(`${bare}:latest`)) return true;
	if (preset.models === 'aliases') {
		const stem = bare.replace(/-latest$/, '');
		for (const id of ids) if (id.startsWith(`${stem}-`) && (/^\d{8}$/.test(id.slice(stem.length + 1)) || bare.endsWith('-latest'))) return true;
	}
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

function kindByList(models: readonly ListedModel[]): ServerKind | null {
	const owners = new Set(models.map((model) => model.ownedBy?.toLowerCase()));
	if (owners.has('vllm')) return 'vllm';
	if (owners.has('llamacpp')) return 'llamacpp';
	if (owners.has('ollama')) return 'ollama';
	if (owners.has('organization_owner')) return 'lmstudio';
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
		const response = await httpFetch(url, {signal: AbortSignal.timeout(timeoutMs)});
		return response.ok ? await response.json() : null;
	} catch {
		return null;
	}
}

async function postJson(url: string, body: unknown, timeoutMs: number): Promise<unknown> {
	try {
		const response = await httpFetch(url, {method: 'POST', headers: {'content-type': 'application/json'}, body: JSON.stringify(body), signal: AbortSignal.timeout(timeoutMs)});
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
