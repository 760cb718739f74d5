import {z} from 'zod';
import {ModelRole, type RoleSettings} from '../domain/session.js';
import {setupAdvice} from './advice.js';
import {type ModelList, OLLAMA_DEFAULT_CONTEXT, llamaCppContext, modelListed, ollamaContext} from './endpoint.js';
import {createGateway, gatewayOptions} from './gateway.js';
import {checkSetup} from './preflight.js';
import type {ModelSettings} from './settings.js';
import {type CallEvent, ModelCallError, SETUP_FAILURES} from './types.js';
import {shortHash} from '../util/hash.js';

/**
 * The context a role's prompts need, with room to answer: the judge's and blueprint prompts run to
 * about 3,000-6,000 tokens with evidence and a five-turn transcript, plus the reply.
 */
export const CONTEXT_NEEDED = 8192;

/** One role's checks. A check is null when it was not run (an earlier one failed, or it does not apply). */
export type RoleCheck = {
	readonly role: ModelRole;
	readonly provider: RoleSettings['provider'];
	readonly model: string;
	readonly endpoint: string | null;
	readonly server: string;
	readonly reachable: boolean | null;
	readonly auth: boolean | null;
	readonly listed: boolean | 'any' | null;
	readonly structured: {readonly mode: string; readonly ok: boolean; readonly detail: string} | null;
	readonly streaming: 'yes' | 'refused' | 'off' | 'failed' | null;
	/** Whether the replies carried thinking text (in content or in a reasoning field). */
	readonly reasoning: 'in content' | 'in a field' | 'none' | null;
	readonly supportsN: boolean | null;
	readonly latencyMs: number | null;
	readonly contextWindow: number | null;
	readonly contextSource: string | null;
};

export type DoctorReport = {
	readonly roles: readonly RoleCheck[];
	/** Set-ups that cannot work: each with what to change. */
	readonly problems: readonly string[];
	/** Set-ups that work but are likely to hurt results or cost. */
	readonly warnings: readonly string[];
};

const Probe = z.strictObject({ok: z.boolean(), word: z.string()});

/**
 * Checks every role of a set-up against its server, all at once, so one run names every
 * misconfiguration: an unset role, an unreachable endpoint, a refused key, an unknown model, a
 * structured call that fails in the role's mode, streaming refused, thinking text in replies, a
 * context window too small for the tool's prompts (Ollama's 4,096 default), settings dropped for a
 * reasoning model, a quota that is spent. Makes a few tiny calls per role (never cached).
 */
