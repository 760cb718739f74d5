/**
 * Every provider's error body, in the one shape the SDK and `classifyStatus` read:
 * `{"error": {message, type, code, param, ...}}`. The shapes seen in the providers' documentation:
 *
 * - OpenAI, Azure, Groq, DeepSeek, Together, Fireworks, llama.cpp: `{"error": {message, type, code, param}}`
 *   (llama.cpp adds `n_prompt_tokens`/`n_ctx` to `exceed_context_size_error`; Groq adds `failed_generation`
 *   to `json_validate_failed`; Azure's content filter adds `innererror`).
 * - Gemini: `{"error": {code: 400, message, status: "INVALID_ARGUMENT", details: [{reason: "API_KEY_INVALID"}]}}`,
 *   and on the OpenAI-compatible endpoint sometimes a list of such objects: `[{"error": {...}}]`.
 * - Anthropic: `{"type": "error", "error": {"type": "authentication_error", "message"}}`.
 * - OpenRouter: `{"error": {code: 402, message, metadata}}`, with `code` as the HTTP status.
 * - vLLM: the fields at the top level (`{"object": "error", message, type, param, code}`).
 * - Ollama and LM Studio: `{"error": "text"}`.
 *
 * Where a provider puts a machine-readable reason in another field (Gemini's `status` and
 * `details[].reason`), it is lifted into `type`/`code` so one classifier reads every provider.
 */
export function normaliseErrorBody(body: unknown): unknown {
	if (Array.isArray(body)) {
		const first = body.find((entry) => entry && typeof entry === 'object');
		return first === undefined ? body : normaliseErrorBody(first);
	}
	if (!body || typeof body !== 'object') return body;
	const record = body as Record<string, unknown>;
	const error = record['error'];
	if (typeof error === 'string') return {error: {message: error, type: null, code: null, param: null}};
	if (error && typeof error === 'object' && !Array.isArray(error)) return {...record, error: liftReasons(error as Record<string, unknown>)};
	if (typeof record['message'] === 'string' || typeof record['detail'] === 'string') {
		return {error: {message: record['message'] ?? record['detail'], type: record['type'] ?? null, code: record['code'] ?? null, param: record['param'] ?? null}};
	}
	return body;
}

/** Gemini's google.rpc fields read as OpenAI's: `status` as the type, an ErrorInfo `reason` as the code. */
function liftReasons(error: Record<string, unknown>): Record<string, unknown> {
	const details = Array.isArray(error['details']) ? (error['details'] as unknown[]) : [];
	const reason = details.map((detail) => (detail && typeof detail === 'object' ? (detail as Record<string, unknown>)['reason'] : undefined)).find((value): value is string => typeof value === 'string');
	const status = typeof error['status'] === 'string' ? error['status'] : undefined;
	const out = {...error};
	if (reason !== undefined && (out['code'] === undefined || typeof out['code'] === 'number')) out['code'] = reason;
	if (status !== undefined && (out['type'] === undefined || out['type'] === null)) out['type'] = status;
	return out;
}

/**
 * The error a 200 reply carries instead of a completion (OpenRouter, once the upstream model started:
 * "any error occurred while the LLM is producing the output will be emitted in the response body"),
 * with the status it stands for: `error.code` when it is an HTTP status, else 502 (the upstream
 * failed). Null for a real completion.
 */
export function errorIn200(body: unknown): {readonly status: number; readonly body: unknown} | null {
	if (!body || typeof body !== 'object' || Array.isArray(body)) return null;
	const record = body as Record<string, unknown>;
	if (record['error'] === undefined || record['error'] === null) return null;
	if (Array.isArray(record['choices']) && record['choices'].length > 0) return null;
	const normal = normaliseErrorBody(record) as {error?: {code?: unknown}};
	const code = normal.error?.code;
	const status = typeof code === 'number' && code >= 400 && code <= 599 ? code : 502;
	return {status, body: normal};
}