export async function runDoctor(settings: ModelSettings, context: {env: NodeJS.ProcessEnv; workspaceDir: string; roles?: readonly ModelRole[]}): Promise<DoctorReport> {
	const roles = context.roles ?? ModelRole.options;
	const problems: string[] = [];
	const warnings: string[] = [];
	for (const role of settings.unset.filter((unsetRole) => roles.includes(unsetRole))) {
		problems.push(`The ${role} role has no model on ${settings.roles[role].baseURL ?? 'its endpoint'} (only OpenAI's own endpoint has a default): set --model NAME for every role, or --${role}-model.`);
	}
	for (const role of roles) for (const notice of settings.roles[role].notices ?? []) warnings.push(`${role}: ${notice}.`);
	const setup = await checkSetup(settings, roles, context.env);
	problems.push(...setup.problems);
	warnings.push(...setup.warnings);
	const listFor = (role: ModelRole): ModelList | null => setup.lists.find(({group}) => group.roles.includes(role))?.list ?? null;
	// Probes go through the gateway, so they follow the same parameter rules as real work.
	const gateway = createGateway({...gatewayOptions({...settings, cache: false, retry: {maxAttempts: 1, baseDelayMs: 0, maxDelayMs: 0}, validationRetries: 0, record: null}, {env: context.env, workspaceDir: context.workspaceDir}), cache: false});
	const checks = await Promise.all(
		roles.map(async (role): Promise<RoleCheck> => {
			const role_ = settings.roles[role];
			const base = {role, provider: role_.provider, model: role_.model, endpoint: role_.baseURL, server: role_.provider === 'openai' ? 'unknown' : role_.provider, reachable: null, auth: null, listed: null, structured: null, streaming: null, reasoning: null, supportsN: null, latencyMs: null, contextWindow: null, contextSource: null} as const;
			if (role_.provider !== 'openai' || role_.model === '') return base;
			const list = listFor(role);
			const server = list?.server ?? 'unknown';
			const reachable = list ? list.ok || list.problem !== 'unreachable' : null;
			const auth = list ? list.ok || (list.problem !== 'auth' && list.problem !== 'unreachable') : null;
			const listed = list?.ok ? modelListed(role_.model, list) : null;
			let check: RoleCheck = {...base, server, reachable, auth, listed};
			if (!reachable || auth === false || listed === false) return check;
			check = {...check, ...(await contextOf(role_, list))};
			check = {...check, ...(await probeCalls(gateway, role, role_, (message) => problems.push(message), (message) => warnings.push(message), settings))};
			return check;
		}),
	);
	// One warning per finding, naming every role it applies to (five roles on one server say it once).
	const grouped = new Map<string, {roles: ModelRole[]; text: (who: string) => string}>();
	const note = (key: string, role: ModelRole, text: (who: string) => string) => {
		const entry = grouped.get(key) ?? {roles: [], text};
		entry.roles.push(role);
		grouped.set(key, entry);
	};
	for (const check of checks) {
		if (check.contextWindow !== null && check.contextWindow < CONTEXT_NEEDED) {
			const fix = check.server === 'ollama' ? 'start Ollama with OLLAMA_CONTEXT_LENGTH=16384 (or a Modelfile with PARAMETER num_ctx 16384); its OpenAI API cannot change it per request, and longer prompts are cut silently' : check.server === 'llamacpp' ? 'start llama-server with -c 16384' : 'serve the model with a longer context (vLLM: --max-model-len 16384)';
			note(`context|${check.model}|${check.endpoint}`, check.role, (who) => `The ${who} model ${check.model} runs with a ${check.contextWindow}-token context (${check.contextSource}); the tool's judge and blueprint prompts need about ${CONTEXT_NEEDED}: ${fix}.`);
		}
		if (check.reasoning === 'in content') note(`think|${check.model}|${check.endpoint}`, check.role, (who) => `The ${who} replies carry <think> text in their content: it is removed and kept on the call records, but it costs tokens and time. Serve with a reasoning parser (vLLM --reasoning-parser qwen3), or turn thinking off (extraBody {"chat_template_kwargs": {"enable_thinking": false}}).`);
		if (check.streaming === 'refused') note(`stream|${check.model}|${check.endpoint}`, check.role, (who) => `${check.endpoint ?? 'OpenAI'} refuses to stream ${check.model} for this account: the ${who} will ask for whole replies (set "stream": false to skip the refused attempt).`);
		if (check.role === 'assistant' && check.supportsN === true && settings.roles.assistant.supportsN !== true) note('n', check.role, () => `The assistant's server returns several choices per request: set "supportsN": true for the assistant role so best-of-N asks once instead of N times.`);
	}
	for (const {roles: which, text} of grouped.values()) warnings.push(text(`${which.join(', ')} role${which.length > 1 ? 's\'' : '\'s'}`));
	return {roles: checks, problems: [...new Set(problems)], warnings: [...new Set(warnings)]};
}

async function contextOf(settings: RoleSettings, list: ModelList | null): Promise<Pick<RoleCheck, 'contextWindow' | 'contextSource'>> {
	if (!list?.ok || !settings.baseURL) return {contextWindow: null, contextSource: null};
	if (list.server === 'ollama') {
		const found = await ollamaContext(settings.baseURL, settings.model);
		return {contextWindow: found.effective, contextSource: found.source === 'default' ? `Ollama's default: OLLAMA_CONTEXT_LENGTH unset or ${OLLAMA_DEFAULT_CONTEXT}` : found.source === 'modelfile' ? 'num_ctx in the Modelfile' : found.source === 'loaded' ? 'the loaded model' : null};
	}
	if (list.server === 'llamacpp') {
		const nCtx = await llamaCppContext(settings.baseURL);
		return {contextWindow: nCtx, contextSource: nCtx === null ? null : 'llama-server n_ctx'};
	}
	const entry = list.models.find((model) => model.id === settings.model);
	return {contextWindow: entry?.contextWindow ?? null, contextSource: entry?.contextWindow ? `${list.server} model list` : null};
}

/** The tiny calls: one structured reply in the role's mode, one streamed free-text reply, and for the assistant `n`. */
async function probeCalls(gateway: ReturnType<typeof createGateway>, role: ModelRole, settings: RoleSettings, problem: (message: string) => void, warn: (message: string) => void, all: ModelSettings): Promise<Partial<RoleCheck>> {
	const messages = (text: string) => [
		{role: 'system' as const, content: 'You are checking that a connection works. Answer briefly.'},
		{role: 'user' as const, content: text},
	];
	const prompt = (id: string, text: string) => ({id: `doctor/${id}`, messages: messages(text), hash: shortHash(text)});
	const notices: string[] = [];
	const onEvent = (event: CallEvent) => {
		if (event.type === 'notice') notices.push(event.message);
	};
	const out: {-readonly [K in keyof RoleCheck]?: RoleCheck[K]} = {};
	let sawReasoning: RoleCheck['reasoning'] = 'none';
	const fail = (what: string, error: unknown): boolean => {
		if (!(error instanceof ModelCallError)) throw error;
		const advice = SETUP_FAILURES.has(error.kind) ? ` ${setupAdvice(error.kind, role, settings, all.apiKeyEnv[role])}` : '';
		(SETUP_FAILURES.has(error.kind) ? problem : warn)(`The ${role} role's ${what} failed: ${error.call.error ?? error.message}.${advice}`);
		return SETUP_FAILURES.has(error.kind) && error.kind !== 'bad_request' && error.kind !== 'stream_refused';
	};
	const reasoningOf = (call: {reasoningIn?: 'content' | 'field'}) => {
		if (call.reasoningIn === 'content') sawReasoning = 'in content';
		else if (call.reasoningIn === 'field' && sawReasoning === 'none') sawReasoning = 'in a field';
	};
	const started = Date.now();
	try {
		const structured = await gateway.call({role, stage: 'doctor:structured', prompt: prompt('structured', 'Reply with a JSON object: "ok" true and "word" "ready".'), schema: {name: 'doctor_probe', schema: Probe}, mock: null, step: 0, onEvent});
		out.latencyMs = Date.now() - started;
		out.structured = {mode: settings.structured, ok: true, detail: structured.value.word};
		reasoningOf(structured.call);
	} catch (error) {
		out.latencyMs = Date.now() - started;
		out.structured = {mode: settings.structured, ok: false, detail: error instanceof ModelCallError ? error.kind : String(error)};
		if (fail(`structured call (${settings.structured})`, error)) return out;
	}
	if (settings.stream === false) out.streaming = 'off';
	else {
		try {
			const reply = await gateway.call<string>({role, stage: 'doctor:stream', prompt: prompt('stream', 'Say "ready" and nothing else.'), onToken: () => undefined, mock: null, step: 0, onEvent});
			out.streaming = notices.some((notice) => /refused to stream/.test(notice)) ? 'refused' : reply.call.streamed === false ? 'off' : 'yes';
			reasoningOf(reply.call);
		} catch (error) {
			out.streaming = error instanceof ModelCallError && error.kind === 'stream_refused' ? 'refused' : 'failed';
			fail('streamed call', error);
		}
	}
	if (role === 'assistant') {
		try {
			const choices = await gateway.call<string>({role, stage: 'doctor:n', prompt: prompt('n', 'Name one colour.'), n: 2, mock: null, step: 0, onEvent});
			out.supportsN = (choices.texts?.length ?? 1) >= 2;
		} catch {
			out.supportsN = false;
		}
	}
	out.reasoning = sawReasoning;
	return out;
}
